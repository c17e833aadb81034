#include "relay/quantize/quantize.h"

#include "relay/quantize/partition_conversions.h"

#include "relay/transform/pass_table.h"
#include "relay/transform/passes.h"
#include "relay/type_infer.h"
#include "support/diagnostic.h"

namespace tessera::relay::quantize {
namespace {

// The rewriting stages run at opt level 3 whatever the caller's context (TVM's quantize enters
// `PassContext(opt_level=3, required_pass=[...])` for them).
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

IRModule prerequisiteOptimize(const IRModule& module, const std::map<std::string, NDArray>& params,
                              PassContext& ctx) {
  IRModule m = inferTypes(module);
  if (!params.empty()) m = (*bindParamsPass(params))(std::move(m), ctx);
  std::vector<Pass> passes;
  for (const char* name :
       {"SimplifyInference", "FoldConstant", "FoldScaleAxis", "CanonicalizeOps", "FoldConstant"})
    passes.push_back(passByName(name));
  return (*sequential(std::move(passes), "PrerequisiteOptimize"))(std::move(m), ctx);
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
  IRModule m = prerequisiteOptimize(module, params, PassContext::current());
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
