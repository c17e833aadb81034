// build(): relay.build for Tessera. A graph module is optimized and fused, every distinct primitive
// function is lowered through its op strategy to TensorIR, scheduled for the target, lowered to
// a loop program and compiled with LLVM into one module; @main becomes a graph executor
// description with planned memory. exportBuilt/loadBuilt save and reopen the result
// (kernels.so, graph.json, params.npz; see docs/user/runtime.md).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "codegen/llvm/build.h"
#include "codegen/llvm/target.h"
#include "driver/pipeline.h"
#include "relay/module.h"
#include "relay/strategy/op_strategy.h"
#include "relay/strategy/schedule_kernel.h"
#include "runtime/graph_model.h"
#include "runtime/ndarray.h"
#include "runtime/npy.h"
#include "runtime/vm_executable.h"
#include "tir/function.h"

namespace tessera::driver {

/// How one kernel was made: the implementation chosen for each of its calls that has
/// strategies, and whether the anchor schedule applied.
struct KernelStrategy {
  std::string kernel;
  std::vector<relay::strategy::StrategyChoice> choices;
  relay::strategy::AnchorReport anchor;
};

/// Everything a graph executor needs: the compiled kernels, the description, the parameters.
struct BuiltModule {
  codegen::CompiledModule lib;
  runtime::GraphDescription graph;
  std::map<std::string, NDArray> params;  ///< by the names in graph.params
  /// Instead of `params` when BuildOptions::paramsFile was set: the archive they were written
  /// to as they were made, complete but not yet in place (exportBuilt commits it).
  std::shared_ptr<NpzWriter> writtenParams;
  std::vector<tir::PrimFunc> kernels;      ///< the lowered kernels (empty for a loaded module)
  std::vector<KernelStrategy> strategies;  ///< one per kernel (empty for a loaded module)

  /// What the runtime's graph executor runs (runtime::GraphExecutor). Not for a module whose
  /// params were written (writtenParams): export it and loadBuilt it to run it.
  runtime::GraphModel model() const;
};

/// The lines `tessera compile --explain-strategy` prints for a kernel: its name, each call's
/// chosen implementation with the skipped ones and why, and its schedule.
std::vector<std::string> explainStrategy(const KernelStrategy& kernel);

struct BuildOptions {
  int optLevel = 3;  ///< graph optimization level (relay.build's default in the seeds)
  /// Apply the target's default schedules (topi/x86/schedule.h) with pre-packed weights; off,
  /// every kernel is the plain loop nest of its TE computes (a reference for differential tests).
  bool defaultSchedules = true;
  /// The context whose instruments (timing, print-after) the pipeline runs under; null: a fresh
  /// one. Its opt level is set from optLevel.
  relay::PassContext* context = nullptr;
  /// When set: the params.npz that exportBuilt will write (`tessera compile` sets it). Each param
  /// is then written to a temporary file next to it as lowering makes it, and freed, so that the
  /// weights are never in memory together with LLVM's work; BuiltModule::writtenParams holds the
  /// archive and `params` stays empty. Graph modules only (buildVM ignores it).
  std::string paramsFile;
};

/// The target's schedule of one kernel lowered with its strategies
/// (relay::strategy::LowerOptions::target), as build() applies it.
tir::PrimFunc scheduleForTarget(const tir::PrimFunc& kernel, const target::Target& target,
                                relay::strategy::AnchorReport* report = nullptr);

/// The kernels build() would compile for @main of an already optimized module, in its order and
/// with its names (`fused_<ops>`, `_1`, ...), before lowering; `scheduled`: with weights packed
/// and the target's default schedule applied, as build() does. Same errors as build().
std::vector<tir::PrimFunc> graphKernels(const relay::IRModule& optimized,
                                        const target::Target& target, bool scheduled);

/// Builds @main of `module` for `target`: runs driver/pipeline.h's steps. `params` are bound into
/// @main first (BindParams), so they become constants of the graph. Throws DiagnosticError for what
/// cannot be compiled: a non-static input shape, control flow or calls to other globals in @main,
/// an op without a compute. Move in a module nothing else holds to keep peak memory low: its
/// weights are then released as they become the graph's (packed) params.
BuiltModule build(relay::IRModule module, const target::Target& target,
                  const std::map<std::string, NDArray>& params = {},
                  const BuildOptions& options = {});

/// What the VM runs: the executable (its kernels compiled and loaded) and how each kernel was made.
struct BuiltVM {
  codegen::CompiledModule lib;
  runtime::vm::Executable exec;
  std::vector<tir::PrimFunc> kernels;
  std::vector<KernelStrategy> strategies;
};

/// True when `module` needs the VM: after inlining, @main holds an `if` or calls a (recursive)
/// global function. build() refuses such a module; buildVM() takes any.
bool needsVM(const relay::IRModule& module);

/// Builds every function of `module` for the VM (runtime/vm.h): the same pipeline as build(),
/// with the fused module lowered to VM code (lower/graph_to_tir/relay_to_vm.h) instead of a graph.
/// DiagnosticError (code "vm_compile") for what the VM cannot run yet (non-static shapes,
/// data-dependent output shapes, closures).
BuiltVM buildVM(relay::IRModule module, const target::Target& target,
                const std::map<std::string, NDArray>& params = {},
                const BuildOptions& options = {});

/// Writes `dir`/kernels.so, `dir`/vm.json and `dir`/constants.npz (runtime/vm_file.h), which
/// `tessera run DIR` and runtime::vm::loadExecutable reopen. Throws DiagnosticError (code
/// "export") when a file cannot be written.
void exportBuiltVM(const BuiltVM& built, const std::string& dir);

/// Writes `dir`/kernels.so, `dir`/graph.json and `dir`/params.npz, creating `dir` when missing
/// (params written during the build are moved into place: `dir` must then be on the file system
/// of BuildOptions::paramsFile). Throws DiagnosticError (code "export") when a file cannot be
/// written.
void exportBuilt(const BuiltModule& built, const std::string& dir);
/// Reopens a directory written by exportBuilt (in any process). Throws DiagnosticError (codes
/// "graph_json", "codegen_load", "export") naming the file that is missing or malformed.
BuiltModule loadBuilt(const std::string& dir);
/// Whether `path` is a directory holding a graph.json (what exportBuilt writes).
bool isBuiltDirectory(const std::string& path);

}  // namespace tessera::driver
