// Read top to bottom, this file is the compiler. The graph passes follow TVM 0.16's relay.build
// (src/relay/backend/build_module.cc, spec relay.md §4.1), minus passes Tessera does not need
// yet; then the fused graph becomes kernels (lower/relay/), each kernel is scheduled by
// the op implementation that produced it (relay/strategy/), lowered by the TIR passes
// (tir/transform/lower.h), compiled by LLVM (codegen/llvm/), and the graph's memory is planned.
// Each step is instrumented by the PassContext, so --print-after and --time-passes see its name.
#include "driver/pipeline.h"

#include <algorithm>

#include "relay/strategy/op_strategy.h"
#include "relay/text/printer.h"
#include "relay/transform/pass_table.h"
#include "relay/transform/passes.h"
#include "support/check.h"
#include "tir/printer/printer.h"
#include "tir/transform/lower.h"

namespace tessera::driver {

const std::vector<std::string>& optimizationPipelineNames() {
  // Each pass's opt level is in its PassInfo; the context's level decides which of these run
  // (at relay.build's 3, the level-4 Combine passes do not).
  static const std::vector<std::string> names = {
      "Legalize",                // target hooks (FTVMLegalize) rewrite ops first
      "SimplifyInference",       // batch_norm -> multiply/add, dropout removed
      "EliminateCommonSubexpr",  // before folding, so duplicated subgraphs fold once
      "CombineParallelConv2D",   // sibling convs on one input become one
      "CombineParallelDense",    // sibling dense calls become one batch_matmul
      "FoldConstant",            // evaluate constant subgraphs with the interpreter
      "FoldScaleAxis",           // push per-channel scales into conv/dense weights
      "SimplifyExpr",            // reshape/transpose chains, no-op casts and pads
      "CanonicalizeCast",        // one cast per elementwise consumer, so fusion is not blocked
      "CanonicalizeOps",         // bias_add -> expand_dims + add
      "AlterOpLayout",           // the target's kernel layouts, e.g. x86 NCHW16c convs
      "FoldConstant",            // fold what the canonicalisations exposed
      "FuseOps",                 // group ops into Primitive functions (none at opt level 0)
  };
  return names;
}

relay::Pass optimizationPipeline() {
  std::vector<relay::Pass> passes;
  for (const std::string& name : optimizationPipelineNames())
    passes.push_back(relay::passByName(name));
  return relay::sequential(std::move(passes), "OptimizationPipeline");
}

relay::IRModule optimize(relay::IRModule module, relay::PassContext& ctx,
                         const std::map<std::string, NDArray>& params) {
  // A module split into functions (partition_conversions) compiles as one @main.
  relay::IRModule m = relay::inlineGlobalCalls(module);
  module = relay::IRModule();  // handed on, so that the passes may consume it
  if (!params.empty()) m = (*relay::bindParamsPass(params))(std::move(m), ctx);
  return (*optimizationPipeline())(std::move(m), ctx);
}

namespace {

std::string printKernels(const CompileState& s) {
  tir::TirModule m;
  for (const tir::PrimFunc& k : s.kernels) m.add(k);
  return tir::toScript(m);
}

// Each kernel carries the target it runs on (TVM's "target" function attribute), so a module
// whose kernels run on different devices can be split by it.
tir::PrimFunc withTarget(const tir::PrimFunc& func, const target::Target& target) {
  return tir::withAttr(func, "target", AttrValue::string(target.str()));
}

// A kernel for an accelerator (tessera.device_type): its host program, already lowered.
bool isDeviceKernel(const tir::PrimFunc& kernel) {
  return kernel->attrs.has("tessera.device_type");
}

void runOptimize(CompileState& s, relay::PassContext& ctx) {
  // Target hooks (AlterOpLayout) see the target whose strategies will pick the kernels.
  if (s.defaultSchedules && !ctx.target) {
    relay::strategy::registerStrategies();
    ctx.target = s.target;
  }
  s.module = optimize(std::move(s.module), ctx, s.params);
}

void runLowerGraphToTIR(CompileState& s, relay::PassContext&) {
  const target::Target* target = s.defaultSchedules ? &s.target : nullptr;
  if (s.vm) {
    lower::LoweredVM lowered = lower::lowerToVM(s.module, target);
    s.module = relay::IRModule();
    s.executable = std::move(lowered.exec);
    s.lowered.kernels = std::move(lowered.kernels);
  } else {
    // Moved: the weights then leave memory as lowering makes them params (packed or not).
    s.lowered =
        lower::lowerGraphToTIR(std::move(s.module), target, s.paramSink, s.vta ? &*s.vta : nullptr);
  }
  s.kernels.clear();
  for (const lower::GraphKernel& k : s.lowered.kernels) s.kernels.push_back(k.func);
}

// A tuned schedule first (when a provider has one for the kernel's workload), else the
// strategy's default.
void runScheduleKernels(CompileState& s, relay::PassContext&) {
  s.anchors.assign(s.kernels.size(), {});
  if (!s.defaultSchedules) return;
  for (size_t i = 0; i < s.kernels.size(); ++i) {
    tir::PrimFunc& kernel = s.kernels[i];
    if (isDeviceKernel(kernel)) {  // scheduled and lowered by its device's strategy
      const AttrValue* impl = kernel->attrs.find(relay::strategy::kImplementationAttr);
      s.anchors[i].implementation = (impl ? impl->asString() : "vta") + " (runs on VTA)";
      continue;
    }
    if (s.scheduleProvider) {
      const std::optional<tir::Trace> trace =
          s.scheduleProvider->scheduleFor(lower::workloadKey(kernel), kernel, s.target);
      if (trace) {
        lower::TracedSchedule tuned = lower::applyTunedTrace(kernel, *trace);
        s.anchors[i].tuned = tuned.func ? "applied" : tuned.answer.reason;
        if (tuned.func) {
          const AttrValue* impl = kernel->attrs.find(relay::strategy::kImplementationAttr);
          s.anchors[i].implementation = impl ? impl->asString() : "";
          kernel = *tuned.func;
          continue;
        }
      }
    }
    const std::string tuned = s.anchors[i].tuned;
    kernel = relay::strategy::scheduleKernel(kernel, s.target, &s.anchors[i]);
    s.anchors[i].tuned = tuned;
  }
}

// Each TIR pass runs over every kernel as one instrumented pass of its own, configured by the
// context (tir.disable_vectorize, tir.add_lower_pass, ...).
void runLowerTIR(CompileState& s, relay::PassContext& ctx) {
  tir::TirModule module;
  // Kernels carry their target into lowering: a pass may depend on its features (FMA).
  for (const tir::PrimFunc& k : s.kernels)
    if (!isDeviceKernel(k)) module.add(withTarget(k, s.target));
  module = tir::transform::lower(std::move(module), ctx);
  // The kernels keep their order; a device's stay as its strategy lowered them.
  std::vector<tir::PrimFunc> lowered = module.functions();
  size_t next = 0;
  for (tir::PrimFunc& k : s.kernels)
    k = isDeviceKernel(k) ? withTarget(k, *s.vta) : withTarget(lowered.at(next++), s.target);
}

void runCodegen(CompileState& s, relay::PassContext& ctx) {
  tir::TirModule module;
  for (const tir::PrimFunc& k : s.kernels) module.add(k);
  // A graph that only forwards inputs or constants has nothing to compile. The LLVM IR is kept
  // only to be printed.
  if (!module.empty())
    s.lib =
        codegen::compile(module, s.target, {.keepIR = transform::printsAfter(ctx, "CodegenLLVM")});
  if (s.vm && !module.empty()) s.executable.kernels = s.lib.module();
}

// The VM allocates as it runs: only a graph's memory is planned ahead.
void runPlanMemory(CompileState& s, relay::PassContext&) {
  if (!s.vm) runtime::planMemory(s.lowered.graph);
}

}  // namespace

const std::vector<CompileStep>& compileSteps() {
  static const std::vector<CompileStep> steps = {
      {"Optimize", "bind parameters, then the graph passes above, ending with FuseOps", runOptimize,
       [](const CompileState& s) { return relay::printModule(s.module); }},
      {"LowerGraphToTIR",
       "@main to kernel calls (or every function to VM code); each fused function to a PrimFunc "
       "by its strategies",
       runLowerGraphToTIR, printKernels},
      {"ScheduleKernels", "each kernel's anchor schedule, then the target's generic steps",
       runScheduleKernels, printKernels},
      {"LowerTIR", "the TIR lowering passes (tir/transform/lower.h), each over all kernels",
       runLowerTIR, printKernels},
      {"CodegenLLVM", "LLVM IR, O3, machine code; loaded in-process for the host", runCodegen,
       [](const CompileState& s) { return s.kernels.empty() ? std::string() : s.lib.llvmIR(); }},
      {"PlanMemory", "storage for every tensor of the graph, sharing what does not overlap",
       runPlanMemory,
       [](const CompileState& s) {
         return s.vm ? s.executable.asText() : s.lowered.graph.toJson();
       }},
  };
  return steps;
}

namespace {

void runInstrumentedStep(const CompileStep& step, CompileState& state, relay::PassContext& ctx) {
  transform::runInstrumented(
      ctx, step.name, [&] { step.run(state, ctx); }, [&] { return step.print(state); });
}

}  // namespace

void runPipeline(CompileState& state, relay::PassContext& ctx, const std::string& last) {
  for (const CompileStep& step : compileSteps()) {
    runInstrumentedStep(step, state, ctx);
    if (step.name == last) return;
  }
}

void runStep(CompileState& state, relay::PassContext& ctx, const std::string& name) {
  for (const CompileStep& step : compileSteps())
    if (step.name == name) return runInstrumentedStep(step, state, ctx);
  TS_CHECK(false) << "no compile step named " << name;
}

std::vector<std::string> printableStepNames() {
  std::vector<std::string> names;
  for (const CompileStep& step : compileSteps()) names.push_back(step.name);
  for (const std::string& name : optimizationPipelineNames()) names.push_back(name);
  names.push_back("OptimizationPipeline");
  names.push_back("BindParams");
  for (const std::string& name : tir::transform::passNames()) names.push_back(name);
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

std::vector<std::string> knownPassNames() {
  std::vector<std::string> names;
  for (const relay::PassTableRow& row : relay::passTable()) names.push_back(row.name());
  for (const std::string& name : tir::transform::passNames()) names.push_back(name);
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

}  // namespace tessera::driver
