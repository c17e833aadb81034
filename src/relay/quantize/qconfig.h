// The quantizer's configuration (TVM's qconfig, spec relay.md §5.2): every field and default of
// TVM 0.16, set for a scope like `with relay.quantize.qconfig(...)`:
//
//   relay::quantize::QConfig cfg = relay::quantize::QConfig::scoped();  // qconfig()'s defaults
//   cfg.skipConvLayers = std::vector<int64_t>{};
//   cfg.weightScale = "max";
//   relay::quantize::QConfigScope scope(cfg);  // active until the scope ends
//
// Outside any scope the built-in default applies, which differs from `qconfig()` in one field
// (skip_conv_layers is None, so no conv2d is skipped), as in TVM.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "relay/op/quantize.h"
#include "runtime/data_type.h"

namespace tessera::relay::quantize {

struct QConfig {
  int nbitInput = 8;
  int nbitWeight = 8;
  int nbitActivation = 32;
  DataType dtypeInput = DataType::int8();
  DataType dtypeWeight = DataType::int8();
  DataType dtypeActivation = DataType::int32();
  std::string calibrateMode = "global_scale";  ///< or "kl_divergence", "percentile"
  double globalScale = 8.0;
  /// "power2" (TVM's default), "max", or "per_channel_max" (Tessera's extension: one max scale
  /// per output channel of a conv2d or dense weight, requantized per channel right after the
  /// product; docs/design/quantization.md).
  std::string weightScale = "power2";
  /// Tessera's extension: an INPUT value that cannot be negative (a relu's output, or pooling,
  /// reshaping or adding such values) is quantized to the unsigned range [0, 2^nbit_input - 1]
  /// of dtype_input's unsigned twin (uint8): twice the levels of the symmetric range, as
  /// PyTorch's quint8 activations. Printed by str() only when set.
  bool unsignedInputs = false;
  bool skipDenseLayer = true;
  /// Indices (in visit order) of the conv2d layers left in float; nullopt: none.
  std::optional<std::vector<int64_t>> skipConvLayers = std::nullopt;
  bool doSimulation = false;
  bool roundForShift = true;
  /// When set, only these ops get annotation rules.
  std::optional<std::vector<std::string>> debugEnabledOps = std::nullopt;
  std::string rounding = "UPWARD";  ///< or "TONEAREST"
  int calibrateChunkBy = -1;
  std::string partitionConversions = "disabled";  ///< or "enabled", "fully_integral"

  /// The built-in default (no scope active).
  static QConfig builtin() { return {}; }
  /// `qconfig()`'s defaults: the built-in ones with skip_conv_layers = [0].
  static QConfig scoped();

  int nbitOf(QAnnotateKind kind) const;
  DataType dtypeOf(QAnnotateKind kind) const;
  /// dtype_input, or its unsigned twin for a value quantized to the unsigned range.
  DataType inputDtype(bool unsignedRange) const;
  /// Throws DiagnosticError "qconfig" naming the field for an impossible configuration.
  void validate() const;
  /// "qconfig(nbit_input=8, ...)", as TVM prints it.
  std::string str() const;
};

/// Makes `config` the current one until destroyed (scopes nest; per thread).
class QConfigScope {
 public:
  explicit QConfigScope(QConfig config);
  ~QConfigScope();
  QConfigScope(const QConfigScope&) = delete;
  QConfigScope& operator=(const QConfigScope&) = delete;
};

/// The innermost scope's configuration, or the built-in default.
const QConfig& currentQConfig();

}  // namespace tessera::relay::quantize
