// Per-channel weight scales (qconfig weight_scale="per_channel_max"; Tessera's extension of
// relay.quantize, docs/design/quantization.md). TVM quantizes every weight with one scale; with
// this option a conv2d or dense weight gets one scale per output channel (its channel's max |w|
// over the valid range), as PyTorch's and ONNX's per-channel quantization do. Calibrate binds the
// weight's dom_scale to a tensor that broadcasts over the weight; realize multiplies the int32
// product by each channel's scale over the largest one right after the product, so everything
// downstream keeps TVM's per-tensor rules.
#pragma once

#include <optional>

#include "relay/expr.h"
#include "runtime/ndarray.h"

namespace tessera::relay::quantize {

/// The axis of `consumer`'s weight (argument 1) that indexes output channels: 'O' of a conv2d's
/// kernel layout, 0 for dense; nullopt for any other op.
std::optional<int> weightChannelAxis(const CallNode& consumer);
/// The axis of `product`'s result that indexes output channels: 'C' of a conv2d's output layout,
/// the last for dense.
int productChannelAxis(const CallNode& product, int resultRank);

/// One scale per slice of `weight` along `axis`: its max |w| / `validRange`, shaped as the weight
/// with every other axis 1 (so it broadcasts over the weight). An all-zero channel takes the
/// largest channel's scale (1 / validRange when every channel is zero), so no scale is 0.
NDArray perChannelScales(const NDArray& weight, int axis, float validRange);

/// The largest of `scales`.
float maxScale(const NDArray& scales);

/// `acc` (int32, channel c at scale reference * scales[c] / max) brought to the one scale
/// `reference` * max(scales) / max = `reference`: each channel multiplied by scales[c] / max (in
/// float32, rounded half away from zero). `channelAxis` of the result, of rank `rank`.
Expr requantizePerChannel(Expr acc, const NDArray& scales, int channelAxis, int rank);

}  // namespace tessera::relay::quantize
