// Quantizing a model as a user asks for it (tessera quantize, tessera eval --quantize, the Python
// package): relay.quantize under a qconfig and the caller's PassContext, calibrated on a dataset
// read from a .npz or given, with the calibration graph compiled for the host (as TVM) or run on
// the reference interpreter, and the per-layer error report.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "relay/module.h"
#include "relay/quantize/quantize.h"
#include "relay/transform/pass.h"
#include "runtime/ndarray.h"

namespace tessera::driver {

/// What quantizeModel does besides the qconfig.
struct QuantizeOptions {
  relay::quantize::QConfig config = relay::quantize::QConfig::scoped();
  std::map<std::string, NDArray> params;  ///< bound into @main first (quantize(mod, params))
  relay::quantize::CalibrationDataset dataset;
  bool report = false;            ///< measure the per-layer error report
  bool calibrateCompiled = true;  ///< compiled profile graph (TVM's way), else the interpreter
};

/// The quantized module and, when asked for, the report as text.
struct Quantized {
  relay::IRModule module;
  std::string report;
};

/// TVM's relay.quantize.quantize(mod, params, dataset) under `options.config` and `ctx` (entered
/// while it runs): prerequisite_optimize runs at the context's opt level, so at TVM's default of 2
/// FoldScaleAxis does not run and a batch-norm scale stays a separate `multiply`, while at 3 (seed
/// 000's `with PassContext(opt_level=3)`) it is folded into the weights.
Quantized quantizeModel(const relay::IRModule& module, const QuantizeOptions& options,
                        relay::PassContext& ctx = relay::PassContext::current());

/// The calibration batches of a .npz whose arrays are named like the model's inputs: each array
/// holds samples along its first axis, either one more axis than the input (N x input shape) or
/// the input's batch axis N times over. At most `samples` batches. DiagnosticError (code
/// "quantize_dataset") naming the file for arrays that do not fit the model.
relay::quantize::CalibrationDataset readCalibrationDataset(const std::string& path,
                                                           const relay::IRModule& module,
                                                           std::optional<int64_t> samples);

}  // namespace tessera::driver
