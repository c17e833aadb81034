// build(): relay.build (and relay.vm.compile) for Tessera. A graph module is optimized and fused,
// every distinct primitive function is lowered through its op strategy to TensorIR, scheduled for
// the target, lowered to a loop program and compiled with LLVM into one module; @main becomes a
// graph executor description with planned memory, or, for control flow, every function becomes VM
// code. exportBuilt/loadBuilt save and reopen the result (kernels.so with graph.json and
// params.npz, or vm.json and constants.npz; docs/user/runtime.md). The API a binding calls is
// docs/design/driver-api.md.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "codegen/llvm/build.h"
#include "codegen/llvm/target.h"
#include "driver/pipeline.h"
#include "lower/relay/schedule_provider.h"
#include "relay/module.h"
#include "relay/strategy/op_strategy.h"
#include "relay/strategy/schedule_kernel.h"
#include "runtime/graph_executor/graph_model.h"
#include "runtime/ndarray.h"
#include "runtime/npy.h"
#include "runtime/vm/vm_executable.h"
#include "tir/function.h"

namespace tessera::driver {

/// How one kernel was made: the implementation chosen for each of its calls that has
/// strategies, and whether the anchor schedule applied.
struct KernelStrategy {
  std::string kernel;
  std::vector<relay::strategy::StrategyChoice> choices;
  relay::strategy::AnchorReport anchor;
};

/// What build() makes: the kernels compiled for the target and the program that calls them, for
/// the graph executor (@main as kernel calls with planned memory) or, for control flow, the VM.
struct Built {
  target::Target target;  ///< resolved once by build() (empty for a loaded module)
  codegen::CompiledModule lib;
  // --- the graph executor's program (Executor::kGraph) ---
  runtime::GraphDescription graph;
  std::map<std::string, NDArray> params;  ///< by the names in graph.params
  /// Instead of `params` when BuildOptions::paramsFile was set: the archive they were written
  /// to as they were made, complete but not yet in place (exportBuilt commits it).
  std::shared_ptr<NpzWriter> writtenParams;
  // --- the VM's program (Executor::kVM): its kernels are lib's ---
  std::optional<runtime::vm::Executable> exec;
  std::vector<tir::PrimFunc> kernels;      ///< the lowered kernels (empty for a loaded module)
  std::vector<KernelStrategy> strategies;  ///< one per kernel (empty for a loaded module)

  /// Whether the VM runs this module (else the graph executor).
  bool isVM() const { return exec.has_value(); }
  /// What the runtime's graph executor runs (runtime::GraphExecutor). Not for a VM module or one
  /// whose params were written (writtenParams): export it and loadBuilt it to run it.
  runtime::GraphModel model() const;
};

/// Which program build() makes.
enum class Executor : uint8_t {
  kGraph,  ///< relay.build: the graph executor; control flow in @main is an error
  kVM,     ///< relay.vm.compile: every function to VM code; any module
  kAuto,   ///< the VM when the module needs it (needsVM), else the graph executor
};

/// The lines `tessera compile --explain-strategy` prints for a kernel: its name, each call's
/// chosen implementation with the skipped ones and why, and its schedule.
std::vector<std::string> explainStrategy(const KernelStrategy& kernel);

struct BuildOptions {
  /// Graph optimization level for this build (relay.build's 3 in the seeds); nullopt: the
  /// context's own level (`with PassContext(opt_level=N)`).
  std::optional<int> optLevel = 3;
  /// Apply the target's default schedules (topi/x86/schedule.h) with pre-packed weights; off,
  /// every kernel is the plain loop nest of its TE computes (a reference for differential tests).
  bool defaultSchedules = true;
  /// The context the pipeline runs under, entered for the build (its config, disabled passes and
  /// instruments apply); null: PassContext::current(). Its opt level is optLevel's while the
  /// build runs, when optLevel is set.
  relay::PassContext* context = nullptr;
  /// Tuned schedules (the tuner's database), consulted per kernel before the default schedule
  /// (lower/relay/schedule_provider.h); null: default schedules only.
  std::shared_ptr<const lower::ScheduleProvider> scheduleProvider;
  /// When set: the params.npz that exportBuilt will write (`tessera compile` sets it). Each param
  /// is then written to a temporary file next to it as lowering makes it, and freed, so that the
  /// weights are never in memory together with LLVM's work; Built::writtenParams holds the
  /// archive and `params` stays empty. Graph modules only (the VM ignores it).
  std::string paramsFile;
  /// The program to make: the graph executor's (relay.build), the VM's, or whichever the module
  /// needs.
  Executor executor = Executor::kGraph;
};

/// Builds `module` for `target` (resolved here, once): runs driver/pipeline.h's steps. `params` are
/// bound into @main first (BindParams), so they become constants of the graph. With
/// Executor::kGraph, @main becomes a graph executor description; with kVM every function becomes
/// VM code (lower/relay/to_vm.h). Throws DiagnosticError for what cannot be
/// compiled: for the graph executor a non-static input shape, control flow or calls to other
/// globals in @main (code "build"); for the VM non-static shapes, data-dependent output shapes,
/// closures (code "vm_compile"); an op without a compute. Move in a module nothing else holds to
/// keep peak memory low: its weights are then released as they become the graph's params.
Built build(relay::IRModule module, const target::Target& target,
            const std::map<std::string, NDArray>& params = {}, const BuildOptions& options = {});

/// True when `module` needs the VM: after inlining, @main holds an `if` or calls a (recursive)
/// global function. Executor::kGraph refuses such a module; kVM takes any.
bool needsVM(const relay::IRModule& module);

/// Writes `dir`/kernels.so, `dir`/graph.json and `dir`/params.npz (a graph module) or
/// `dir`/kernels.so, `dir`/vm.json and `dir`/constants.npz (a VM module: runtime/vm/vm_file.h),
/// creating `dir` when missing; files of the other kind are removed. Params written during the
/// build are moved into place: `dir` must then be on the file system of
/// BuildOptions::paramsFile. Throws DiagnosticError (code "export") when a file cannot be written.
void exportBuilt(const Built& built, const std::string& dir);
/// Reopens a directory written by exportBuilt (in any process), graph or VM. Throws
/// DiagnosticError (codes "graph_json", "vm_file", "codegen_load", "export") naming the file that
/// is missing or malformed.
Built loadBuilt(const std::string& dir);
/// Whether `path` is a directory written by exportBuilt (a graph.json or a vm.json in it).
bool isBuiltDirectory(const std::string& path);

}  // namespace tessera::driver
