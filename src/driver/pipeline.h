// The whole compiler in order, as named steps of one pass infrastructure: graph passes, lowering
// of the fused graph to TensorIR, scheduling, the TIR lowering passes, code generation, memory
// planning. Every step (and every relay and TIR pass inside one) runs under one PassContext, so
// --time-passes and --print-after NAME|all see all of them (ir/transform.h).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "codegen/llvm/build.h"
#include "lower/relay/schedule_provider.h"
#include "lower/relay/to_graph.h"
#include "lower/relay/to_vm.h"
#include "relay/module.h"
#include "relay/strategy/schedule_kernel.h"
#include "relay/transform/pass.h"
#include "runtime/ndarray.h"
#include "target/target.h"

namespace tessera::driver {

/// The names of the graph passes of the default pipeline, in order (each gated by its opt level).
const std::vector<std::string>& optimizationPipelineNames();

/// relay.build's graph optimization as one Sequential of optimizationPipelineNames(). Which
/// passes run depends on the context's opt level (relay.build uses 3 in the seeds).
relay::Pass optimizationPipeline();

/// Binds `params` into @main (BindParams), then runs the graph passes under `ctx`. A module
/// handed over (std::move) is consumed: its weights are freed as folding replaces them.
relay::IRModule optimize(relay::IRModule module, relay::PassContext& ctx,
                         const std::map<std::string, NDArray>& params = {});

/// What the compile steps hand to each other.
struct CompileState {
  /// The graph: optimized by the first step, then moved into LowerGraphToTIR (empty after it), so
  /// that each weight leaves memory once lowering has made it a param.
  relay::IRModule module;
  target::Target target;                  ///< resolved (codegen::withHostDefaults)
  /// A heterogeneous build's accelerator (VTA): its kernels are compiled by LowerGraphToTIR and
  /// pass ScheduleKernels and LowerTIR untouched; `target` is then the host's.
  std::optional<target::Target> vta;
  std::map<std::string, NDArray> params;  ///< bound into @main before the graph passes
  /// Choose implementations with the target's op strategies and schedule the kernels; off,
  /// every kernel is the plain loop nest of its generic computes (the reference).
  bool defaultSchedules = true;
  /// Lower to VM code (`if` on run-time values, loops as recursive functions) instead of a graph
  /// executor description: `executable` is then written instead of `lowered.graph`.
  bool vm = false;
  /// Consulted per kernel by ScheduleKernels before the default schedule (null: none).
  const lower::ScheduleProvider* scheduleProvider = nullptr;
  /// When set, LowerGraphToTIR hands each param to it instead of keeping it in lowered.params.
  lower::ParamSink paramSink;
  lower::LoweredGraph lowered;         ///< after LowerGraphToTIR (memory planned by PlanMemory)
  runtime::vm::Executable executable;  ///< the VM's program (vm): after LowerGraphToTIR
  std::vector<tir::PrimFunc> kernels;  ///< the kernels as the last step left them
  std::vector<relay::strategy::AnchorReport> anchors;  ///< after ScheduleKernels
  codegen::CompiledModule lib;                         ///< after CodegenLLVM
};

/// One named step of the compiler.
struct CompileStep {
  const char* name;
  const char* summary;
  void (*run)(CompileState& state, relay::PassContext& ctx);
  /// What --print-after NAME shows of the state after the step.
  std::string (*print)(const CompileState& state);
};

/// The steps, in order: Optimize, LowerGraphToTIR, ScheduleKernels, LowerTIR, CodegenLLVM,
/// PlanMemory.
const std::vector<CompileStep>& compileSteps();

/// Runs the steps in order, through `last` (every step when empty), each instrumented by `ctx`.
void runPipeline(CompileState& state, relay::PassContext& ctx, const std::string& last = "");
/// Runs the one step `name`, instrumented by `ctx` (for tools that stop between steps).
void runStep(CompileState& state, relay::PassContext& ctx, const std::string& name);

/// Every name --print-after accepts: the steps, the graph passes and the TIR passes.
std::vector<std::string> printableStepNames();

/// Every pass a context can name in disabledPasses or requiredPasses: the graph passes of the
/// pass table and the TIR passes (built-in and registered).
std::vector<std::string> knownPassNames();

}  // namespace tessera::driver
