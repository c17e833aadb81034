// Computes of the nn.* ops. conv2d dispatches on layouts: NCHW/OIHW, NHWC/HWIO and
// NCHW[x]c/OIHW[x]i[y]o have direct computes; any other convertible layout is re-blocked to
// NCHW/OIHW around the NCHW compute.
#include <regex>

#include "ir/layout.h"
#include "relay/op/nn.h"
#include "relay/op/nn_conv3d.h"
#include "relay/op/nn_conv_transpose.h"
#include "relay/strategy/strategy_util.h"
#include "support/check.h"
#include "support/diagnostic.h"
#include "topi/elemwise.h"
#include "topi/nn.h"
#include "topi/transform.h"

namespace tessera::relay::strategy {
namespace {

using te::Tensor;
using Tensors = std::vector<Tensor>;
using nn::AdaptivePool2DAttrs;
using nn::AvgPool2DAttrs;
using nn::BatchMatmulAttrs;
using nn::BatchNormAttrs;
using nn::BiasAddAttrs;
using nn::Conv2DAttrs;
using nn::GlobalPool2DAttrs;
using nn::LayerNormAttrs;
using nn::LeakyReluAttrs;
using nn::MaxPool2DAttrs;
using nn::PadAttrs;
using nn::SoftmaxAttrs;

// `shape` (in layout `from`) spelled in layout `to`: each primal extent is rebuilt from its outer
// and inner parts, then split by the target's factor.
std::vector<tir::PrimExpr> convertedShape(const std::vector<int64_t>& shape, const Layout& from,
                                          const Layout& to) {
  int64_t primal[26];
  for (int64_t& p : primal) p = 1;
  for (size_t k = 0; k < from.axes().size(); ++k) {
    const LayoutAxis& a = from.axes()[k];
    primal[a.isPrimal() ? a.letter - 'A' : a.letter - 'a'] *= shape[k];
  }
  std::vector<tir::PrimExpr> out;
  for (const LayoutAxis& a : to.axes()) {
    if (!a.isPrimal()) {
      out.push_back(tir::intImm(a.factor));
      continue;
    }
    const int64_t factor = to.subFactor(a.letter);
    out.push_back(tir::intImm(primal[a.letter - 'A'] / (factor > 0 ? factor : 1)));
  }
  return out;
}

Tensor relayout(const Tensor& x, const std::string& from, const std::string& to) {
  if (from == to) return x;
  const Layout src = *Layout::parse(from), dst = *Layout::parse(to);
  return topi::layoutTransform(x, from, to,
                               convertedShape(topi::constShape(x, "conv2d"), src, dst));
}

Tensors conv2dCompute(const Attrs& attrs, const Tensors& in, const Type& outType) {
  const auto& a = attrsOf<Conv2DAttrs>(attrs);
  const topi::Conv2DParams p = convParams(a, tensorTypeOf(outType).dtype);
  const std::string outLayout = a.outLayout.empty() ? a.dataLayout : a.outLayout;
  const Tensor& data = in.at(0);
  const Tensor& weight = in.at(1);
  if (a.dataLayout == "NCHW" && a.kernelLayout == "OIHW") {
    if (topi::conv2d1x1AsMatmul(topi::constShape(data, "conv2d"),
                                topi::constShape(weight, "conv2d"), p))
      return {relayout(topi::conv2d1x1Nchw(data, weight, p.outDtype), "NCHW", outLayout)};
    return {relayout(topi::conv2dNchw(data, weight, p), "NCHW", outLayout)};
  }
  if (a.dataLayout == "NHWC" && a.kernelLayout == "HWIO")
    return {relayout(topi::conv2dNhwc(data, weight, p), "NHWC", outLayout)};
  static const std::regex nchwc("NCHW([0-9]+)c"), oihwio("OIHW([0-9]+)i([0-9]+)o");
  std::smatch dm, km;
  if (a.groups == 1 && std::regex_match(a.dataLayout, dm, nchwc) &&
      std::regex_match(a.kernelLayout, km, oihwio) && dm[1] == km[1]) {
    const std::string produced = "NCHW" + km[2].str() + "c";
    return {relayout(topi::conv2dNCHWc(data, weight, p), produced, outLayout)};
  }
  // Depthwise in blocks (x86's AlterOpLayout makes these): OIHW1i[x]o, one output per channel.
  if (std::regex_match(a.dataLayout, dm, nchwc) && std::regex_match(a.kernelLayout, km, oihwio) &&
      km[1] == "1" && dm[1] == km[2]) {
    const std::vector<int64_t> ds = topi::constShape(data, "conv2d");
    const std::vector<int64_t> ws = topi::constShape(weight, "conv2d");
    if (ds.size() == 5 && ws.size() == 6 && a.groups == ds[1] * ds[4] && ws[0] == ds[1])
      return {relayout(topi::depthwiseConv2dNCHWc(data, weight, p), a.dataLayout, outLayout)};
  }
  Tensor out = topi::conv2dNchw(relayout(data, a.dataLayout, "NCHW"),
                                relayout(weight, a.kernelLayout, "OIHW"), p);
  return {relayout(out, "NCHW", outLayout)};
}

template <typename A>
topi::Pool2DParams poolParams(const A& a) {
  topi::Pool2DParams p;
  const std::vector<int64_t> k = nn::detail::pairFromScalar(a.poolSize);
  const std::vector<int64_t> s = nn::detail::pairFromScalar(a.strides);
  const std::vector<int64_t> d = nn::detail::pairFromScalar(a.dilation);
  p.poolSize = {k[0], k[1]};
  p.strides = {s[0], s[1]};
  p.dilation = {d[0], d[1]};
  p.padding = topi::padTuple(a.padding);
  p.ceilMode = a.ceilMode;
  p.layout = a.layout;
  return p;
}

void setUnary(const std::string& op,
              std::function<Tensor(const Attrs&, const Tensor&, const Type&)> f) {
  setCompute(op, [f](const Attrs& attrs, const Tensors& in, const Type& outType) {
    return Tensors{f(attrs, in.at(0), outType)};
  });
}

void registerPools() {
  setUnary("nn.max_pool2d", [](const Attrs& attrs, const Tensor& x, const Type&) {
    return topi::maxPool2d(x, poolParams(attrsOf<MaxPool2DAttrs>(attrs)));
  });
  setUnary("nn.avg_pool2d", [](const Attrs& attrs, const Tensor& x, const Type&) {
    const auto& a = attrsOf<AvgPool2DAttrs>(attrs);
    topi::Pool2DParams p = poolParams(a);
    p.countIncludePad = a.countIncludePad;
    return topi::avgPool2d(x, p);
  });
  for (bool isMax : {true, false}) {
    setUnary(isMax ? "nn.global_max_pool2d" : "nn.global_avg_pool2d",
             [isMax](const Attrs& attrs, const Tensor& x, const Type&) {
               return topi::globalPool2d(x, isMax, attrsOf<GlobalPool2DAttrs>(attrs).layout);
             });
  }
  setUnary("nn.adaptive_avg_pool2d", [](const Attrs& attrs, const Tensor& x, const Type& outType) {
    const auto& a = attrsOf<AdaptivePool2DAttrs>(attrs);
    const Layout layout = *Layout::parse(a.layout);
    const std::vector<tir::PrimExpr> out = staticShapeOf(outType, "nn.adaptive_avg_pool2d");
    return topi::adaptiveAvgPool2d(
        x,
        {topi::constDim(out[static_cast<size_t>(layout.indexOf('H'))], "adaptive_avg_pool2d"),
         topi::constDim(out[static_cast<size_t>(layout.indexOf('W'))], "adaptive_avg_pool2d")},
        a.layout);
  });
  setUnary("nn.adaptive_avg_pool3d", [](const Attrs& attrs, const Tensor& x, const Type& outType) {
    const auto& a = attrsOf<AdaptivePool3DAttrs>(attrs);
    const Layout layout = *Layout::parse(a.layout);
    const std::vector<tir::PrimExpr> out = staticShapeOf(outType, "nn.adaptive_avg_pool3d");
    auto extent = [&](char axis) {
      return topi::constDim(out[static_cast<size_t>(layout.indexOf(axis))], "adaptive_avg_pool3d");
    };
    return topi::adaptiveAvgPool3d(x, {extent('D'), extent('H'), extent('W')}, a.layout);
  });
}

}  // namespace

topi::Conv2DParams convParams(const Conv2DAttrs& a, DataType outDtype) {
  topi::Conv2DParams p;
  const std::vector<int64_t> s = nn::detail::pairFromScalar(a.strides);
  const std::vector<int64_t> d = nn::detail::pairFromScalar(a.dilation);
  p.strides = {s[0], s[1]};
  p.dilation = {d[0], d[1]};
  p.padding = topi::padTuple(a.padding);
  p.groups = a.groups;
  p.outDtype = outDtype;
  return p;
}

Tensors conv2dTransposeCompute(const Attrs& attrs, const Tensors& in, const Type& outType) {
  const auto& a = attrsOf<Conv2DTransposeAttrs>(attrs);
  topi::Conv2DParams p;
  p.strides = {a.strides[0], a.strides[1]};
  p.padding = topi::padTuple(a.padding);
  p.dilation = {a.dilation[0], a.dilation[1]};
  p.groups = a.groups;
  p.outDtype = tensorTypeOf(outType).dtype;
  return {
      topi::conv2dTransposeNchw(in.at(0), in.at(1), p, {a.outputPadding[0], a.outputPadding[1]})};
}

Tensors conv3dCompute(const Attrs& attrs, const Tensors& in, const Type& outType) {
  const auto& a = attrsOf<Conv3DAttrs>(attrs);
  topi::Conv3DParams p;
  p.strides = {a.strides[0], a.strides[1], a.strides[2]};
  p.padding = *nn::expandPadding3d(a.padding);
  p.dilation = {a.dilation[0], a.dilation[1], a.dilation[2]};
  p.groups = a.groups;
  p.outDtype = tensorTypeOf(outType).dtype;
  return {topi::conv3dNcdhw(in.at(0), in.at(1), p)};
}

void registerNnComputes() {
  setCompute("nn.conv2d", conv2dCompute);
  setCompute("nn.conv2d_transpose", conv2dTransposeCompute);
  setCompute("nn.conv3d", conv3dCompute);
  setCompute("nn.dense", [](const Attrs&, const Tensors& in, const Type& outType) {
    return Tensors{topi::dense(in.at(0), in.at(1), tensorTypeOf(outType).dtype)};
  });
  setCompute("nn.batch_matmul", [](const Attrs& attrs, const Tensors& in, const Type& outType) {
    const auto& a = attrsOf<BatchMatmulAttrs>(attrs);
    return Tensors{topi::batchMatmul(in.at(0), in.at(1), a.transposeA, a.transposeB,
                                     tensorTypeOf(outType).dtype)};
  });
  // Inference batch_norm: the moving statistics pass through as outputs 1 and 2.
  setCompute("nn.batch_norm", [](const Attrs& attrs, const Tensors& in, const Type&) {
    const auto& a = attrsOf<BatchNormAttrs>(attrs);
    return Tensors{topi::batchNormInference(in.at(0), in.at(1), in.at(2), in.at(3), in.at(4),
                                            a.axis, a.epsilon, a.center, a.scale),
                   in.at(3), in.at(4)};
  });
  setCompute("nn.layer_norm", [](const Attrs& attrs, const Tensors& in, const Type&) {
    const auto& a = attrsOf<LayerNormAttrs>(attrs);
    return Tensors{
        topi::layerNorm(in.at(0), in.at(1), in.at(2), a.axis, a.epsilon, a.center, a.scale)};
  });
  setCompute("nn.bias_add", [](const Attrs& attrs, const Tensors& in, const Type&) {
    return Tensors{topi::biasAdd(in.at(0), in.at(1), attrsOf<BiasAddAttrs>(attrs).axis)};
  });
  // Inference dropout keeps everything: the data, and a mask of ones.
  setCompute("nn.dropout", [](const Attrs&, const Tensors& in, const Type& outType) {
    const Type& mask = tupleField(outType, 1);
    return Tensors{in.at(0), topi::fullConst(staticShapeOf(mask, "nn.dropout"),
                                             tensorTypeOf(mask).dtype, 1.0, "T_dropout_mask")};
  });
  setUnary("nn.relu", [](const Attrs&, const Tensor& x, const Type&) { return topi::relu(x); });
  setUnary("nn.leaky_relu", [](const Attrs& attrs, const Tensor& x, const Type&) {
    return topi::leakyRelu(x, attrsOf<LeakyReluAttrs>(attrs).alpha);
  });
  setUnary("nn.softmax", [](const Attrs& attrs, const Tensor& x, const Type&) {
    return topi::softmax(x, attrsOf<SoftmaxAttrs>(attrs).axis);
  });
  setUnary("nn.log_softmax", [](const Attrs& attrs, const Tensor& x, const Type&) {
    return topi::logSoftmax(x, attrsOf<SoftmaxAttrs>(attrs).axis);
  });
  setCompute("nn.pad", [](const Attrs& attrs, const Tensors& in, const Type&) {
    const auto& a = attrsOf<PadAttrs>(attrs);
    std::vector<std::array<int64_t, 2>> widths;
    for (const auto& w : a.padWidth) widths.push_back({w.at(0), w.at(1)});
    return Tensors{topi::padMode(in.at(0), widths, in.at(1), a.padMode)};
  });
  registerPools();
}

}  // namespace tessera::relay::strategy
