// 3-D (N, C, D, H, W) windows of Conv, ConvTranspose, MaxPool and AveragePool, composed of the
// 2-D Relay ops so that the interpreter and the compiled path both run them: a convolution is a
// sum over the depth taps of 2-D convolutions with the output depth folded into the batch, a
// pool is a 2-D pool over (H, W) followed by a pool over D.
#include "frontend/onnx/nn_window.h"
#include "relay/op/nn.h"
#include "relay/op/tensor.h"

namespace tessera::frontend::onnx {

namespace {

using relay::Expr;

// The number of window positions along depth; a diagnostic when the dilated kernel does not
// fit the padded input (the 2-D ops check H and W themselves).
int64_t outDepthOf(NodeContext& n, int64_t depth, const Window& w) {
  const int64_t padded = depth + w.pads[0] + w.pads[3];
  const int64_t span = (w.kernel[0] - 1) * w.dilations[0] + 1;
  if (padded < span)
    n.fail("onnx_shape", "the kernel spans " + std::to_string(span) +
                             " elements along depth but the padded input has " +
                             std::to_string(padded));
  return (padded - span) / w.strides[0] + 1;
}

}  // namespace

// For depth tap k, output depth d reads padded input depth d * sd + k * dd: one strided slice
// per tap gives those depths for every d at once, and with the depths folded into the batch a
// 2-D convolution by W[:, :, k] handles H and W (their padding included). The taps' results
// sum to the 3-D convolution, with the same multiply-adds as a direct one.
Expr conv3dOf(NodeContext& n, Expr data, Expr weight, const Window& w, int64_t groups,
              DataType outDtype) {
  const std::vector<int64_t> in = n.shapeOf(data), ws = n.shapeOf(weight);
  const int64_t outDepth = outDepthOf(n, in[2], w);
  if (w.pads[0] > 0 || w.pads[3] > 0)
    data = relay::nn::pad(data, scalarConstant(0, n.dtypeOf(data)),
                          {.padWidth = {{0, 0}, {0, 0}, {w.pads[0], w.pads[3]}, {0, 0}, {0, 0}}});
  // Depth before channels once, so that each tap's slice folds into the batch by a reshape.
  data = relay::transpose(data, std::vector<int64_t>{0, 2, 1, 3, 4});
  Expr sum;
  for (int64_t k = 0; k < w.kernel[0]; ++k) {
    const int64_t first = k * w.dilations[0];
    Expr taps =
        relay::stridedSlice(data, {0, first, 0, 0, 0},
                            {in[0], first + (outDepth - 1) * w.strides[0] + 1, in[1], in[3], in[4]},
                            {1, w.strides[0], 1, 1, 1});
    taps = relay::reshape(taps, {in[0] * outDepth, in[1], in[3], in[4]});
    Expr tapWeight = n.fold(relay::reshape(
        relay::stridedSlice(weight, {0, 0, k, 0, 0}, {ws[0], ws[1], k + 1, ws[3], ws[4]}),
        {ws[0], ws[1], ws[3], ws[4]}));
    Expr y = relay::nn::conv2d(taps, tapWeight,
                               {.strides = {w.strides[1], w.strides[2]},
                                .padding = {w.pads[1], w.pads[2], w.pads[4], w.pads[5]},
                                .dilation = {w.dilations[1], w.dilations[2]},
                                .groups = groups,
                                .channels = ws[0],
                                .kernelSize = std::vector<int64_t>{ws[3], ws[4]},
                                .outDtype = outDtype});
    sum = sum ? relay::add(sum, y) : y;
  }
  const std::vector<int64_t> out = n.shapeOf(sum);  // (N * Dout, O, Hout, Wout)
  return relay::transpose(relay::reshape(sum, {in[0], outDepth, out[1], out[2], out[3]}),
                          std::vector<int64_t>{0, 2, 1, 3, 4});
}

// Max is separable over a box window. So is the average: the window's taps, real or padding,
// form a box, so its count (of real taps, or of taps inside the explicit padding) is the product
// of the per-axis counts, and the (H, W) pool's divisor is the same for every depth that the
// depth pool then averages. ceil_mode's extra positions are decided per axis too, and the 2-D
// pool drops their taps per axis, so edge windows separate as well.
Expr pool3dOf(NodeContext& n, Expr data, const Window& w, PoolMode mode) {
  const std::vector<int64_t> in = n.shapeOf(data);
  Expr y = relay::reshape(data, {in[0], in[1] * in[2], in[3], in[4]});
  y = pool2dOf(y,
               {.kernel = {w.kernel[1], w.kernel[2]},
                .strides = {w.strides[1], w.strides[2]},
                .dilations = {w.dilations[1], w.dilations[2]},
                .pads = {w.pads[1], w.pads[2], w.pads[4], w.pads[5]}},
               mode);
  const std::vector<int64_t> plane = n.shapeOf(y);  // (N, C * D, Hout, Wout)
  y = relay::reshape(y, {in[0], in[1], in[2], plane[2] * plane[3]});
  y = pool2dOf(y,
               {.kernel = {w.kernel[0], 1},
                .strides = {w.strides[0], 1},
                .dilations = {w.dilations[0], 1},
                .pads = {w.pads[0], 0, w.pads[3], 0}},
               mode);
  const int64_t outDepth = n.shapeOf(y)[2];
  return relay::reshape(y, {in[0], in[1], outDepth, plane[2], plane[3]});
}

}  // namespace tessera::frontend::onnx
