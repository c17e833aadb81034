#include "relay/quantize/per_channel.h"

#include <algorithm>
#include <cmath>

#include "relay/op/nn.h"
#include "relay/op/op_common.h"
#include "relay/op/tensor.h"
#include "support/check.h"

namespace tessera::relay::quantize {
namespace {

const std::string& opName(const CallNode& call) {
  static const std::string none;
  const auto* op = call.op->as<OpNode>();
  return op ? op->name : none;
}

int layoutAxis(const std::string& layout, char dim) {
  const size_t at = layout.find(dim);
  return at == std::string::npos ? -1 : static_cast<int>(at);
}

}  // namespace

std::optional<int> weightChannelAxis(const CallNode& consumer) {
  if (opName(consumer) == "nn.dense") return 0;
  if (opName(consumer) != "nn.conv2d") return std::nullopt;
  const int axis =
      layoutAxis(attrsOrDefault<nn::Conv2DAttrs>(consumer.attrs.get()).kernelLayout, 'O');
  return axis < 0 ? std::nullopt : std::optional<int>(axis);
}

int productChannelAxis(const CallNode& product, int resultRank) {
  if (opName(product) == "nn.conv2d") {
    const auto& a = attrsOrDefault<nn::Conv2DAttrs>(product.attrs.get());
    const int axis = layoutAxis(a.outLayout.empty() ? a.dataLayout : a.outLayout, 'C');
    TS_CHECK(axis >= 0) << "conv2d output layout without C";
    return axis;
  }
  return resultRank - 1;
}

NDArray perChannelScales(const NDArray& weight, int axis, float validRange) {
  const std::vector<int64_t>& dims = weight.shape();
  TS_CHECK(axis >= 0 && axis < weight.ndim())
      << "channel axis " << axis << " of a rank " << weight.ndim() << " weight";
  int64_t inner = 1;
  for (size_t d = static_cast<size_t>(axis) + 1; d < dims.size(); ++d) inner *= dims[d];
  const int64_t channels = dims[static_cast<size_t>(axis)];
  std::vector<double> maxAbs(static_cast<size_t>(channels), 0.0);
  for (int64_t i = 0; i < weight.numel(); ++i) {
    double& m = maxAbs[static_cast<size_t>((i / inner) % channels)];
    m = std::max(m, std::fabs(weight.getFloat(i)));
  }
  const double largest = *std::max_element(maxAbs.begin(), maxAbs.end());
  std::vector<int64_t> shape(dims.size(), 1);
  shape[static_cast<size_t>(axis)] = channels;
  NDArray out = NDArray::empty(shape, DataType::float32());
  for (int64_t c = 0; c < channels; ++c) {
    const double m = maxAbs[static_cast<size_t>(c)] > 0 ? maxAbs[static_cast<size_t>(c)]
                     : largest > 0                      ? largest
                                                        : 1.0;
    out.setFloat(c, static_cast<float>(m) / validRange);
  }
  return out;
}

float maxScale(const NDArray& scales) {
  float m = 0;
  for (int64_t i = 0; i < scales.numel(); ++i)
    m = std::max(m, static_cast<float>(scales.getFloat(i)));
  return m;
}

Expr requantizePerChannel(Expr acc, const NDArray& scales, int channelAxis, int rank) {
  const float largest = maxScale(scales);
  // Shaped [C, 1, ..., 1] so that it broadcasts from the channel axis to the last.
  std::vector<int64_t> shape(static_cast<size_t>(rank - channelAxis), 1);
  shape[0] = scales.numel();
  NDArray ratio = NDArray::empty(shape, DataType::float32());
  for (int64_t c = 0; c < scales.numel(); ++c)
    ratio.setFloat(c, static_cast<float>(scales.getFloat(c)) / largest);
  const DataType f32 = DataType::float32();
  Expr scaled = multiply(cast(std::move(acc), f32), makeConstant(std::move(ratio)));
  return cast(round(std::move(scaled)), DataType::int32());
}

}  // namespace tessera::relay::quantize
