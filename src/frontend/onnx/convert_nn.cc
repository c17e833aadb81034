// Windowed ONNX operators: Conv, ConvTranspose, MaxPool, AveragePool, LpPool, GlobalAveragePool,
// GlobalMaxPool, and Pad. 2-D windows map to nn.conv2d / nn.*_pool2d (NCHW); 1-D windows run as
// 2-D ones over a unit height; 3-D windows are composed of 2-D ones (convert_nn3d.cc). auto_pad is
// resolved here from the static input shape. MaxPool's Indices output is built by maxPoolIndices
// (convert_pool_extra.cc).
#include <algorithm>

#include "frontend/onnx/context.h"
#include "frontend/onnx/nn_window.h"
#include "relay/op/nn.h"
#include "relay/op/nn_conv_transpose.h"
#include "relay/op/tensor.h"

namespace tessera::frontend::onnx {

namespace {

using relay::Expr;

std::vector<int64_t> listAttr(NodeContext& n, const std::string& name, size_t count,
                              int64_t fallback, int64_t min) {
  std::vector<int64_t> v = n.attrInts(name).value_or(std::vector<int64_t>(count, fallback));
  if (v.size() != count)
    n.fail("onnx_attr", "attribute '" + name + "' has " + std::to_string(v.size()) +
                            " values but the window has " +
                            std::to_string(count / (name == "pads" ? 2 : 1)) + " spatial axes");
  for (int64_t x : v)
    if (x < min || x > kMaxWindowValue)
      n.badAttr(name, std::to_string(x),
                "values from " + std::to_string(min) + " to " + std::to_string(kMaxWindowValue));
  return v;
}

Window windowOf(NodeContext& n, const std::vector<int64_t>& spatialIn,
                std::vector<int64_t> kernel) {
  const size_t s = spatialIn.size();
  Window w{.kernel = std::move(kernel),
           .strides = listAttr(n, "strides", s, 1, 1),
           .dilations = listAttr(n, "dilations", s, 1, 1),
           .pads = listAttr(n, "pads", 2 * s, 0, 0)};
  if (w.kernel.size() != s)
    n.fail("onnx_attr", "kernel_shape has " + std::to_string(w.kernel.size()) + " values for " +
                            std::to_string(s) + " spatial axes");
  for (int64_t k : w.kernel)
    if (k < 1 || k > kMaxWindowValue)
      n.badAttr("kernel_shape", std::to_string(k), "values from 1 to 2^30");
  const std::string autoPad = n.attrString("auto_pad", "NOTSET");
  if (autoPad == "NOTSET") return w;
  if (autoPad == "VALID") {
    std::fill(w.pads.begin(), w.pads.end(), 0);
    return w;
  }
  if (autoPad != "SAME_UPPER" && autoPad != "SAME_LOWER")
    n.badAttr("auto_pad", autoPad, "NOTSET, VALID, SAME_UPPER, SAME_LOWER");
  // SAME: output extent ceil(in / stride); the odd padding element goes at the end (UPPER) or
  // the beginning (LOWER).
  for (size_t k = 0; k < s; ++k) {
    const int64_t out = (spatialIn[k] + w.strides[k] - 1) / w.strides[k];
    const int64_t span = (w.kernel[k] - 1) * w.dilations[k] + 1;
    const int64_t total = std::max<int64_t>(0, (out - 1) * w.strides[k] + span - spatialIn[k]);
    const int64_t small = total / 2;
    w.pads[k] = autoPad == "SAME_UPPER" ? small : total - small;
    w.pads[k + s] = total - w.pads[k];
  }
  return w;
}

// Spatial rank of an NC... input: 1, 2 or 3.
size_t spatialRank(NodeContext& n, size_t input) {
  const int64_t rank = n.inputRank(input);
  if (rank < 3 || rank > 5)
    n.fail("onnx_unsupported_rank",
           "input " + std::to_string(input) + " has rank " + std::to_string(rank) +
               "; supported: 1-D (N, C, W), 2-D (N, C, H, W) and 3-D (N, C, D, H, W) windows");
  return static_cast<size_t>(rank - 2);
}

// 1-D windows become 2-D ones over a unit height: lift (N, C, W) to (N, C, 1, W) and the window.
Expr lift(const Expr& x) {
  return relay::expandDims(x, 2);
}

void liftWindow(Window& w) {
  w.kernel.insert(w.kernel.begin(), 1);
  w.strides.insert(w.strides.begin(), 1);
  w.dilations.insert(w.dilations.begin(), 1);
  w.pads = {0, w.pads[0], 0, w.pads[1]};
}

Expr unlift(const Expr& x) {
  return relay::squeeze(x, std::vector<int64_t>{2});
}

// The convolution of `data` by `weight` over window `w` (ONNX conventions), plus the node's
// bias (input 2) when given: Conv's lowering, shared by ConvTranspose.
Expr convolve(NodeContext& n, Expr data, Expr weight, Window w, int64_t groups, int64_t channels) {
  Expr y = convolveNd(n, std::move(data), std::move(weight), std::move(w), groups, channels);
  return n.hasInput(2) ? relay::nn::biasAdd(y, n.input(2), {.axis = 1}) : y;
}

void conv(NodeContext& n) {
  const ConvGeometry g = convGeometryOf(n, 0, 1);
  n.setOutput(0, convolve(n, n.input(0), n.input(1), g.window, g.groups, n.inputShape(1)[0]));
}

// ConvTranspose. A 2-D one whose pads are not negative is nn.conv2d_transpose (as TVM imports it;
// Legalize later makes it the forward convolution below, which the conv2d kernels run). Other
// ranks, and pads that output_shape made negative, become that convolution here: the input
// dilated by the strides (zeros between elements), padded by (k - 1) * dilation less the pads
// (plus output_padding at the end; a negative amount crops), convolved at stride 1 with the
// weight's in/out channels swapped within each group and its window flipped. Exact; the zeros
// cost stride^2 more MACs than a dedicated kernel would (stride^3 for 3-D windows).
void convTranspose(NodeContext& n) {
  const size_t s = spatialRank(n, 0);
  const std::vector<int64_t> in = n.inputShape(0), wshape = n.inputShape(1);
  if (wshape.size() != in.size()) n.fail("onnx_shape", "the weight's rank differs from the data's");
  const int64_t groups = n.attrInt("group", 1);
  if (groups < 1 || in[1] % groups != 0 || wshape[0] != in[1])
    n.fail("onnx_shape",
           "the weight must be (C_in, C_out / group, k...) with C_in = " + std::to_string(in[1]));
  const std::vector<int64_t> kernel(wshape.begin() + 2, wshape.end());
  if (n.attrInts("kernel_shape").value_or(kernel) != kernel)
    n.fail("onnx_attr", "kernel_shape does not match the weight's spatial extents");
  const std::vector<int64_t> strides = listAttr(n, "strides", s, 1, 1);
  const std::vector<int64_t> dilations = listAttr(n, "dilations", s, 1, 1);
  std::vector<int64_t> pads = listAttr(n, "pads", 2 * s, 0, 0);
  const std::vector<int64_t> outPad = listAttr(n, "output_padding", s, 0, 0);
  const std::string autoPad = n.attrString("auto_pad", "NOTSET");
  std::optional<std::vector<int64_t>> outShape = n.attrInts("output_shape");
  if (outShape && outShape->size() == s + 2)
    outShape = std::vector<int64_t>(outShape->begin() + 2, outShape->end());
  if (!outShape && (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER")) {
    outShape.emplace();
    for (size_t k = 0; k < s; ++k) outShape->push_back(in[2 + k] * strides[k]);
  }
  if (outShape) {  // the pads that give that output, the odd one at the end for SAME_UPPER
    if (outShape->size() != s)
      n.fail("onnx_attr", "output_shape needs one extent per spatial axis");
    for (size_t k = 0; k < s; ++k) {
      const int64_t total = strides[k] * (in[2 + k] - 1) + outPad[k] +
                            (kernel[k] - 1) * dilations[k] + 1 - (*outShape)[k];
      // Python's floor division, as the reference: a negative total (output_shape larger than
      // the natural one) pads the end.
      const int64_t half = total >= 0 ? total / 2 : -((-total + 1) / 2);
      pads[k] = autoPad == "SAME_UPPER" ? half : total - half;
      pads[k + s] = total - pads[k];
    }
  }
  const int64_t cin = in[1], coutPerGroup = wshape[1], cinPerGroup = cin / groups;
  const bool pairs =
      s == 2 && std::all_of(pads.begin(), pads.end(), [](int64_t p) { return p >= 0; });
  if (pairs && outPad[0] < std::max(strides[0], dilations[0]) &&
      outPad[1] < std::max(strides[1], dilations[1])) {
    relay::Conv2DTransposeAttrs a;
    a.channels = groups * coutPerGroup;
    a.kernelSize = kernel;
    a.strides = strides;
    a.outputPadding = outPad;
    a.padding = pads;
    a.dilation = dilations;
    a.groups = groups;
    Expr y = relay::nn::conv2dTranspose(n.input(0), n.input(1), std::move(a));
    n.setOutput(0, n.hasInput(2) ? relay::nn::biasAdd(y, n.input(2), {.axis = 1}) : y);
    return;
  }
  // The forward-conv weight (C_out, C_in / group, k...), window flipped.
  std::vector<int64_t> grouped = {groups, cinPerGroup, coutPerGroup};
  grouped.insert(grouped.end(), kernel.begin(), kernel.end());
  std::vector<int64_t> swap = {0, 2, 1};
  for (size_t k = 0; k < s; ++k) swap.push_back(static_cast<int64_t>(3 + k));
  std::vector<int64_t> forward = {groups * coutPerGroup, cinPerGroup};
  forward.insert(forward.end(), kernel.begin(), kernel.end());
  Expr weight =
      relay::reshape(relay::transpose(relay::reshape(n.input(1), grouped), swap), forward);
  for (size_t k = 0; k < s; ++k) {
    NDArray reversed = NDArray::empty({kernel[k]}, DataType::int64());
    for (int64_t i = 0; i < kernel[k]; ++i) reversed.setInt(i, kernel[k] - 1 - i);
    weight =
        relay::take(weight, relay::makeConstant(reversed), static_cast<int64_t>(2 + k), "clip");
  }
  weight = n.fold(weight);
  // Dilate by the strides: (.., H, ..) -> (.., H, 1, ..) padded to (.., H, stride, ..), folded.
  Expr data = n.input(0);
  std::vector<int64_t> dilatedShape(in.begin(), in.begin() + 2);
  for (size_t k = 0; k < s; ++k) dilatedShape.push_back((in[2 + k] - 1) * strides[k] + 1);
  if (std::any_of(strides.begin(), strides.end(), [](int64_t v) { return v > 1; })) {
    std::vector<int64_t> unit(in.begin(), in.begin() + 2), padded(in.begin(), in.begin() + 2);
    std::vector<std::vector<int64_t>> width = {{0, 0}, {0, 0}};
    for (size_t k = 0; k < s; ++k) {
      unit.insert(unit.end(), {in[2 + k], 1});
      padded.insert(padded.end(), {in[2 + k] * strides[k]});
      width.push_back({0, 0});
      width.push_back({0, strides[k] - 1});
    }
    data = relay::nn::pad(relay::reshape(data, unit), scalarConstant(0, n.inputDtype(0)),
                          {.padWidth = width});
    data = relay::reshape(data, padded);
    std::vector<int64_t> begin(s + 2, 0), end = dilatedShape;
    data = relay::stridedSlice(data, begin, end);
  }
  // Full padding less the pads; what is negative is cropped instead.
  std::vector<int64_t> before(s), after(s), cropBegin(s + 2, 0), cropEnd = dilatedShape;
  bool crop = false;
  for (size_t k = 0; k < s; ++k) {
    const int64_t span = (kernel[k] - 1) * dilations[k];
    before[k] = span - pads[k];
    after[k] = span - pads[k + s] + outPad[k];
    if (before[k] < 0) cropBegin[2 + k] = -before[k], before[k] = 0, crop = true;
    if (after[k] < 0) cropEnd[2 + k] += after[k], after[k] = 0, crop = true;
  }
  if (crop) data = relay::stridedSlice(data, cropBegin, cropEnd);
  Window w{.kernel = kernel,
           .strides = std::vector<int64_t>(s, 1),
           .dilations = dilations,
           .pads = before};
  w.pads.insert(w.pads.end(), after.begin(), after.end());
  n.setOutput(0, convolve(n, data, weight, w, groups, groups * coutPerGroup));
}

template <bool kMax>
void pool(NodeContext& n) {
  const size_t s = spatialRank(n, 0);
  const std::vector<int64_t> in = n.inputShapeDynamicBatch(0);
  std::optional<std::vector<int64_t>> kernel = n.attrInts("kernel_shape");
  if (!kernel) n.fail("onnx_attr", "attribute 'kernel_shape' is required");
  Window w = windowOf(n, std::vector<int64_t>(in.begin() + 2, in.end()), *kernel);
  if constexpr (kMax) {
    n.requireOutputsAtMost(2, "MaxPool has two outputs");
    const int64_t storageOrder = n.attrInt("storage_order", 0);
    if (storageOrder != 0 && storageOrder != 1)
      n.badAttr("storage_order", std::to_string(storageOrder), "0, 1");
    if (n.outputUsed(1) && s == 3)
      n.fail("onnx_unsupported_output", "MaxPool's Indices output of a 3-D pool is not supported");
  }
  const PoolMode mode{.isMax = kMax,
                      .ceilMode = n.attrInt("ceil_mode", 0) != 0,
                      .countIncludePad = !kMax && n.attrInt("count_include_pad", 0) != 0};
  if (s == 3) {
    n.setOutput(0, pool3dOf(n, n.input(0), w, mode));
    return;
  }
  Expr data = n.input(0);
  if (s == 1) {
    data = lift(data);
    liftWindow(w);
  }
  const Expr y = pool2dOf(data, w, mode);
  n.setOutput(0, s == 1 ? unlift(y) : y);
  if (kMax && n.outputUsed(1)) {
    const Expr indices = maxPoolIndices(n, data, y, w.kernel, w.strides, w.dilations,
                                        {w.pads[0], w.pads[1], w.pads[2], w.pads[3]},
                                        n.attrInt("storage_order", 0) == 1);
    n.setOutput(1, s == 1 ? unlift(indices) : indices);
  }
}

// LpPool: (sum over the window of |x|^p)^(1/p). The window sum is a depthwise convolution by
// ones: exact, with dilations and 3-D windows for free. ceil_mode (opset 18) pads the end with
// zeros, which add nothing to a sum, until the last window of ONNX 1.12's formula fits.
void lpPool(NodeContext& n) {
  const size_t s = spatialRank(n, 0);
  const std::vector<int64_t> in = n.inputShape(0);
  const DataType dtype = n.inputDtype(0);
  if (!dtype.isFloat()) n.fail("onnx_input", "the input must be a float tensor");
  std::optional<std::vector<int64_t>> kernel = n.attrInts("kernel_shape");
  if (!kernel) n.fail("onnx_attr", "attribute 'kernel_shape' is required");
  Window w = windowOf(n, std::vector<int64_t>(in.begin() + 2, in.end()), *kernel);
  const int64_t p = n.attrInt("p", 2);
  if (p < 1 || p > 64) n.badAttr("p", std::to_string(p), "values from 1 to 64");
  for (size_t k = 0; k < s && n.attrInt("ceil_mode", 0) != 0; ++k) {
    const int64_t total = in[2 + k] + w.pads[k] + w.pads[k + s];
    const int64_t span = (w.kernel[k] - 1) * w.dilations[k] + 1;
    if (total < span) continue;  // no window fits: the convolution's type relation says so
    const int64_t windows = (total - span + w.strides[k] - 1) / w.strides[k] + 1;
    w.pads[k + s] += (windows - 1) * w.strides[k] + span - total;
  }
  const Expr x = n.input(0);
  const Expr magnitude = p == 1   ? relay::abs(x)
                         : p == 2 ? relay::multiply(x, x)
                                  : relay::power(relay::abs(x), scalarConstant(p, dtype));
  std::vector<int64_t> wshape = {in[1], 1};
  wshape.insert(wshape.end(), w.kernel.begin(), w.kernel.end());
  const Expr ones = n.fold(relay::ones(wshape, dtype));
  const Expr sum = convolveNd(n, magnitude, ones, w, in[1], in[1]);
  n.setOutput(0, p == 1   ? sum
                 : p == 2 ? relay::sqrt(sum)
                          : relay::power(sum, scalarConstant(1.0 / static_cast<double>(p), dtype)));
}

// Global pools: the 2-D Relay op for NCHW, a keepdims reduction over the spatial axes otherwise.
template <bool kMax>
void globalPool(NodeContext& n) {
  const int64_t rank = n.inputRank(0);
  if (rank < 3)
    n.fail("onnx_shape", "the input must have rank >= 3 but has " + std::to_string(rank));
  Expr x = n.input(0);
  if (rank == 4) {
    n.setOutput(0, kMax ? relay::nn::globalMaxPool2d(x) : relay::nn::globalAvgPool2d(x));
    return;
  }
  std::vector<int64_t> axes;
  for (int64_t k = 2; k < rank; ++k) axes.push_back(k);
  relay::ReduceAttrs attrs{.axis = axes, .keepdims = true};
  n.setOutput(0, kMax ? relay::max(x, attrs) : relay::mean(x, attrs));
}

// Pad's pads over every axis (all begins, then all ends). Opset 18's optional axes input names
// the axes the pads cover (begins and ends of those, in that order); the others are not padded.
std::vector<int64_t> padsOf(NodeContext& n, int64_t rank) {
  std::vector<int64_t> pads;
  if (n.hasInput(1))
    pads = n.constantInts(1, "pads");
  else
    pads = n.attrInts("pads").value_or(std::vector<int64_t>{});
  if (!n.hasInput(3)) {
    if (static_cast<int64_t>(pads.size()) != 2 * rank)
      n.fail("onnx_input", "pads has " + std::to_string(pads.size()) + " values; rank " +
                               std::to_string(rank) + " needs " + std::to_string(2 * rank));
    return pads;
  }
  const std::vector<int64_t> axes = n.constantInts(3, "axes");
  const auto count = static_cast<int64_t>(axes.size());
  if (static_cast<int64_t>(pads.size()) != 2 * count)
    n.fail("onnx_input", "pads has " + std::to_string(pads.size()) + " values; " +
                             std::to_string(count) + " axes need " + std::to_string(2 * count));
  std::vector<int64_t> full(static_cast<size_t>(2 * rank), 0);
  std::vector<bool> seen(static_cast<size_t>(rank), false);
  for (int64_t i = 0; i < count; ++i) {
    const int64_t a = n.normalizeAxis(axes[i], rank, "axes entry");
    if (seen[a]) n.fail("onnx_input", "axes name axis " + std::to_string(a) + " twice");
    seen[a] = true;
    full[a] = pads[i];
    full[a + rank] = pads[i + count];
  }
  return full;
}

// Pad (opset 11+): pads, the optional constant value and (opset 18) axes are inputs (attributes
// before opset 11 are accepted too). Negative pads (cropping) are not supported.
void pad(NodeContext& n) {
  const int64_t rank = n.inputRank(0);
  const std::vector<int64_t> pads = padsOf(n, rank);
  std::vector<std::vector<int64_t>> width;
  for (int64_t k = 0; k < rank; ++k) {
    if (pads[k] < 0 || pads[k + rank] < 0)
      n.fail("onnx_unsupported_attr", "negative pads (cropping) are not supported");
    if (pads[k] > kMaxWindowValue || pads[k + rank] > kMaxWindowValue)
      n.fail("onnx_unsupported_attr", "pads larger than 2^30 are not supported");
    width.push_back({pads[k], pads[k + rank]});
  }
  const std::string mode = n.attrString("mode", "constant");
  if (mode != "constant" && mode != "edge" && mode != "reflect")
    n.badAttr("mode", mode, "constant, edge, reflect");
  Expr value = scalarConstant(n.attrFloat("value", 0), n.inputDtype(0));
  if (n.hasInput(2)) {
    value = n.input(2);
    if (!n.inputShape(2).empty() && n.inputShape(2) != std::vector<int64_t>{1})
      n.fail("onnx_input", "constant_value must be a scalar");
    if (!n.inputShape(2).empty()) value = relay::reshape(value, std::vector<int64_t>{});
  }
  n.setOutput(0, relay::nn::pad(n.input(0), value, {.padWidth = width, .padMode = mode}));
}

constexpr ConverterRow kRows[] = {
    {"AveragePool", pool<false>,
     "1-D, 2-D and 3-D; pads, auto_pad, strides, ceil_mode, count_include_pad"},
    {"Conv", conv, "1-D, 2-D and 3-D; group, pads, auto_pad, strides, dilations, bias"},
    {"ConvTranspose", convTranspose,
     "1-D, 2-D and 3-D; group, pads, auto_pad, strides, dilations, output_padding, output_shape"},
    {"GlobalAveragePool", globalPool<false>, ""},
    {"GlobalMaxPool", globalPool<true>, ""},
    {"LpPool", lpPool,
     "1-D, 2-D and 3-D; p, pads, auto_pad, strides; dilations and ceil_mode (opset 18)"},
    {"MaxPool", pool<true>,
     "1-D, 2-D and 3-D; pads, auto_pad, strides, dilations, ceil_mode; Indices (1-D, 2-D; "
     "storage_order 0, 1)"},
    {"Pad", pad, "constant, edge, reflect; non-negative constant pads; axes (opset 18)"},
};

}  // namespace

ConvGeometry convGeometryOf(NodeContext& n, size_t data, size_t weight) {
  spatialRank(n, data);  // checks for 1-D, 2-D or 3-D windows
  const std::vector<int64_t> in = n.inputShapeDynamicBatch(data);
  const std::vector<int64_t> wshape = n.inputShape(weight);
  if (wshape.size() != in.size())
    n.fail("onnx_shape", "the weight has rank " + std::to_string(wshape.size()) +
                             " but the data has rank " + std::to_string(in.size()));
  const std::vector<int64_t> kernelFromWeight(wshape.begin() + 2, wshape.end());
  std::vector<int64_t> kernel = n.attrInts("kernel_shape").value_or(kernelFromWeight);
  if (kernel != kernelFromWeight)
    n.fail("onnx_attr", "kernel_shape does not match the weight's spatial extents");
  ConvGeometry g{.window = windowOf(n, std::vector<int64_t>(in.begin() + 2, in.end()), kernel),
                 .groups = n.attrInt("group", 1)};
  if (g.groups < 1 || in[1] % g.groups != 0 || wshape[0] % g.groups != 0)
    n.badAttr("group", std::to_string(g.groups), "a divisor of the input and output channels");
  return g;
}

Expr convolveNd(NodeContext& n, Expr data, Expr weight, Window w, int64_t groups, int64_t channels,
                DataType outDtype) {
  if (w.kernel.size() == 3) return conv3dOf(n, data, weight, w, groups, outDtype);
  const bool oneD = w.kernel.size() == 1;
  if (oneD) {
    data = lift(data);
    weight = n.fold(lift(weight));
    liftWindow(w);
  }
  Expr y = relay::nn::conv2d(data, weight,
                             {.strides = w.strides,
                              .padding = {w.pads[0], w.pads[1], w.pads[2], w.pads[3]},
                              .dilation = w.dilations,
                              .groups = groups,
                              .channels = channels,
                              .kernelSize = std::vector<int64_t>{w.kernel[0], w.kernel[1]},
                              .outDtype = outDtype});
  return oneD ? unlift(y) : y;
}

Expr pool2dOf(Expr data, const Window& w, PoolMode mode) {
  const std::vector<int64_t> padding = {w.pads[0], w.pads[1], w.pads[2], w.pads[3]};
  if (mode.isMax)
    return relay::nn::maxPool2d(data, {.poolSize = w.kernel,
                                       .strides = w.strides,
                                       .dilation = w.dilations,
                                       .padding = padding,
                                       .ceilMode = mode.ceilMode});
  return relay::nn::avgPool2d(data, {.poolSize = w.kernel,
                                     .strides = w.strides,
                                     .dilation = w.dilations,
                                     .padding = padding,
                                     .ceilMode = mode.ceilMode,
                                     .countIncludePad = mode.countIncludePad});
}

std::span<const ConverterRow> nnConverters() {
  return kRows;
}

}  // namespace tessera::frontend::onnx
