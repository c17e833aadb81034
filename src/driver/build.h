// build(): relay.build for Tessera. A graph module is optimized and fused, every distinct primitive
// function is lowered through its op strategy to TensorIR, scheduled for the target, lowered to
// a loop program and compiled with LLVM into one module; @main becomes a graph executor
// description with planned memory. exportBuilt/loadBuilt save and reopen the result
// (kernels.so, graph.json, params.npz; see docs/user/runtime.md).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "codegen/llvm/build.h"
#include "codegen/llvm/target.h"
#include "driver/graph_description.h"
#include "relay/module.h"
#include "runtime/ndarray.h"
#include "tir/function.h"

namespace tessera::driver {

/// Everything a graph executor needs: the compiled kernels, the description, the parameters.
struct BuiltModule {
  codegen::CompiledModule lib;
  GraphDescription graph;
  std::map<std::string, NDArray> params;  ///< by the names in graph.params
  std::vector<tir::PrimFunc> kernels;     ///< the lowered kernels (empty for a loaded module)
};

struct BuildOptions {
  int optLevel = 3;  ///< graph optimization level (relay.build's default in the seeds)
  /// Apply the target's default schedules (topi/x86/schedule.h) with pre-packed weights; off,
  /// every kernel is the plain loop nest of its TE computes (a reference for differential tests).
  bool defaultSchedules = true;
};

/// The target's default schedule of one kernel lowered with packed weights
/// (relay::strategy::LowerOptions::packWeights), as build() applies it.
tir::PrimFunc scheduleForTarget(const tir::PrimFunc& kernel, const codegen::Target& target);

/// The kernels build() would compile for @main of an already optimized module, in its order and
/// with its names (`fused_<ops>`, `_1`, ...), before lowering; `scheduled`: with weights packed
/// and the target's default schedule applied, as build() does. Same errors as build().
std::vector<tir::PrimFunc> graphKernels(const relay::IRModule& optimized,
                                        const codegen::Target& target, bool scheduled);

/// Builds @main of `module` for `target`. `params` are bound into @main first (BindParams), so
/// they become constants of the graph. Throws DiagnosticError for what cannot be compiled: a
/// non-static input shape, control flow or calls to other globals in @main, an op without a
/// compute.
BuiltModule build(const relay::IRModule& module, const codegen::Target& target,
                  const std::map<std::string, NDArray>& params = {},
                  const BuildOptions& options = {});

/// Writes `dir`/kernels.so, `dir`/graph.json and `dir`/params.npz, creating `dir` when missing.
/// Throws DiagnosticError (code "export") when a file cannot be written.
void exportBuilt(const BuiltModule& built, const std::string& dir);
/// Reopens a directory written by exportBuilt (in any process). Throws DiagnosticError (codes
/// "graph_json", "codegen_load", "export") naming the file that is missing or malformed.
BuiltModule loadBuilt(const std::string& dir);
/// Whether `path` is a directory holding a graph.json (what exportBuilt writes).
bool isBuiltDirectory(const std::string& path);

}  // namespace tessera::driver
