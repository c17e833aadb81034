// Weight pre-packing: a dense or NCHW conv2d whose weight is a constant of the fused function gets
// its weight repacked while compiling (topi/nn_packed.cc) and the packed compute, which the x86
// schedules tile with the output channels as the vector lanes. The block size is chosen here,
// where the constant is known, and read back by the schedule from the packed buffer's shape.
#include "relay/strategy/packed_weights.h"

#include "relay/op/nn.h"
#include "relay/strategy/strategy_util.h"

namespace tessera::relay::strategy {
namespace {

// Lanes per packed block of `channels` output channels: a whole number of vectors when it can be,
// the whole (small) dimension otherwise; 0 when no block size fits.
int64_t denseBlock(int64_t channels) {
  if (channels % 32 == 0 && channels >= 64) return 32;
  for (int64_t b : {16, 8})
    if (channels % b == 0) return b;
  return channels <= 32 ? channels : 0;
}

int64_t convBlock(int64_t channels) {
  for (int64_t b : {16, 8})
    if (channels % b == 0) return b;
  return 0;
}

}  // namespace

int64_t packedBlockOf(const CallNode& call) {
  const auto* op = call.op->as<OpNode>();
  if (!op || call.args.size() != 2) return 0;
  const Type& dataType = call.args[0]->checkedType;
  const Type& weightType = call.args[1]->checkedType;
  if (!dataType || !weightType) return 0;
  const auto* data = dataType->as<TensorTypeNode>();
  const auto* weight = weightType->as<TensorTypeNode>();
  if (!data || !weight || data->dtype != weight->dtype) return 0;
  const std::optional<std::vector<int64_t>> w = staticShape(weight->shape);
  if (!w) return 0;
  if (op->name == "nn.dense") return w->size() == 2 ? denseBlock((*w)[0]) : 0;
  if (op->name != "nn.conv2d" || w->size() != 4) return 0;
  const auto& a = attrsOf<Conv2DAttrs>(call.attrs);
  const bool plain = a.dataLayout == "NCHW" && a.kernelLayout == "OIHW" &&
                     (a.outLayout.empty() || a.outLayout == "NCHW");
  const std::optional<std::vector<int64_t>> d = staticShape(data->shape);
  // Pointwise convolutions are computed as matrix products over pixels, on the weight as it is.
  if (!d || topi::conv2d1x1AsMatmul(*d, *w, convParams(a, data->dtype))) return 0;
  return plain && a.groups == 1 ? convBlock((*w)[0]) : 0;
}

NDArray packWeight(const NDArray& weight, int64_t block) {
  return weight.ndim() == 2 ? topi::packDenseWeight(weight, block)
                            : topi::packConv2dWeight(weight, block);
}

std::vector<int64_t> packedShape(const std::vector<int64_t>& s, int64_t block) {
  if (s.size() == 2) return {s[0] / block, s[1], block};
  return {s[0] / block, s[1], s[2], s[3], block};
}

std::vector<te::Tensor> packedCompute(const CallNode& call, const te::Tensor& data,
                                      const te::Tensor& packedWeight, const Type& outType) {
  const DataType outDtype = tensorTypeOf(outType).dtype;
  if (call.op->as<OpNode>()->name == "nn.dense")
    return {topi::densePacked(data, packedWeight, outDtype)};
  const topi::Conv2DParams p = convParams(attrsOf<Conv2DAttrs>(call.attrs), outDtype);
  return {topi::conv2dNchwPacked(data, packedWeight, p)};
}

}  // namespace tessera::relay::strategy
