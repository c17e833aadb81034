// build(): the pipeline of driver/pipeline.cc run through, packaged for the graph executor.
#include "driver/build.h"

#include <utility>

#include "codegen/llvm/target.h"
#include "driver/pipeline.h"
#include "relay/op/nn.h"
#include "relay/transform/passes.h"
#include "relay/visit.h"
#include "support/check.h"
#include "support/diagnostic.h"
#include "vta/graph/graph_pack.h"
#include "vta/rt/device.h"

namespace tessera::driver {

std::vector<std::string> explainStrategy(const KernelStrategy& kernel) {
  std::vector<std::string> lines{kernel.kernel + ":"};
  for (const relay::strategy::StrategyChoice& choice : kernel.choices)
    for (const std::string& line : relay::strategy::explainChoice(choice))
      lines.push_back("  " + line);
  if (kernel.anchor.tuned == "applied") {
    lines.push_back("  schedule: tuned (a schedule provider's trace)");
    return lines;
  }
  if (!kernel.anchor.tuned.empty())
    lines.push_back("  tuned schedule does not apply: " + kernel.anchor.tuned);
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

// A quantized module that is not packed yet gets seed 000's graph packing (every int8
// convolution and requantized int8 dense layer in VTA's layouts; what follows is unpacked where
// it cannot take packed data), as
// `tessera vta pack` would; a packed one (TVM's start/stop region, say) is compiled as it is.
relay::IRModule packForVta(relay::IRModule module, const vta::Config& config) {
  const std::string layout =
      "NCHW" + std::to_string(config.batch()) + "n" + std::to_string(config.blockIn()) + "c";
  bool packed = false;
  for (const auto& [name, fn] : module.functions())
    relay::postOrderVisit(fn, [&](const relay::Expr& e) {
      const auto* call = e->as<relay::CallNode>();
      const auto* op = call ? call->op->as<relay::OpNode>() : nullptr;
      if (op && op->name == "nn.dense" && call->args.size() == 2) {
        const auto* weight =
            call->args[1]->checkedType ? call->args[1]->checkedType->as<TensorTypeNode>() : nullptr;
        packed |= weight && weight->ndim() == 4;  // dense in VTA's packed form
      }
      if (!op || op->name != "nn.conv2d") return;
      const auto* attrs = attrsAs<relay::nn::Conv2DAttrs>(call->attrs.get());
      packed |= attrs && attrs->dataLayout == layout;
    });
  if (packed) return module;
  vta::GraphPackOptions options;
  options.bfactor = config.batch();
  options.cfactor = config.blockOut();
  options.weightBits = config.wgtWidth();
  return vta::graphPackModule(module, options);
}

CompileState compileModule(relay::IRModule module, const target::Target& target,
                           const std::map<std::string, NDArray>& params,
                           const BuildOptions& options, bool vm,
                           const std::shared_ptr<NpzWriter>& writer = nullptr) {
  relay::PassContext& ctx = options.context ? *options.context : relay::PassContext::current();
  // Resolved before any work: an unusable target is an error before the graph passes start.
  // A VTA build: the CPU's kernels for the host, the packed convolutions for VTA (its C
  // functions and device registered, so the module loads and runs here).
  const bool vta = target.isVta();
  if (vta) {
    if (vm)
      throwDiagnostic("build",
                      "VTA builds run on the graph executor; the module needs the VM "
                      "(control flow) or --vm was given");
    vta::registerVtaDevice();
    module = packForVta(std::move(module), *target.vtaConfig);
  }
  CompileState state{.module = std::move(module),
                     .target = codegen::withHostDefaults(vta ? target::Target::llvm() : target),
                     .vta = vta ? std::optional<target::Target>(target) : std::nullopt,
                     .params = params,
                     .defaultSchedules = options.defaultSchedules,
                     .vm = vm,
                     .scheduleProvider = options.scheduleProvider.get()};
  if (writer)
    state.paramSink = [writer](const std::string& name, const NDArray& data) {
      writer->add(name, data);
    };
  // The build's opt level holds while it runs; the caller's context keeps its own afterwards.
  const int callerLevel = ctx.optLevel;
  if (options.optLevel) ctx.optLevel = *options.optLevel;
  relay::PassContext::Scope scope(ctx);
  try {
    runPipeline(state, ctx);
  } catch (...) {
    ctx.optLevel = callerLevel;
    throw;
  }
  ctx.optLevel = callerLevel;
  return state;
}

}  // namespace

runtime::GraphModel Built::model() const {
  TS_CHECK(!exec) << "a VM module runs on runtime::vm::VirtualMachine, not the graph executor";
  TS_CHECK(!writtenParams) << "the params of this module were written to " << writtenParams->path()
                           << "; export and reload it to run it";
  return {lib.module(), graph, params};
}

bool needsVM(const relay::IRModule& module) {
  return lower::needsVM(relay::inlineGlobalCalls(module));
}

Built build(relay::IRModule module, const target::Target& target,
            const std::map<std::string, NDArray>& params, const BuildOptions& options) {
  const bool vm =
      options.executor == Executor::kVM || (options.executor == Executor::kAuto && needsVM(module));
  auto writer =
      options.paramsFile.empty() || vm ? nullptr : std::make_shared<NpzWriter>(options.paramsFile);
  CompileState state = compileModule(std::move(module), target, params, options, vm, writer);

  Built built;
  built.target = state.target;
  built.lib = state.lib;
  built.kernels = state.kernels;
  built.strategies = strategiesOf(state);
  if (vm) {
    built.exec = std::move(state.executable);
    return built;
  }
  built.writtenParams = writer;
  built.graph = std::move(state.lowered.graph);
  built.params = std::move(state.lowered.params);
  return built;
}

}  // namespace tessera::driver
