// The FTVMLegalize hook of nn.conv2d_transpose: the transposed convolution becomes the forward
// convolution it is the gradient of, which then gets the convolution kernels (weight packing,
// NCHW[x]c layouts, Winograd) instead of a kernel of its own:
//   - the input dilated by the strides (zeros between its elements: a reshape to (.., H, 1, ..),
//     a pad to (.., H, stride, ..), a reshape and a slice, all injective);
//   - padded by (k - 1) * dilation less the op's padding, plus output_padding at the end (a
//     negative amount crops);
//   - convolved at stride 1, same dilation and groups, with the weight's in and out channels
//     swapped within each group and its window flipped (folded when the weight is a constant).
// The zeros cost stride^2 more multiply-adds than a kernel that skipped them; TVM's x86
// conv2d_transpose does the same arithmetic (dilate, pad, conv) inside one kernel.
#include "relay/op/nn_conv_transpose.h"
#include "relay/op/tensor.h"
#include "relay/op_registry.h"
#include "relay/strategy/strategy_util.h"
#include "relay/transform/passes.h"

namespace tessera::relay::strategy {
namespace {

Expr indexConstant(const std::vector<int64_t>& values) {
  NDArray a = NDArray::empty({static_cast<int64_t>(values.size())}, DataType::int64());
  for (size_t i = 0; i < values.size(); ++i) a.setInt(static_cast<int64_t>(i), values[i]);
  return makeConstant(std::move(a));
}

// (C_in, C_out / g, kh, kw) -> (C_out, C_in / g, kh, kw) with the window flipped.
Expr forwardWeight(const Expr& weight, const nn::ConvTransposeGeometry& g) {
  Expr w = reshape(weight, {g.groups, g.inPerGroup, g.outPerGroup, g.kh, g.kw});
  w = reshape(transpose(w, std::vector<int64_t>{0, 2, 1, 3, 4}),
              {g.outChannels, g.inPerGroup, g.kh, g.kw});
  const std::array<int64_t, 2> k = {g.kh, g.kw};
  for (int d = 0; d < 2; ++d) {
    std::vector<int64_t> reversed;
    for (int64_t i = k[d] - 1; i >= 0; --i) reversed.push_back(i);
    w = take(w, indexConstant(reversed), 2 + d, "clip");
  }
  return w;
}

// Zeros between the elements of the spatial axes: (N, C, H, W) -> (N, C, (H-1)*sh+1, (W-1)*sw+1).
Expr dilateByStrides(Expr data, const nn::ConvTransposeGeometry& g, DataType dtype) {
  const int64_t sh = g.strides[0], sw = g.strides[1];
  if (sh == 1 && sw == 1) return data;
  data = reshape(data, {g.batch, g.inChannels, g.height, 1, g.width, 1});
  nn::PadAttrs pad;
  pad.padWidth = {{0, 0}, {0, 0}, {0, 0}, {0, sh - 1}, {0, 0}, {0, sw - 1}};
  data = nn::pad(data, makeConstant(NDArray::scalar(0, dtype)), std::move(pad));
  data = reshape(data, {g.batch, g.inChannels, g.height * sh, g.width * sw});
  return stridedSlice(data, {0, 0, 0, 0},
                      {g.batch, g.inChannels, (g.height - 1) * sh + 1, (g.width - 1) * sw + 1});
}

Expr legalizeConv2dTranspose(const CallNode& call, const std::vector<Expr>& args,
                             const std::vector<Type>& argTypes) {
  const auto& a = attrsOf<Conv2DTransposeAttrs>(call.attrs);
  const auto* dataType = argTypes.at(0) ? argTypes[0]->as<TensorTypeNode>() : nullptr;
  const auto* weightType = argTypes.at(1) ? argTypes[1]->as<TensorTypeNode>() : nullptr;
  if (!dataType || !weightType) return nullptr;
  const auto ds = staticShape(dataType->shape), ws = staticShape(weightType->shape);
  if (!ds || !ws) return nullptr;  // the op's own compute handles what this cannot
  const nn::ConvTransposeGeometry g = nn::convTransposeGeometry(a, *ds, *ws);
  Expr data = dilateByStrides(args.at(0), g, dataType->dtype);
  std::array<int64_t, 4> pads = {g.before[0], g.before[1], g.after[0], g.after[1]};
  std::vector<int64_t> cropBegin = {0, 0, 0, 0};
  std::vector<int64_t> cropEnd = {g.batch, g.inChannels, (g.height - 1) * g.strides[0] + 1,
                                  (g.width - 1) * g.strides[1] + 1};
  bool crop = false;
  for (int d = 0; d < 2; ++d) {
    if (pads[d] < 0) cropBegin[2 + d] = -pads[d], pads[d] = 0, crop = true;
    if (pads[d + 2] < 0) cropEnd[2 + d] += pads[d + 2], pads[d + 2] = 0, crop = true;
  }
  if (crop) data = stridedSlice(data, cropBegin, cropEnd);
  Conv2DAttrs conv;
  conv.padding = {pads[0], pads[1], pads[2], pads[3]};
  conv.dilation = {g.dilation[0], g.dilation[1]};
  conv.groups = g.groups;
  conv.channels = g.outChannels;
  conv.kernelSize = std::vector<int64_t>{g.kh, g.kw};
  conv.outDtype = a.outDtype;
  return nn::conv2d(data, forwardWeight(args.at(1), g), std::move(conv));
}

}  // namespace

void registerConv2dTransposeLegalize() {
  OpRegistry::global().setAttr("nn.conv2d_transpose", kLegalizeAttr,
                               LegalizeFn(legalizeConv2dTranspose));
}

}  // namespace tessera::relay::strategy
