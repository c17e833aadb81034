// Op generators for nn.* ops: conv2d (groups, strides, padding, dilation, with the scale patterns
// FoldScaleAxis folds and the sibling branches CombineParallelConv2D merges), dense, batch_matmul,
// pools, softmax, layer_norm, batch_norm, bias_add, dropout, batch_flatten, pad, leaky_relu.
// All of them round in evaluation order, so their results are inexact.
#include <vector>

#include "graph_gen.h"
#include "relay/builder.h"

namespace tessera::fuzz {
namespace {

using relay::Expr;

const DataType kF32 = DataType::float32();

bool isImage(const GenValue& v) {
  return isFloat(v) && v.shape.size() == 4;
}

GenValue image(GraphGen& g) {
  return g.pickOr(isImage, [&] {
    return g.input(
        {g.rng().range(1, 2), g.rng().range(1, 6), g.rng().range(1, 7), g.rng().range(1, 7)}, kF32);
  });
}

// A positive per-channel scale of shape (c, 1, 1), as FoldScaleAxis expects.
Expr channelScale(GraphGen& g, int64_t c) {
  return g.constant({c, 1, 1}, kF32, 0.5, 1.5);
}

// Conv2d attributes that fit data of extent h x w: the dilated kernel never exceeds the padded
// input (conv2d_c6).
struct ConvShape {
  int64_t kh, kw, sh, sw, dh, dw;
  std::vector<int64_t> padding;  // 1, 2 or 4 values, as the builder accepts them
  int64_t pt, pl, pb, pr;
};

ConvShape convShape(GraphGen& g, int64_t h, int64_t w) {
  ConvShape s{};
  s.kh = g.rng().range(1, 3);
  s.kw = g.rng().range(1, 3);
  s.sh = g.rng().range(1, 2);
  s.sw = g.rng().range(1, 2);
  s.dh = g.rng().chance(20) ? 2 : 1;
  s.dw = g.rng().chance(20) ? 2 : 1;
  switch (g.rng().below(3)) {
    case 0:
      s.pt = s.pl = s.pb = s.pr = g.rng().range(0, 1);
      s.padding = {s.pt};
      break;
    case 1:
      s.pt = s.pb = g.rng().range(0, 2);
      s.pl = s.pr = g.rng().range(0, 2);
      s.padding = {s.pt, s.pl};
      break;
    default:
      s.pt = g.rng().range(0, 2), s.pl = g.rng().range(0, 2);
      s.pb = g.rng().range(0, 2), s.pr = g.rng().range(0, 2);
      s.padding = {s.pt, s.pl, s.pb, s.pr};
  }
  if ((s.kh - 1) * s.dh + 1 > h + s.pt + s.pb) s.kh = 1, s.dh = 1;
  if ((s.kw - 1) * s.dw + 1 > w + s.pl + s.pr) s.kw = 1, s.dw = 1;
  return s;
}

relay::Conv2DAttrs convAttrs(GraphGen& g, const ConvShape& s, int64_t groups, int64_t channels) {
  relay::Conv2DAttrs attrs;
  attrs.strides = {s.sh, s.sw};
  attrs.padding = s.padding;
  attrs.dilation = {s.dh, s.dw};
  attrs.groups = groups;
  if (g.rng().chance(50)) attrs.channels = channels;
  if (g.rng().chance(50)) attrs.kernelSize = std::vector<int64_t>{s.kh, s.kw};
  return attrs;
}

bool conv2d(GraphGen& g) {
  const GenValue x = image(g);
  const int64_t c = x.shape[1];
  int64_t groups = 1;
  if (g.rng().chance(20)) groups = c;  // depthwise
  if (g.rng().chance(15)) {
    std::vector<int64_t> ds;
    for (int64_t d = 1; d <= c; ++d)
      if (c % d == 0) ds.push_back(d);
    groups = ds[g.rng().below(static_cast<uint32_t>(ds.size()))];
  }
  const int64_t out = groups * g.rng().range(1, groups > 2 ? 2 : 4);
  const ConvShape s = convShape(g, x.shape[2], x.shape[3]);
  Expr data = x.expr;
  // ForwardFoldScaleAxis: a positive channel scale (through relu) in front of the convolution.
  if (groups == 1 && g.rng().chance(20))
    data = relay::nn::relu(relay::multiply(data, channelScale(g, c)));
  const Expr w = g.weight({out, c / groups, s.kh, s.kw}, kF32, -0.5, 0.5);
  Expr y = relay::nn::conv2d(data, w, convAttrs(g, s, groups, out));
  // BackwardFoldScaleAxis: a channel scale (and bias) after it.
  if (g.rng().chance(25)) y = relay::multiply(y, channelScale(g, out));
  if (g.rng().chance(20)) y = relay::add(y, g.constant({out, 1, 1}, kF32));
  g.push(y, false);
  return true;
}

// Three or more sibling convolutions of one input, as CombineParallelConv2D merges them.
bool parallelConv2d(GraphGen& g) {
  const GenValue x = image(g);
  const ConvShape s = convShape(g, x.shape[2], x.shape[3]);
  const int64_t branches = g.rng().range(3, 4);
  std::vector<Expr> outs;
  for (int64_t i = 0; i < branches; ++i) {
    const int64_t out = g.rng().range(1, 4);
    const Expr w = g.constant({out, x.shape[1], s.kh, s.kw}, kF32, -0.5, 0.5);
    outs.push_back(relay::nn::conv2d(x.expr, w, convAttrs(g, s, 1, out)));
  }
  if (g.rng().chance(50)) {
    g.push(relay::concatenate(outs, 1), false);
    return true;
  }
  for (const Expr& o : outs) g.push(g.rng().chance(50) ? relay::nn::relu(o) : o, false);
  return true;
}

bool dense(GraphGen& g) {
  const GenValue x = g.pickOr(
      [](const GenValue& v) { return isFloat(v) && !v.shape.empty() && v.shape.size() <= 3; },
      [&] { return g.input({g.rng().range(1, 3), g.rng().range(1, 8)}, kF32); });
  const int64_t k = x.shape.back();
  const int64_t branches = x.shape.size() == 2 && g.rng().chance(20) ? 3 : 1;
  const int64_t units = g.rng().range(1, 6);
  // With three branches of one weight shape, CombineParallelDense merges them into batch_matmul.
  for (int64_t i = 0; i < branches; ++i) {
    relay::DenseAttrs attrs;
    if (g.rng().chance(50)) attrs.units = units;
    const Expr w = branches > 1 ? g.constant({units, k}, kF32) : g.weight({units, k}, kF32);
    g.push(relay::nn::dense(x.expr, w, attrs), false);
  }
  return true;
}

bool batchMatmul(GraphGen& g) {
  const GenValue a = g.pickOr(
      [](const GenValue& v) { return isFloat(v) && v.shape.size() == 3; },
      [&] {
        return g.input({g.rng().range(1, 3), g.rng().range(1, 4), g.rng().range(1, 5)}, kF32);
      });
  const bool transA = g.rng().chance(30);
  const bool transB = g.rng().chance(60);
  const int64_t k = transA ? a.shape[1] : a.shape[2];
  const int64_t n = g.rng().range(1, 4);
  const int64_t batch = g.rng().chance(25) ? 1 : a.shape[0];
  const std::vector<int64_t> bShape =
      transB ? std::vector<int64_t>{batch, n, k} : std::vector<int64_t>{batch, k, n};
  g.push(
      relay::nn::batchMatmul(a.expr, g.weight(bShape, kF32), DataType::voidType(), transA, transB),
      false);
  return true;
}

// Pool attributes that fit: padding below the window (so no window is all padding, except
// where ceil_mode adds a last partial window, which is worth testing).
template <typename Attrs>
Attrs poolAttrs(GraphGen& g, int64_t h, int64_t w) {
  Attrs attrs;
  const int64_t ph = g.rng().range(1, 3), pw = g.rng().range(1, 3);
  const int64_t dh = g.rng().chance(15) ? 2 : 1, dw = g.rng().chance(15) ? 2 : 1;
  std::vector<int64_t> pad = {g.rng().range(0, ph - 1), g.rng().range(0, pw - 1),
                              g.rng().range(0, ph - 1), g.rng().range(0, pw - 1)};
  attrs.poolSize = {ph, pw};
  attrs.strides = {g.rng().range(1, 2), g.rng().range(1, 2)};
  attrs.dilation = {dh, dw};
  attrs.ceilMode = g.rng().chance(25);
  if ((ph - 1) * dh + 1 > h + pad[0] + pad[2]) attrs.poolSize[0] = 1, attrs.dilation[0] = 1;
  if ((pw - 1) * dw + 1 > w + pad[1] + pad[3]) attrs.poolSize[1] = 1, attrs.dilation[1] = 1;
  if (attrs.poolSize[0] == 1) pad[0] = pad[2] = 0;
  if (attrs.poolSize[1] == 1) pad[1] = pad[3] = 0;
  attrs.padding = pad;
  return attrs;
}

bool pool2d(GraphGen& g) {
  const GenValue x = image(g);
  const bool nhwc = g.rng().chance(15);
  const int64_t h = x.shape[nhwc ? 1 : 2], w = x.shape[nhwc ? 2 : 3];
  const std::string layout = nhwc ? "NHWC" : "NCHW";
  switch (g.rng().below(4)) {
    case 0: {
      auto attrs = poolAttrs<relay::MaxPool2DAttrs>(g, h, w);
      attrs.layout = layout;
      g.push(relay::nn::maxPool2d(x.expr, attrs), x.exact);
      return true;
    }
    case 1: {
      auto attrs = poolAttrs<relay::AvgPool2DAttrs>(g, h, w);
      attrs.layout = layout;
      attrs.countIncludePad = g.rng().chance(50);
      g.push(relay::nn::avgPool2d(x.expr, attrs), false);
      return true;
    }
    case 2:
      if (g.rng().chance(50))
        g.push(relay::nn::globalMaxPool2d(x.expr, {.layout = layout}), x.exact);
      else
        g.push(relay::nn::globalAvgPool2d(x.expr, {.layout = layout}), false);
      return true;
    default: {
      relay::AdaptivePool2DAttrs attrs;
      attrs.layout = layout;
      const uint32_t form = g.rng().below(3);
      if (form >= 1) attrs.outputSize.push_back(g.rng().range(1, h + 1));
      if (form == 2) attrs.outputSize.push_back(g.rng().range(1, w + 1));
      g.push(relay::nn::adaptiveAvgPool2d(x.expr, attrs), false);
      return true;
    }
  }
}

bool isFloatTensor(const GenValue& v) {
  return isFloat(v) && !v.shape.empty();
}

int64_t randomAxis(GraphGen& g, const GenValue& x) {
  const auto r = static_cast<int64_t>(x.shape.size());
  return g.rng().range(-r, r - 1);
}

int64_t extentAt(const GenValue& x, int64_t axis) {
  const auto r = static_cast<int64_t>(x.shape.size());
  return x.shape[static_cast<size_t>(axis < 0 ? axis + r : axis)];
}

bool softmax(GraphGen& g) {
  const std::optional<GenValue> x = g.pick(isFloatTensor);
  if (!x) return false;
  const relay::SoftmaxAttrs attrs{.axis = randomAxis(g, *x)};
  g.push(g.rng().chance(60) ? relay::nn::softmax(x->expr, attrs)
                            : relay::nn::logSoftmax(x->expr, attrs),
         false);
  return true;
}

bool norm(GraphGen& g) {
  static const double kEpsilons[] = {1e-5, 1e-3, 0.1};
  const std::optional<GenValue> x = g.pick(isFloatTensor);
  if (!x) return false;
  const int64_t axis = randomAxis(g, *x);
  const int64_t c = extentAt(*x, axis);
  const double eps = kEpsilons[g.rng().below(3)];
  const bool center = g.rng().chance(80), scale = g.rng().chance(80);
  const Expr gamma = g.weight({c}, kF32, 0.5, 1.5), beta = g.weight({c}, kF32);
  if (g.rng().chance(50)) {
    g.push(relay::nn::layerNorm(x->expr, gamma, beta,
                                {.axis = axis, .epsilon = eps, .center = center, .scale = scale}),
           false);
    return true;
  }
  // The moving variance stays a positive constant (a parameter could be negative).
  const Expr bn = relay::nn::batchNorm(
      x->expr, gamma, beta, g.weight({c}, kF32, -0.5, 0.5), g.constant({c}, kF32, 0.5, 1.5),
      {.axis = axis, .epsilon = eps, .center = center, .scale = scale});
  g.push(relay::tupleGetItem(bn, 0), false);
  if (g.rng().chance(15))
    g.push(relay::tupleGetItem(bn, static_cast<int>(g.rng().range(1, 2))), true);
  return true;
}

bool biasAddDropoutFlatten(GraphGen& g) {
  const std::optional<GenValue> x = g.pick(isFloatTensor);
  if (!x) return false;
  switch (g.rng().below(4)) {
    case 0: {
      const int64_t axis = randomAxis(g, *x);
      g.push(relay::nn::biasAdd(x->expr, g.weight({extentAt(*x, axis)}, kF32), {.axis = axis}),
             false);
      return true;
    }
    case 1:
      g.push(relay::nn::dropout(x->expr, {.rate = g.rng().chance(50) ? 0.5 : 0.1}), x->exact);
      return true;
    case 2:
      g.push(relay::nn::batchFlatten(x->expr), x->exact);
      return true;
    default: {
      static const double kAlphas[] = {0.01, 0.1, 0.25, 2.0};
      g.push(relay::nn::leakyRelu(x->expr, {.alpha = kAlphas[g.rng().below(4)]}), false);
      return true;
    }
  }
}

bool pad(GraphGen& g) {
  const std::optional<GenValue> x =
      g.pick([](const GenValue& v) { return !isBool(v) && !v.shape.empty(); });
  if (!x) return false;
  static const char* const kModes[] = {"constant", "constant", "edge", "reflect"};
  relay::PadAttrs attrs;
  attrs.padMode = kModes[g.rng().below(4)];
  for (int64_t d : x->shape) {
    // reflect needs more elements than the width on the axis (pad_c4).
    const int64_t most = attrs.padMode == "reflect" ? std::min<int64_t>(2, d - 1) : 2;
    attrs.padWidth.push_back({g.rng().range(0, most), g.rng().range(0, most)});
  }
  const DataType valueType = g.rng().chance(70) ? x->dtype : kF32;
  const Expr value = g.scalar(static_cast<double>(g.rng().range(-2, 2)), valueType);
  g.push(relay::nn::pad(x->expr, value, attrs), x->exact);
  return true;
}

const OpGenerator kGenerators[] = {
    {"conv2d", conv2d},
    {"conv2d", conv2d},
    {"parallel_conv2d", parallelConv2d},
    {"dense", dense},
    {"batch_matmul", batchMatmul},
    {"pool2d", pool2d},
    {"softmax", softmax},
    {"norm", norm},
    {"norm", norm},
    {"bias_add_dropout_flatten", biasAddDropoutFlatten},
    {"pad", pad},
};

}  // namespace

std::span<const OpGenerator> nnGenerators() {
  return kGenerators;
}

}  // namespace tessera::fuzz
