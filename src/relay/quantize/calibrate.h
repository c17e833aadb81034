// Stage 3 of the quantizer, calibrate (TVM's QuantizeCalibrate, spec relay.md §5.7): chooses a
// threshold for every simulated_quantize and binds its dom_scale / clip_min / clip_max.
// Weights take theirs from the constant (power2 or max); the others take global_scale, or a
// statistic of the values seen when the model runs on a calibration dataset (KL divergence or
// percentile). The dataset runs through a "profile" copy of the function whose simulated
// quantizes pass values through and whose result is the tuple of their inputs.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "relay/module.h"
#include "relay/transform/pass.h"
#include "runtime/ndarray.h"

namespace tessera::relay::quantize {

/// Calibration batches: each maps the function's parameter names to values.
using CalibrationDataset = std::vector<std::map<std::string, NDArray>>;
/// Runs @main of a module on named inputs and returns its result's tensors in order (a tuple's
/// fields flattened). The default runs the reference interpreter; the driver offers compiled
/// code, which is faster on large models.
using ModuleRunner =
    std::function<std::vector<NDArray>(const IRModule&, const std::map<std::string, NDArray>&)>;
std::vector<NDArray> runOnInterpreter(const IRModule& module,
                                      const std::map<std::string, NDArray>& inputs);

/// What calibrate chose for one simulated_quantize (for reports).
struct CalibratedNode {
  int kind = 0;
  float threshold = 0;
  float domScale = 0;
};

/// Binds every simulated_quantize of `fn` (the output of annotate). Throws DiagnosticError
/// "quantize_dataset" for a dataset that is needed but empty, names no parameter of the function,
/// has a wrong shape or dtype, or contains NaN/inf.
Function calibrate(const Function& fn, const CalibrationDataset& dataset,
                   const ModuleRunner& run = runOnInterpreter,
                   std::vector<CalibratedNode>* chosen = nullptr);
/// QuantizeCalibrate (level 1) over @main.
Pass calibratePass(CalibrationDataset dataset, ModuleRunner run = runOnInterpreter);

/// The threshold of a WEIGHT node from its constant: max |w| ("max") or the next power of two
/// ("power2"; 1.0 for an all-zero weight).
float weightThreshold(const NDArray& weight, const std::string& mode);

}  // namespace tessera::relay::quantize
