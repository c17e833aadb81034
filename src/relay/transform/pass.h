// Relay's passes on the shared pass infrastructure (ir/transform.h): a Relay pass is a
// transform::PassNode over relay::IRModule; module passes, function passes (which skip
// external functions and leave the module typed) and Sequential, whose required passes are
// found in the pass table.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ir/transform.h"
#include "relay/module.h"

namespace tessera::relay {

using transform::PassContext;
using transform::passEnabled;
using transform::PassInfo;
using transform::PassTiming;

using PassNode = transform::PassNode<IRModule>;
using Pass = transform::PassOf<IRModule>;

/// What --print-after shows of a Relay module: its text (with the metadata section elided).
std::string printForInstruments(const IRModule& module);

using ModuleTransform = std::function<IRModule(IRModule, PassContext&)>;
using FunctionTransform = std::function<Function(const Function&, const IRModule&, PassContext&)>;

/// A pass over the whole module.
Pass makeModulePass(PassInfo info, ModuleTransform transform);
/// True for functions that function passes leave alone: those with a `Compiler`, `Extern` or
/// `SkipOptimization` attribute.
bool skippedByFunctionPasses(const FunctionNode& fn);
/// A pass applied to every function without `Compiler`, `Extern` or `SkipOptimization` attributes;
/// InferType always runs on the result, so a function pass leaves the module typed.
Pass makeFunctionPass(PassInfo info, FunctionTransform transform);
/// Runs passes in order, skipping those the context disables or whose opt level is above the
/// context's (unless required), running each pass's required passes first.
Pass sequential(std::vector<Pass> passes, std::string name = "Sequential", int optLevel = 0);

/// The InferType pass (level 0).
Pass inferTypePass();

}  // namespace tessera::relay
