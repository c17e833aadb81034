#include "relay/quantize/quantize.h"

#include "relay/quantize/partition_conversions.h"

#include "relay/transform/pass_table.h"
#include "relay/transform/passes.h"
#include "relay/type_infer.h"
#include "support/diagnostic.h"

namespace tessera::relay::quantize {
namespace {

IRModule runPasses(const IRModule& module, const std::vector<std::string>& names) {
  PassContext ctx;
  ctx.optLevel = 3;
  IRModule m = module;
  for (const std::string& name : names) m = (*passByName(name))(m, ctx);
  return m;
}

IRModule withMain(const IRModule& module, Function main) {
  IRModule out = module;
  out.add("main", std::move(main));
  return inferTypes(out);
}

}  // namespace

IRModule prerequisiteOptimize(const IRModule& module,
                              const std::map<std::string, NDArray>& params) {
  IRModule m = inferTypes(module);
  if (!params.empty()) {
    PassContext ctx;
    m = (*bindParamsPass(params))(m, ctx);
  }
  return runPasses(
      m, {"SimplifyInference", "FoldConstant", "FoldScaleAxis", "CanonicalizeOps", "FoldConstant"});
}

void registerBuiltinRules() {
  registerBuiltinPartitionRules();
  registerBuiltinAnnotateRules();
  registerBuiltinRealizeRules();
}

IRModule quantize(const IRModule& module, const std::map<std::string, NDArray>& params,
                  const CalibrationDataset& dataset, const ModuleRunner& run,
                  QuantizeReport* report) {
  const QConfig& cfg = currentQConfig();
  cfg.validate();
  registerBuiltinRules();
  IRModule m = prerequisiteOptimize(module, params);
  if (report) report->floatOps = opsLeftInFloat(m.main());
  m = withMain(m, partition(m.main()));
  m = withMain(m, annotate(m.main()));
  std::vector<CalibratedNode> chosen;
  m = withMain(m, calibrate(m.main(), dataset, run, &chosen));
  if (report) {
    report->layers = layerReport(m.main(), dataset, run);
  }
  if (!cfg.doSimulation) m = withMain(m, realize(m.main()));
  m = runPasses(m, {"FoldConstant"});
  if (report) report->nodes = std::move(chosen);
  if (cfg.partitionConversions != "disabled")
    m = partitionConversions(m, {cfg.dtypeInput, cfg.dtypeWeight, cfg.dtypeActivation},
                             cfg.partitionConversions == "fully_integral");
  return m;
}

}  // namespace tessera::relay::quantize
