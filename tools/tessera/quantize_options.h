// The quantization options `tessera quantize` and `tessera eval --quantize` share: the qconfig
// fields as flags, the parameters to bind and the calibration dataset.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "cli.h"
#include "driver/quantize.h"
#include "relay/quantize/quantize.h"

/// The flags' help, a literal so that each command's usage text can include it.
#define TESSERA_QUANTIZE_OPTIONS_USAGE                                                             \
  "  --calibrate-mode M     global_scale (default), kl_divergence or percentile\n"                 \
  "  --dataset FILE.npz     calibration inputs, one array per model input named like it, "         \
  "samples\n"                                                                                      \
  "                         along the first axis (needed by kl_divergence and percentile)\n"       \
  "  --samples N            use the first N samples of the dataset\n"                              \
  "  --params FILE.npz      bind these named parameters first (as quantize(mod, params))\n"        \
  "  --skip-conv-layers L   conv2d layers (0-based, visit order) left in float: 0,2,... or none\n" \
  "                         (default 0, as qconfig())\n"                                           \
  "  --skip-dense-layer B   true (default) or false: leave nn.dense in float\n"                    \
  "  --global-scale S       threshold of every activation in global_scale mode (default 8)\n"      \
  "  --weight-scale W       power2 (default), max, or per_channel_max (one scale per output\n"      \
  "                         channel of each conv2d/dense weight)\n"                                \
  "  --unsigned-inputs B    false (default) or true: quantize values that cannot be negative\n"  \
  "                         (after relu) to uint8 [0, 255] instead of int8 [-127, 127]\n"         \
  "  --rounding R           UPWARD (default) or TONEAREST (also: average pooling of int8\n"      \
  "                         values rounds instead of truncating)\n"                              \
  "  --nbit-input N, --nbit-weight N, --nbit-activation N   bit widths (8, 8, 32)\n"               \
  "  --simulate             keep float simulation (do_simulation) instead of integer arithmetic\n" \
  "  --partition-conversions P  disabled (default), enabled (split @main into @quantize_inputs,\n" \
  "                         @quantized_main, @dequantize_outputs) or fully_integral (also\n"       \
  "                         require @quantized_main to be integer only)\n"                         \
  "  --report               per quantized value: threshold, clipped fraction, SQNR against the\n"  \
  "                         float model on the calibration data, worst first\n"                    \
  "  --calibrate-with R     compiled (default: the profile graph built for the host, as TVM)\n"    \
  "                         or interpreter (the reference interpreter: exact, much slower)\n"      \
  "  --opt-level N          the pass context quantize runs under (default 3, as seed 000's\n"      \
  "                         `with PassContext(opt_level=3)`); 2 is TVM's default context, where\n" \
  "                         FoldScaleAxis does not run before quantization\n"                      \
  "  --pass-config KEY=VALUE, --disabled-pass NAME[,NAME]  as for `tessera compile`\n"

namespace tessera::cli {

struct QuantizeOptions {
  relay::quantize::QConfig config = relay::quantize::QConfig::scoped();
  relay::PassContext context;  ///< --opt-level, --pass-config, --disabled-pass
  std::optional<std::string> paramsPath;
  std::optional<std::string> datasetPath;
  std::optional<int64_t> samples;
  bool report = false;
  bool calibrateCompiled = true;  ///< --calibrate-with compiled (else the interpreter)
};

/// Reads the flags (usage text: TESSERA_QUANTIZE_OPTIONS_USAGE); bad values are UsageErrors.
QuantizeOptions parseQuantizeOptions(Args& args);

/// driver::quantizeModel's request for `module`: the flags' qconfig and files read. The
/// calibration data is `dataset` when given, else the --dataset file.
driver::QuantizeOptions quantizeRequest(const relay::IRModule& module,
                                        const QuantizeOptions& options,
                                        relay::quantize::CalibrationDataset dataset = {});

}  // namespace tessera::cli
