// Stage 4 of the quantizer, realize (TVM's QuantizeRealize, spec relay.md §5.8): turns the
// calibrated simulation into integer arithmetic. A quantized value is a QRealizeIntExpr
// (data, dom_scale, dtype) standing for data * dom_scale; it is dequantized
// (cast to float32, multiplied by the scale) where it reaches an op without a rule and at the
// function's result. Rules are the op attribute "FQRealizeRewrite".
#pragma once

#include <optional>

#include "relay/op_registry.h"
#include "relay/quantize/forward_rewrite.h"
#include "relay/transform/pass.h"
#include "runtime/data_type.h"
#include "runtime/ndarray.h"

namespace tessera::relay::quantize {

class QRealizeIntExpr : public TempExpr {
 public:
  QRealizeIntExpr(Expr data, float domScale, DataType dtype, bool unsignedRange = false,
                  std::optional<NDArray> channelScales = std::nullopt)
      : data(std::move(data)),
        domScale(domScale),
        dtype(dtype),
        unsignedRange(unsignedRange),
        channelScales(std::move(channelScales)) {}
  Expr realize() const override;
  const Expr data;
  /// The scale; with channelScales, their largest.
  const float domScale;
  const DataType dtype;
  /// The values lie in [0, 2^nbit_input - 1] (qconfig unsigned_inputs): narrowed to the unsigned
  /// input dtype (QConfig::inputDtype), not to dtype_input.
  const bool unsignedRange;
  /// A per-channel weight's scales (weight_scale="per_channel_max", quantize/per_channel.h),
  /// shaped to broadcast over `data`; only the conv2d and dense rules accept such a value.
  const std::optional<NDArray> channelScales;
};

RewriteValue realizedExpr(Expr data, float domScale, DataType dtype, bool unsignedRange = false,
                          std::optional<NDArray> channelScales = std::nullopt);

inline constexpr OpAttrMap<ForwardRewriteFn> kRealizeRules{"FQRealizeRewrite"};
void registerRealizeFunction(const std::string& op, ForwardRewriteFn rule, int level = 10);
/// The built-in rules (once per process).
void registerBuiltinRealizeRules();

/// data * 2^... or fixed-point multiplication by `factor` (TVM's qnn::FixedPointMultiply with
/// qconfig's rounding): UPWARD is the fixed_point_multiply op, TONEAREST explicit int64 steps.
Expr fixedPointMultiplyBy(Expr data, double factor);

/// The realization of one function (its simulated quantizes must be calibrated).
Function realize(const Function& fn);
/// QuantizeRealize (level 1).
Pass realizePass();

}  // namespace tessera::relay::quantize
