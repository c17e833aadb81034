// Reads the TVMScript Tessera prints for Relax (relax/printer.h) back: an `@I.ir_module` class
// of `@R.function` and `@T.prim_func` definitions (PrimFuncs through tir/script), functions with
// `R.Tensor` signatures and symbolic dimensions, `with R.dataflow():` blocks ending in
// `R.output(...)`, plain bindings, `R.call_tir(cls.f, ...)`, `R.call_dps_packed("f", ...)`, the
// Relax ops of relax/ops.h, tuples, `R.shape`. Also seed 002's hand-written form (positional
// dtype and out_sinfo, no return annotation). What is accepted: docs/user/tvmscript.md. Errors
// are DiagnosticErrors at line:column (code "tvmscript", or the op's code for a misused op).
#pragma once

#include <string>
#include <string_view>
#include <utility>

#include "relax/expr.h"

namespace tessera::relax {

/// The module of a script: its `@I.ir_module` class, or its top-level definitions.
IRModule parseScript(std::string_view text, const std::string& sourceName = "<tvmscript>");

/// The one `@R.function` definition of `text` and its name (a `cls.f` reference in it is a
/// diagnostic: a lone function has no module).
std::pair<std::string, Function> parseFunction(std::string_view text,
                                               const std::string& sourceName = "<tvmscript>");

}  // namespace tessera::relax
