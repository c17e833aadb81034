// build(): the pipeline of driver/pipeline.cc run through, packaged for the graph executor.
#include "driver/build.h"

#include <utility>

#include "codegen/llvm/target.h"
#include "driver/pipeline.h"
#include "relay/transform/passes.h"
#include "support/check.h"

namespace tessera::driver {

tir::PrimFunc scheduleForTarget(const tir::PrimFunc& func, const target::Target& target,
                                relay::strategy::AnchorReport* report) {
  return relay::strategy::scheduleKernel(func, codegen::withHostDefaults(target), report);
}

std::vector<tir::PrimFunc> graphKernels(const relay::IRModule& optimized,
                                        const target::Target& requested, bool scheduled) {
  const target::Target target = codegen::withHostDefaults(requested);
  const lower::LoweredGraph lowered =
      lower::lowerGraphToTIR(optimized, scheduled ? &target : nullptr);
  std::vector<tir::PrimFunc> kernels;
  for (const lower::GraphKernel& k : lowered.kernels)
    kernels.push_back(scheduled ? relay::strategy::scheduleKernel(k.func, target) : k.func);
  return kernels;
}

std::vector<std::string> explainStrategy(const KernelStrategy& kernel) {
  std::vector<std::string> lines{kernel.kernel + ":"};
  for (const relay::strategy::StrategyChoice& choice : kernel.choices)
    for (const std::string& line : relay::strategy::explainChoice(choice))
      lines.push_back("  " + line);
  if (kernel.anchor.implementation.empty()) {
    lines.push_back("  schedule: generic steps only");
  } else if (kernel.anchor.answer) {
    lines.push_back("  schedule: " + kernel.anchor.implementation);
  } else {
    lines.push_back("  schedule: generic steps only (" + kernel.anchor.implementation +
                    " does not apply: " + kernel.anchor.answer.reason + ")");
  }
  return lines;
}

namespace {

std::vector<KernelStrategy> strategiesOf(CompileState& state) {
  std::vector<KernelStrategy> out;
  for (size_t i = 0; i < state.kernels.size(); ++i)
    out.push_back(
        {state.kernels[i]->name, std::move(state.lowered.kernels[i].choices), state.anchors[i]});
  return out;
}

CompileState compileModule(relay::IRModule module, const target::Target& target,
                           const std::map<std::string, NDArray>& params,
                           const BuildOptions& options, bool vm,
                           const std::shared_ptr<NpzWriter>& writer = nullptr) {
  relay::PassContext ownContext;
  relay::PassContext& ctx = options.context ? *options.context : ownContext;
  ctx.optLevel = options.optLevel;
  // Resolved before any work: an unusable target is an error before the graph passes start.
  CompileState state{.module = std::move(module),
                     .target = codegen::withHostDefaults(target),
                     .params = params,
                     .strategies = options.defaultSchedules,
                     .vm = vm};
  if (writer)
    state.paramSink = [writer](const std::string& name, const NDArray& data) {
      writer->add(name, data);
    };
  runPipeline(state, ctx);
  return state;
}

}  // namespace

runtime::GraphModel BuiltModule::model() const {
  TS_CHECK(!writtenParams) << "the params of this module were written to " << writtenParams->path()
                           << "; export and reload it to run it";
  return {lib.module(), graph, params};
}

bool needsVM(const relay::IRModule& module) {
  return lower::needsVM(relay::inlineGlobalCalls(module));
}

BuiltVM buildVM(relay::IRModule module, const target::Target& target,
                const std::map<std::string, NDArray>& params, const BuildOptions& options) {
  CompileState state = compileModule(std::move(module), target, params, options, true);
  return {state.lib, std::move(state.executable), state.kernels, strategiesOf(state)};
}

BuiltModule build(relay::IRModule module, const target::Target& target,
                  const std::map<std::string, NDArray>& params, const BuildOptions& options) {
  auto writer =
      options.paramsFile.empty() ? nullptr : std::make_shared<NpzWriter>(options.paramsFile);
  CompileState state = compileModule(std::move(module), target, params, options, false, writer);

  BuiltModule built;
  built.writtenParams = writer;
  built.lib = state.lib;
  built.graph = std::move(state.lowered.graph);
  built.params = std::move(state.lowered.params);
  built.kernels = state.kernels;
  built.strategies = strategiesOf(state);
  return built;
}

}  // namespace tessera::driver
