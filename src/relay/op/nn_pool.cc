// 2-D pooling (spec §3.3): nn.max_pool2d, nn.avg_pool2d, nn.global_avg_pool2d,
// nn.global_max_pool2d and nn.adaptive_avg_pool2d. Kernels work directly in any layout whose H
// and W axes are not split, by iterating over the output's coordinates.
#include <algorithm>
#include <cmath>
#include <limits>

#include "relay/op/nn.h"
#include "relay/op/op_common.h"
#include "relay/op/op_families.h"

namespace tessera::relay {

namespace nn {

namespace {

// TVM's Python normalisation: 4-value padding, pairs for the window, stride and dilation.
template <typename A>
A normalizePool(A attrs) {
  if (auto four = detail::expandPadding(attrs.padding))
    attrs.padding.assign(four->begin(), four->end());
  attrs.poolSize = detail::pairFromScalar(std::move(attrs.poolSize));
  attrs.strides = detail::pairFromScalar(std::move(attrs.strides));
  attrs.dilation = detail::pairFromScalar(std::move(attrs.dilation));
  return attrs;
}

}  // namespace

Expr maxPool2d(Expr data, MaxPool2DAttrs attrs) {
  return makeCall(opByName("nn.max_pool2d"), {std::move(data)},
                  makeAttrs(normalizePool(std::move(attrs))));
}

Expr avgPool2d(Expr data, AvgPool2DAttrs attrs) {
  return makeCall(opByName("nn.avg_pool2d"), {std::move(data)},
                  makeAttrs(normalizePool(std::move(attrs))));
}

Expr globalAvgPool2d(Expr data, GlobalPool2DAttrs attrs) {
  return makeCall(opByName("nn.global_avg_pool2d"), {std::move(data)}, makeAttrs(std::move(attrs)));
}

Expr globalMaxPool2d(Expr data, GlobalPool2DAttrs attrs) {
  return makeCall(opByName("nn.global_max_pool2d"), {std::move(data)}, makeAttrs(std::move(attrs)));
}

Expr adaptiveAvgPool2d(Expr data, AdaptivePool2DAttrs attrs) {
  return makeCall(opByName("nn.adaptive_avg_pool2d"), {std::move(data)},
                  makeAttrs(std::move(attrs)));
}

}  // namespace nn

namespace {

using nn::AdaptivePool2DAttrs;
using nn::AvgPool2DAttrs;
using nn::GlobalPool2DAttrs;
using nn::MaxPool2DAttrs;

// Positions of the H and W axes in a pooling layout.
struct HW {
  int h;
  int w;
};

// pool2d_c1: the layout parses, fits the data, has unsplit H and W; out_layout is empty or equal.
HW poolLayout(const std::string& text, const std::string& outLayout, const TensorTypeNode& data,
              const TypeReporter& r) {
  std::string why;
  std::optional<Layout> layout = Layout::parse(text, &why);
  if (!layout) r.fail("pool2d_c1", "layout: " + why);
  if (layout->indexOf('H') < 0 || layout->indexOf('W') < 0 || layout->subFactor('H') != 0 ||
      layout->subFactor('W') != 0)
    r.fail("pool2d_c1", "layout \"" + text + "\" must have H and W axes, neither of them split");
  if (!nn::detail::subAxesMatch(data.shape, *layout))
    r.fail("pool2d_c1",
           "data shape " + shapeToString(data.shape) + " does not fit layout \"" + text + "\"");
  // Pooling never changes the layout here; TVM uses out_layout only in layout passes.
  if (!outLayout.empty() && outLayout != text)
    r.fail("pool2d_c1", "out_layout \"" + outLayout + "\" differs from layout \"" + text + "\"");
  return HW{layout->indexOf('H'), layout->indexOf('W')};
}

bool isPair(const std::vector<int64_t>& v) {
  return v.size() == 2 && v[0] > 0 && v[1] > 0;
}

// TVM's Pool2DRel, shared by max and avg pooling (their attrs differ only in count_include_pad).
template <typename A>
std::optional<Type> pool2dRel(const TypeReporter& r) {
  const TensorTypeNode* data = r.tensorArg(0);
  if (!data) return std::nullopt;
  const A& a = r.attrs<A>();
  const HW hw = poolLayout(a.layout, a.outLayout, *data, r);
  auto str = [](const std::vector<int64_t>& v) { return toAttrValue(v).str(); };
  if (!isPair(a.poolSize) || !isPair(a.strides) || !isPair(a.dilation))
    r.fail("pool2d_c2", "pool_size, strides and dilation must be 2 positive values but are " +
                            str(a.poolSize) + ", " + str(a.strides) + ", " + str(a.dilation));
  const auto pads = nn::detail::expandPadding(a.padding);
  if (!pads || std::any_of(pads->begin(), pads->end(), [](int64_t p) { return p < 0; }))
    r.fail("pool2d_c2", "padding must be 1, 2 or 4 non-negative values but is " + str(a.padding));
  Shape out = data->shape;
  const int axes[2] = {hw.h, hw.w};
  for (int k = 0; k < 2; ++k) {
    const int64_t padTotal = (*pads)[k] + (*pads)[k + 2];
    const Dim& in = data->shape[axes[k]];
    out[axes[k]] = nn::detail::slidingOutDim(in, padTotal, a.poolSize[k], a.strides[k],
                                             a.dilation[k], a.ceilMode);
    if (out[axes[k]].isConst() && out[axes[k]].value() < 1)
      r.fail("pool2d_c3", "pool_size=" + str(a.poolSize) + " with dilation=" + str(a.dilation) +
                              " does not fit data shape " + shapeToString(data->shape) +
                              " padded by " + str(a.padding));
  }
  return tensorType(out, data->dtype);
}

std::optional<Type> globalPool2dRel(const TypeReporter& r) {
  const TensorTypeNode* data = r.tensorArg(0);
  if (!data) return std::nullopt;
  const GlobalPool2DAttrs& a = r.attrs<GlobalPool2DAttrs>();
  const HW hw = poolLayout(a.layout, a.outLayout, *data, r);
  Shape out = data->shape;
  out[hw.h] = 1;
  out[hw.w] = 1;
  return tensorType(out, data->dtype);
}

// TVM's AdaptivePool2DRel; output_size replaces H and W directly, whatever their input extents.
std::optional<Type> adaptivePool2dRel(const TypeReporter& r) {
  const TensorTypeNode* data = r.tensorArg(0);
  if (!data) return std::nullopt;
  const AdaptivePool2DAttrs& a = r.attrs<AdaptivePool2DAttrs>();
  const HW hw = poolLayout(a.layout, a.outLayout, *data, r);
  const std::vector<int64_t>& size = a.outputSize;
  if (size.size() > 2 || std::any_of(size.begin(), size.end(), [](int64_t s) { return s < 1; }))
    r.fail("pool2d_c2", "output_size must be up to 2 positive values but is " +
                            toAttrValue(size).str() + " (data shape " + shapeToString(data->shape) +
                            ")");
  Shape out = data->shape;
  // Empty keeps the input extents; one value is used for both axes.
  if (!size.empty()) {
    out[hw.h] = size[0];
    out[hw.w] = size.size() == 2 ? size[1] : size[0];
  }
  return tensorType(out, data->dtype);
}

// The most negative value of a dtype: what max pooling pads with. Like TVM's min_value this is the
// lowest finite value, not -inf, so an all-padding window gives a finite result.
double lowestValue(DataType t) {
  if (t.code() == DataType::Code::kBFloat) return -3.38953139e38;
  if (t.isFloat() && t.bits() == 16) return -65504.0;
  if (t.isFloat() && t.bits() == 32) return std::numeric_limits<float>::lowest();
  if (t.isFloat()) return std::numeric_limits<double>::lowest();
  if (t.isInt()) return -std::ldexp(1.0, t.bits() - 1);
  return 0;  // unsigned and bool
}

// One sliding-window pooling: window, strides, dilation and padding along H and W.
struct Window {
  int hAxis, wAxis;
  int64_t kh, kw, sh, sw, dh, dw;
  std::array<int64_t, 4> pad;  // top, left, bottom, right
  bool isMax;
  bool countIncludePad;
};

// For each output element, visit the window's taps: those on real input elements contribute;
// max pooling treats the others as the dtype's lowest value, average pooling divides by the taps
// inside the explicit padding (count_include_pad) or by the real ones.
NDArray pool(const NDArray& x, const Type& outType, const Window& p) {
  NDArray out = allocTensor(outType);
  const std::vector<int64_t>& inDims = x.shape();
  const int64_t h = inDims[p.hAxis], w = inDims[p.wAxis];
  const DataType dtype = x.dtype();
  for (int64_t o = 0; o < out.numel(); ++o) {
    std::vector<int64_t> coords = unravelIndex(o, out.shape());
    const int64_t y = coords[p.hAxis], xo = coords[p.wAxis];
    // One running maximum per kind, so int64 and uint64 compare exactly.
    double bestFloat = lowestValue(dtype);
    // (A float dtype's lowest value is past int64's range: converting it would be undefined.)
    int64_t bestInt = dtype.isInt() ? static_cast<int64_t>(lowestValue(dtype)) : 0;
    uint64_t bestUInt = 0;
    nn::detail::Accumulator sum(dtype);
    int64_t real = 0, padded = 0;
    for (int64_t i = 0; i < p.kh; ++i)
      for (int64_t j = 0; j < p.kw; ++j) {
        const int64_t row = y * p.sh + i * p.dh - p.pad[0];
        const int64_t col = xo * p.sw + j * p.dw - p.pad[1];
        // Taps past the bottom/right padding exist only because of ceil_mode; never counted.
        if (row < h + p.pad[2] && col < w + p.pad[3]) ++padded;
        if (row < 0 || row >= h || col < 0 || col >= w) continue;
        coords[p.hAxis] = row;
        coords[p.wAxis] = col;
        const int64_t index = ravelIndex(coords, inDims);
        ++real;
        sum.add(x, index);
        bestFloat = std::max(bestFloat, x.getFloat(index));
        bestInt = std::max(bestInt, x.getInt(index));
        bestUInt = std::max(bestUInt, x.getUInt(index));
      }
    if (p.isMax && dtype.isFloat())
      out.setFloat(o, bestFloat);
    else if (p.isMax && dtype.isInt())
      out.setInt(o, bestInt);
    else if (p.isMax)
      out.setUInt(o, bestUInt);
    else
      sum.store(out, o, std::max<int64_t>(1, p.countIncludePad ? padded : real));
  }
  return out;
}

template <typename A>
Window windowOf(const A& a, bool isMax, bool countIncludePad) {
  const Layout layout = *Layout::parse(a.layout);
  return Window{.hAxis = layout.indexOf('H'),
                .wAxis = layout.indexOf('W'),
                .kh = a.poolSize[0],
                .kw = a.poolSize[1],
                .sh = a.strides[0],
                .sw = a.strides[1],
                .dh = a.dilation[0],
                .dw = a.dilation[1],
                .pad = *nn::detail::expandPadding(a.padding),
                .isMax = isMax,
                .countIncludePad = countIncludePad};
}

Value maxPoolKernel(const std::vector<Value>& args, const AttrsNode* attrs, const Type& outType) {
  const NDArray& x = tensorAt(args, 0);
  return pool(x, outType, windowOf(*attrsAs<MaxPool2DAttrs>(attrs), true, false));
}

Value avgPoolKernel(const std::vector<Value>& args, const AttrsNode* attrs, const Type& outType) {
  const AvgPool2DAttrs& a = *attrsAs<AvgPool2DAttrs>(attrs);
  const NDArray& x = tensorAt(args, 0);
  return pool(x, outType, windowOf(a, false, a.countIncludePad));
}

// A global pool is one window covering all of H x W.
Value globalPool(const std::vector<Value>& args, const AttrsNode* attrs, const Type& outType,
                 bool isMax) {
  const Layout layout = *Layout::parse(attrsAs<GlobalPool2DAttrs>(attrs)->layout);
  const NDArray& x = tensorAt(args, 0);
  const Window window{.hAxis = layout.indexOf('H'),
                      .wAxis = layout.indexOf('W'),
                      .kh = x.shape()[layout.indexOf('H')],
                      .kw = x.shape()[layout.indexOf('W')],
                      .sh = 1,
                      .sw = 1,
                      .dh = 1,
                      .dw = 1,
                      .pad = {0, 0, 0, 0},
                      .isMax = isMax,
                      .countIncludePad = false};
  return pool(x, outType, window);
}

// Output cell (y, x) averages input rows [floor(y*H/OH), ceil((y+1)*H/OH)) and likewise columns.
Value adaptiveAvgPoolKernel(const std::vector<Value>& args, const AttrsNode* attrs,
                            const Type& outType) {
  const Layout layout = *Layout::parse(attrsAs<AdaptivePool2DAttrs>(attrs)->layout);
  const int hAxis = layout.indexOf('H'), wAxis = layout.indexOf('W');
  const NDArray& x = tensorAt(args, 0);
  NDArray out = allocTensor(outType);
  const int64_t h = x.shape()[hAxis], w = x.shape()[wAxis];
  const int64_t oh = out.shape()[hAxis], ow = out.shape()[wAxis];
  for (int64_t o = 0; o < out.numel(); ++o) {
    std::vector<int64_t> coords = unravelIndex(o, out.shape());
    const int64_t y = coords[hAxis], xo = coords[wAxis];
    // Windows may overlap when the output is not a divisor of the input (TVM's adaptive pool).
    const int64_t rowBegin = y * h / oh, rowEnd = ((y + 1) * h + oh - 1) / oh;
    const int64_t colBegin = xo * w / ow, colEnd = ((xo + 1) * w + ow - 1) / ow;
    nn::detail::Accumulator sum(x.dtype());
    for (int64_t row = rowBegin; row < rowEnd; ++row)
      for (int64_t col = colBegin; col < colEnd; ++col) {
        coords[hAxis] = row;
        coords[wAxis] = col;
        sum.add(x, ravelIndex(coords, x.shape()));
      }
    sum.store(out, o, std::max<int64_t>(1, (rowEnd - rowBegin) * (colEnd - colBegin)));
  }
  return out;
}

}  // namespace

void registerPoolOps(OpRegistry& r) {
  r.add(OpDef{.name = "nn.max_pool2d",
              .args = {"data"},
              .summary = "2-D max pooling",
              .attrs = attrsType<MaxPool2DAttrs>(),
              .typeRelation = pool2dRel<MaxPool2DAttrs>,
              .pattern = OpPattern::kOutEWiseFusable,
              .kernel = maxPoolKernel,
              .supportLevel = 2});
  r.add(OpDef{.name = "nn.avg_pool2d",
              .args = {"data"},
              .summary = "2-D average pooling",
              .attrs = attrsType<AvgPool2DAttrs>(),
              .typeRelation = pool2dRel<AvgPool2DAttrs>,
              .pattern = OpPattern::kOutEWiseFusable,
              .kernel = avgPoolKernel,
              .supportLevel = 2});
  r.add(OpDef{.name = "nn.global_avg_pool2d",
              .args = {"data"},
              .summary = "mean over all of H and W",
              .attrs = attrsType<GlobalPool2DAttrs>(),
              .typeRelation = globalPool2dRel,
              .pattern = OpPattern::kOutEWiseFusable,
              .kernel = [](const std::vector<Value>& args, const AttrsNode* attrs,
                           const Type& outType) { return globalPool(args, attrs, outType, false); },
              .supportLevel = 2});
  r.add(OpDef{.name = "nn.global_max_pool2d",
              .args = {"data"},
              .summary = "maximum over all of H and W",
              .attrs = attrsType<GlobalPool2DAttrs>(),
              .typeRelation = globalPool2dRel,
              .pattern = OpPattern::kOutEWiseFusable,
              .kernel = [](const std::vector<Value>& args, const AttrsNode* attrs,
                           const Type& outType) { return globalPool(args, attrs, outType, true); },
              .supportLevel = 2});
  r.add(OpDef{.name = "nn.adaptive_avg_pool2d",
              .args = {"data"},
              .summary = "average pooling to a given output size",
              .attrs = attrsType<AdaptivePool2DAttrs>(),
              .typeRelation = adaptivePool2dRel,
              .pattern = OpPattern::kOutEWiseFusable,
              .kernel = adaptiveAvgPoolKernel,
              .supportLevel = 10});
}

}  // namespace tessera::relay
