// The per-layer error report of `tessera quantize --report` (neither TVM nor ONNX Runtime gives
// one): for every point where the calibrated model quantizes a value, its threshold, the
// fraction of values the clip range cuts off, and the signal-to-quantization-noise ratio of the
// value there against the float model, on the calibration data. The errors accumulate, so a
// point's SQNR includes everything quantized before it; a sharp drop names the layer to skip.
#pragma once

#include <string>
#include <vector>

#include "relay/quantize/calibrate.h"

namespace tessera::relay::quantize {

struct LayerReport {
  std::string name;       ///< "nn.relu #3 -> INPUT": the op producing the value, and the kind
  std::string kind;       ///< INPUT / ACTIVATION
  float threshold = 0;    ///< the real value mapped to the top of the range
  float domScale = 0;     ///< threshold / 2^(nbit-1)
  double clipped = 0;     ///< fraction of values beyond the range
  double sqnrDb = 0;      ///< 10 log10(sum x^2 / sum (x - q)^2); +inf when exact
  bool measured = false;  ///< clipped and sqnrDb were measured (there was calibration data)
};

/// The report of a calibrated, simulated function (annotate + calibrate, before realize): rows
/// sorted worst SQNR first.
std::vector<LayerReport> layerReport(const Function& calibrated, const CalibrationDataset& dataset,
                                     const ModuleRunner& run = runOnInterpreter);
/// The ops of `fn` that no annotate rule covers (they stay in float), each named once.
std::vector<std::string> opsLeftInFloat(const Function& fn);
/// The report as a table.
std::string formatLayerReport(const std::vector<LayerReport>& rows,
                              const std::vector<std::string>& floatOps);

}  // namespace tessera::relay::quantize
