// relay.quantize for C++ (spec relay.md §5): the whole int8 quantization flow of TVM 0.16 —
// prerequisite_optimize, then partition, annotate, calibrate and realize under the current
// qconfig (relay/quantize/qconfig.h) — and the per-stage passes and rule registries for users
// who replace rules (seed 001).
//
//   QConfig cfg = QConfig::scoped();
//   cfg.calibrateMode = "kl_divergence";
//   QConfigScope scope(cfg);
//   IRModule q = quantize(module, params, dataset);
#pragma once

#include <map>
#include <string>

#include "relay/module.h"
#include "relay/quantize/annotate.h"
#include "relay/quantize/calibrate.h"
#include "relay/quantize/partition.h"
#include "relay/quantize/qconfig.h"
#include "relay/quantize/realize.h"
#include "relay/quantize/report.h"
#include "relay/transform/pass.h"
#include "runtime/ndarray.h"

namespace tessera::relay::quantize {

/// Binds `params` into @main by name, then SimplifyInference, FoldConstant, FoldScaleAxis,
/// CanonicalizeOps, FoldConstant as one Sequential under `ctx`, as TVM does: at its default opt
/// level 2, FoldScaleAxis and CanonicalizeOps (level 3) do not run, so a batch-norm scale stays a
/// `multiply` and `nn.bias_add` stays; inside `PassContext(opt_level=3)` both run.
IRModule prerequisiteOptimize(const IRModule& module,
                              const std::map<std::string, NDArray>& params = {},
                              PassContext& ctx = PassContext::current());

/// Registers the built-in rules of all three rewriting stages (once per process).
void registerBuiltinRules();

/// What quantize() did, for reports.
struct QuantizeReport {
  std::vector<CalibratedNode> nodes;  ///< every calibrated simulated_quantize, in post order
  std::vector<LayerReport> layers;    ///< per quantized value, worst SQNR first
  std::vector<std::string> floatOps;  ///< ops no rule covers (they stay float)
};

/// TVM's relay.quantize.quantize under the current qconfig and the current PassContext (whose
/// opt level gates prerequisiteOptimize; the rewriting stages run at level 3). The dataset is
/// needed for the kl_divergence and percentile modes. With do_simulation the result keeps the
/// calibrated simulated_quantize ops (float simulation) instead of integer arithmetic. With
/// `report`, the per-layer errors are measured on the dataset (two more runs over it).
IRModule quantize(const IRModule& module, const std::map<std::string, NDArray>& params = {},
                  const CalibrationDataset& dataset = {},
                  const ModuleRunner& run = runOnInterpreter, QuantizeReport* report = nullptr);

}  // namespace tessera::relay::quantize
