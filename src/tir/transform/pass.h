// TIR passes on the shared pass infrastructure (ir/transform.h): a TIR pass is a
// transform::PassNode over a TirModule, usually applying one function to every PrimFunc (TVM's
// PrimFuncPass). The built-in lowering passes (lower.h) and passes that users register are found
// by name, which is how `tir.add_lower_pass` names the passes it adds.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "ir/transform.h"
#include "tir/function.h"

namespace tessera::tir {

/// What --print-after shows of a TIR module: its TVMScript.
std::string printForInstruments(const TirModule& module);

}  // namespace tessera::tir

namespace tessera::tir::transform {

using tessera::transform::PassContext;
using tessera::transform::PassInfo;
using PassNode = tessera::transform::PassNode<TirModule>;
using Pass = tessera::transform::PassOf<TirModule>;

using PrimFuncTransform = std::function<PrimFunc(const PrimFunc&, PassContext&)>;

/// A pass that applies `fn` to every PrimFunc of the module, keeping the order.
Pass makePrimFuncPass(PassInfo info, PrimFuncTransform fn);

/// Makes `pass` findable by its name (for `tir.add_lower_pass`). DiagnosticError (code
/// "pass_config") when a different pass already has the name; registering the same pass again
/// does nothing.
void registerPass(const Pass& pass);
/// A lowering pass (lower.h) or a registered one by name. DiagnosticError (code "pass_config")
/// listing the known names otherwise.
Pass passByName(const std::string& name);
/// The names passByName knows: the lowering passes in order, then the registered ones, sorted.
std::vector<std::string> passNames();

/// Registers `pass` and appends it to the context's `tir.add_lower_pass` at `phase` (0-3): what
/// `PassContext(config={"tir.add_lower_pass": [(phase, pass)]})` says in TVM.
void addLowerPass(PassContext& ctx, int phase, const Pass& pass);

}  // namespace tessera::tir::transform
