// nn.conv2d (spec §3.2): attributes, the Conv2DRel type relation (which assigns the weight type
// when channels and kernel_size are set), the plain-loop reference kernel, and the helpers the
// other nn.* files share (padding forms, sliding-window extents, casts, layout re-blocking).
#include <algorithm>
#include <cctype>
#include <cstring>

#include "relay/op/nn.h"
#include "relay/op/op_common.h"
#include "relay/op/op_families.h"
#include "support/check.h"

namespace tessera::relay {

namespace nn::detail {

std::optional<std::array<int64_t, 4>> expandPadding(const std::vector<int64_t>& p) {
  if (p.size() == 1) return std::array<int64_t, 4>{p[0], p[0], p[0], p[0]};
  if (p.size() == 2) return std::array<int64_t, 4>{p[0], p[1], p[0], p[1]};
  if (p.size() == 4) return std::array<int64_t, 4>{p[0], p[1], p[2], p[3]};
  return std::nullopt;
}

// TVM's Python API turns an int into (int, int); a 1-element list is our spelling of that int.
std::vector<int64_t> pairFromScalar(std::vector<int64_t> values) {
  if (values.size() == 1) values.push_back(values[0]);
  return values;
}

Dim slidingOutDim(const Dim& in, int64_t padTotal, int64_t window, int64_t stride, int64_t dilation,
                  bool ceilMode) {
  if (!in.isConst()) return Dim::any();
  const int64_t dilated = (window - 1) * dilation + 1;
  const int64_t span = in.value() + padTotal - dilated + (ceilMode ? stride - 1 : 0);
  // Floor division, so a window larger than the padded input gives an extent below 1.
  const int64_t q = span >= 0 ? span / stride : -((-span + stride - 1) / stride);
  return Dim(q + 1);
}

NDArray castTensor(const NDArray& a, DataType dtype) {
  if (a.dtype() == dtype) return a;
  NDArray out = NDArray::empty(a.shape(), dtype);
  const DataType from = a.dtype();
  for (int64_t i = 0; i < a.numel(); ++i) {
    // Read each element in its own kind so nothing is lost on the way: uint64 values above 2^63
    // through getUInt, int64 values above 2^53 through getInt; the setter then narrows or rounds.
    if (from.isFloat())
      out.setFloat(i, a.getFloat(i));
    else if (from.code() == DataType::Code::kUInt)
      out.setUInt(i, a.getUInt(i));
    else
      out.setInt(i, a.getInt(i));
  }
  return out;
}

NDArray relayoutTensor(const NDArray& a, const Layout& from, const Layout& to) {
  if (from.name() == to.name()) return a;
  std::string why;
  std::optional<Shape> toShape = convertShape(makeShape(a.shape()), from, to, &why);
  TS_CHECK(toShape) << why;
  const std::vector<int64_t> dstDims = *staticShape(*toShape);
  NDArray out = NDArray::empty(dstDims, a.dtype());
  // Elements are moved as raw bytes: re-blocking never converts values.
  const size_t bytes = static_cast<size_t>(a.dtype().bytes());
  const auto* src = static_cast<const char*>(a.data());
  auto* dst = static_cast<char*>(out.data());
  for (int64_t i = 0; i < a.numel(); ++i) {
    const std::vector<int64_t> coords = unravelIndex(i, a.shape());
    // Primal coordinate of each letter = outer index * sub-axis factor + sub-axis index.
    std::array<int64_t, 26> primal{};
    for (int d = 0; d < from.ndim(); ++d) {
      const LayoutAxis& axis = from.axes()[d];
      if (axis.isPrimal()) {
        const int64_t factor = std::max<int64_t>(1, from.subFactor(axis.letter));
        primal[axis.letter - 'A'] += coords[d] * factor;
      } else {
        primal[std::toupper(static_cast<unsigned char>(axis.letter)) - 'A'] += coords[d];
      }
    }
    std::vector<int64_t> out(to.ndim());
    for (int d = 0; d < to.ndim(); ++d) {
      const LayoutAxis& axis = to.axes()[d];
      if (axis.isPrimal()) {
        const int64_t factor = to.subFactor(axis.letter);
        out[d] = factor > 0 ? primal[axis.letter - 'A'] / factor : primal[axis.letter - 'A'];
      } else {
        out[d] = primal[std::toupper(static_cast<unsigned char>(axis.letter)) - 'A'] % axis.factor;
      }
    }
    std::memcpy(dst + ravelIndex(out, dstDims) * bytes, src + i * bytes, bytes);
  }
  return out;
}

bool dimsConflict(const Dim& a, const Dim& b) {
  return a.isConst() && b.isConst() && a.value() != b.value();
}

// convertShape multiplies by the actual sub-axis extent; the kernels re-block by the layout's
// factor, so the two must agree before a shape is accepted.
bool subAxesMatch(const Shape& shape, const Layout& layout) {
  if (static_cast<int>(shape.size()) != layout.ndim()) return false;
  for (int d = 0; d < layout.ndim(); ++d) {
    const LayoutAxis& axis = layout.axes()[d];
    if (!axis.isPrimal() && shape[d].isConst() && shape[d].value() != axis.factor) return false;
  }
  return true;
}

void Accumulator::add(const NDArray& a, int64_t i) {
  if (isFloat())
    real_ += a.getFloat(i);
  else
    wrapped_ += static_cast<uint64_t>(a.getInt(i));
}

// Unsigned arithmetic: signed overflow would be undefined, and two's-complement wraparound is
// exactly what integer accumulation in the output dtype means.
void Accumulator::mac(const NDArray& a, int64_t i, const NDArray& b, int64_t j) {
  if (isFloat())
    real_ += a.getFloat(i) * b.getFloat(j);
  else
    wrapped_ += static_cast<uint64_t>(a.getInt(i)) * static_cast<uint64_t>(b.getInt(j));
}

void Accumulator::store(const NDArray& out, int64_t k, int64_t divisor) const {
  if (isFloat()) {
    out.setFloat(k, real_ / static_cast<double>(divisor));
    return;
  }
  // Narrow to the dtype's width first: the division must see the wrapped value.
  const int bits = dtype_.bits();
  uint64_t low = wrapped_;
  if (bits < 64) {
    const uint64_t mask = (uint64_t{1} << bits) - 1;
    low &= mask;
    if (dtype_.isInt() && ((low >> (bits - 1)) & 1)) low |= ~mask;
  }
  if (dtype_.isInt())
    out.setInt(k, static_cast<int64_t>(low) / divisor);
  else
    out.setUInt(k, low / static_cast<uint64_t>(divisor));
}

}  // namespace nn::detail

namespace nn {

Expr conv2d(Expr data, Expr weight, Conv2DAttrs attrs) {
  if (auto four = detail::expandPadding(attrs.padding))
    attrs.padding.assign(four->begin(), four->end());
  attrs.strides = detail::pairFromScalar(std::move(attrs.strides));
  attrs.dilation = detail::pairFromScalar(std::move(attrs.dilation));
  if (attrs.kernelSize) attrs.kernelSize = detail::pairFromScalar(std::move(*attrs.kernelSize));
  return makeCall(opByName("nn.conv2d"), {std::move(data), std::move(weight)},
                  makeAttrs(std::move(attrs)));
}

}  // namespace nn

namespace {

using nn::Conv2DAttrs;
using nn::detail::dimsConflict;

std::string listText(const std::vector<int64_t>& v) {
  return toAttrValue(v).str();
}

bool allPositive(const std::vector<int64_t>& v) {
  return std::all_of(v.begin(), v.end(), [](int64_t x) { return x > 0; });
}

// conv2d_c4: attribute values the relation and the kernel rely on.
void checkConvAttrs(const Conv2DAttrs& a, const TypeReporter& r) {
  if (a.strides.size() != 2 || !allPositive(a.strides))
    r.fail("conv2d_c4", "strides must be 2 positive values but are " + listText(a.strides));
  if (a.dilation.size() != 2 || !allPositive(a.dilation))
    r.fail("conv2d_c4", "dilation must be 2 positive values but is " + listText(a.dilation));
  const auto pads = nn::detail::expandPadding(a.padding);
  if (!pads || std::any_of(pads->begin(), pads->end(), [](int64_t p) { return p < 0; }))
    r.fail("conv2d_c4",
           "padding must be 1, 2 or 4 non-negative values but is " + listText(a.padding));
  if (a.kernelSize && (a.kernelSize->size() != 2 || !allPositive(*a.kernelSize)))
    r.fail("conv2d_c4", "kernel_size must be 2 positive values but is " + listText(*a.kernelSize));
  if (a.groups < 1)
    r.fail("conv2d_c4", "groups must be positive but is " + std::to_string(a.groups));
  if (a.channels && *a.channels < 1)
    r.fail("conv2d_c4", "channels must be positive but is " + std::to_string(*a.channels));
}

// conv2d_c1: every layout parses and has the primal axes of its canonical form.
Layout convLayout(const std::string& text, const char* role, const char* canonical,
                  const TypeReporter& r) {
  std::string why;
  std::optional<Layout> layout = Layout::parse(text, &why);
  if (!layout) r.fail("conv2d_c1", std::string(role) + ": " + why);
  if (!layout->convertibleTo(*Layout::parse(canonical)))
    r.fail("conv2d_c1", std::string(role) + " \"" + text + "\" cannot be converted to " +
                            canonical + " (it must have exactly the primal axes " + canonical +
                            ")");
  return *layout;
}

// conv2d_c2: a shape converted from `from` to `to`; the shape must fit `from` exactly.
Shape convertOrFail(const Shape& shape, const Layout& from, const Layout& to, const char* what,
                    const TypeReporter& r) {
  std::string why = "sub-axis extents differ from the layout's factors";
  std::optional<Shape> out;
  if (nn::detail::subAxesMatch(shape, from)) out = convertShape(shape, from, to, &why);
  if (static_cast<int>(shape.size()) != from.ndim())
    why = "rank " + std::to_string(shape.size()) + " differs from the " +
          std::to_string(from.ndim()) + " axes of the layout";
  if (!out)
    r.fail("conv2d_c2", std::string(what) + " shape " + shapeToString(shape) +
                            " does not fit layout " + from.name() + ": " + why);
  return *out;
}

bool sameConst(const Dim& d, int64_t v) {
  return d.isConst() && d.value() == v;
}

Dim divDim(const Dim& d, int64_t by) {
  return d.isConst() ? Dim(d.value() / by) : Dim::any();
}

// What the relation needs from the weight: output channels and the window extents.
struct Kernel {
  Dim channels = 0;
  Dim kh = 0;
  Dim kw = 0;
};

// The conv's operands after layout conversion, and the strings its errors quote.
struct ConvOperands {
  const TensorTypeNode* data;
  const TensorTypeNode* weight;  // nullptr while unknown
  Dim cin;                       // input channels (NCHW's C)
  std::optional<Shape> wOihw;    // the weight in OIHW, when known
  bool depthwise;
  std::string shapes;  // "data shape (...), weight shape (...)"
};

std::string inputChannelsMessage(const ConvOperands& op, const Conv2DAttrs& a, const Dim& needed) {
  return "weight shape " + shapeToString(op.weight->shape) + " has " + (*op.wOihw)[1].str() +
         " input channels but data shape " + shapeToString(op.data->shape) +
         " with groups=" + std::to_string(a.groups) + " needs " + needed.str();
}

// Spec §3.2 step 3 with channels and kernel_size set: the expected weight is derived from them and
// assigned. A known weight is checked first, so a conflict carries a constraint label instead of
// surfacing as a generic unification failure.
Kernel kernelFromAttrs(const ConvOperands& op, const Conv2DAttrs& a, const Layout& kernelLayout,
                       const TypeReporter& r) {
  const Kernel k{*a.channels, (*a.kernelSize)[0], (*a.kernelSize)[1]};
  if (!op.depthwise && *a.channels % a.groups != 0)
    r.fail("conv2d_c3", "channels=" + std::to_string(*a.channels) +
                            " is not divisible by groups=" + std::to_string(a.groups));
  const Shape expected = op.depthwise ? Shape{op.cin, divDim(k.channels, a.groups), k.kh, k.kw}
                                      : Shape{k.channels, divDim(op.cin, a.groups), k.kh, k.kw};
  if (op.wOihw) {
    const Shape& w = *op.wOihw;
    if (dimsConflict(w[0], expected[0]) || dimsConflict(w[2], k.kh) || dimsConflict(w[3], k.kw))
      r.fail("conv2d_c5",
             "weight shape " + shapeToString(op.weight->shape) + " (OIHW " + shapeToString(w) +
                 ") does not match channels=" + std::to_string(*a.channels) +
                 ", kernel_size=" + listText(*a.kernelSize) + ", which need OIHW " +
                 shapeToString(expected) + " for data shape " + shapeToString(op.data->shape));
    if (dimsConflict(w[1], expected[1]))
      r.fail("conv2d_c3", inputChannelsMessage(op, a, expected[1]));
  }
  std::string why;
  std::optional<Shape> assigned =
      convertShape(expected, *Layout::parse("OIHW"), kernelLayout, &why);
  if (!assigned)
    r.fail("conv2d_c2", "weight shape OIHW " + shapeToString(expected) +
                            " does not fit kernel layout " + kernelLayout.name() + ": " + why);
  // As in TVM, a known weight keeps its own dtype (an int8 weight under float data stays int8).
  r.assign(1, tensorType(*assigned, op.weight ? op.weight->dtype : op.data->dtype));
  return k;
}

// Spec §3.2 step 3 otherwise: the known weight decides; attributes that are set must agree.
Kernel kernelFromWeight(const ConvOperands& op, const Conv2DAttrs& a, const TypeReporter& r) {
  const Shape& w = *op.wOihw;
  // A depthwise weight (Cin, m, kh, kw) yields Cin * m channels (TVM requires m == 1 here).
  const Dim channels =
      op.depthwise && w[0].isConst() && w[1].isConst() ? Dim(w[0].value() * w[1].value()) : w[0];
  const Kernel k{channels, w[2], w[3]};
  if (a.kernelSize &&
      (dimsConflict(k.kh, (*a.kernelSize)[0]) || dimsConflict(k.kw, (*a.kernelSize)[1])))
    r.fail("conv2d_c5", "kernel_size=" + listText(*a.kernelSize) + " does not match " + op.shapes);
  if (a.channels && dimsConflict(channels, *a.channels))
    r.fail("conv2d_c5", "channels=" + std::to_string(*a.channels) + " does not match " + op.shapes);
  const Dim needed = op.depthwise ? w[1] : divDim(op.cin, a.groups);
  if (dimsConflict(needed, w[1])) r.fail("conv2d_c3", inputChannelsMessage(op, a, needed));
  if (!op.depthwise && channels.isConst() && channels.value() % a.groups != 0)
    r.fail("conv2d_c3", op.shapes + ": output channels " + channels.str() +
                            " are not divisible by groups=" + std::to_string(a.groups));
  return k;
}

// One output extent (spec §3.2 step 5); conv2d_c6 when the dilated kernel overhangs.
Dim convOutDim(const Dim& in, const Dim& k, int64_t padTotal, int axis, const Conv2DAttrs& a,
               const ConvOperands& op, const TypeReporter& r) {
  if (!k.isConst()) return Dim::any();
  const Dim out =
      nn::detail::slidingOutDim(in, padTotal, k.value(), a.strides[axis], a.dilation[axis], false);
  const char* extent = axis == 0 ? "height " : "width ";
  if (out.isConst() && out.value() < 1)
    r.fail("conv2d_c6", std::string("the dilated kernel ") + extent +
                            std::to_string((k.value() - 1) * a.dilation[axis] + 1) +
                            " exceeds the padded input " + extent +
                            std::to_string(in.value() + padTotal) + " (" + op.shapes + ")");
  return out;
}

std::optional<Type> conv2dRel(const TypeReporter& r) {
  const TensorTypeNode* data = r.tensorArg(0);
  if (!data) return std::nullopt;
  const TensorTypeNode* weight = r.tensorArg(1);
  const Conv2DAttrs& a = r.attrs<Conv2DAttrs>();
  checkConvAttrs(a, r);
  const Layout nchw = *Layout::parse("NCHW");
  const Layout dataLayout = convLayout(a.dataLayout, "data_layout", "NCHW", r);
  const Layout kernelLayout = convLayout(a.kernelLayout, "kernel_layout", "OIHW", r);
  const Layout outLayout =
      convLayout(a.outLayout.empty() ? a.dataLayout : a.outLayout, "out_layout", "NCHW", r);

  // Everything below reasons in NCHW / OIHW; packed layouts only change how shapes are spelled.
  const Shape dn = convertOrFail(data->shape, dataLayout, nchw, "data", r);
  ConvOperands op{.data = data,
                  .weight = weight,
                  .cin = dn[1],
                  .wOihw = std::nullopt,
                  .depthwise = false,
                  .shapes = "data shape " + shapeToString(data->shape)};
  if (op.cin.isConst() && op.cin.value() % a.groups != 0)
    r.fail("conv2d_c3", "data shape " + shapeToString(data->shape) + " has " + op.cin.str() +
                            " input channels, which groups=" + std::to_string(a.groups) +
                            " does not divide");
  if (weight) {
    op.wOihw = convertOrFail(weight->shape, kernelLayout, *Layout::parse("OIHW"), "weight", r);
    op.shapes += ", weight shape " + shapeToString(weight->shape);
    // TVM's is_depthwise: groups == Cin == the weight's O extent.
    op.depthwise =
        a.groups > 1 && sameConst(op.cin, a.groups) && sameConst((*op.wOihw)[0], a.groups);
  }
  Kernel k;
  if (a.channels && a.kernelSize)
    k = kernelFromAttrs(op, a, kernelLayout, r);
  else if (weight)
    k = kernelFromWeight(op, a, r);
  else
    return std::nullopt;  // the weight's type must come from elsewhere first

  const auto pads = *nn::detail::expandPadding(a.padding);  // top, left, bottom, right
  const Shape outNchw = {dn[0], k.channels, convOutDim(dn[2], k.kh, pads[0] + pads[2], 0, a, op, r),
                         convOutDim(dn[3], k.kw, pads[1] + pads[3], 1, a, op, r)};
  std::string why;
  std::optional<Shape> out = convertShape(outNchw, nchw, outLayout, &why);
  if (!out)
    r.fail("conv2d_c2", "output shape NCHW " + shapeToString(outNchw) + " does not fit layout " +
                            outLayout.name() + ": " + why);
  return tensorType(*out, a.outDtype.isVoid() ? data->dtype : a.outDtype);
}

// Reference kernel: re-block to NCHW/OIHW, cast to the output dtype, run the spec's loop nest,
// re-block to the output layout.
Value conv2dKernel(const std::vector<Value>& args, const AttrsNode* attrs, const Type& outType) {
  const Conv2DAttrs& a = *attrsAs<Conv2DAttrs>(attrs);
  const Layout nchw = *Layout::parse("NCHW");
  const Layout oihw = *Layout::parse("OIHW");
  const Layout dataLayout = *Layout::parse(a.dataLayout);
  const Layout kernelLayout = *Layout::parse(a.kernelLayout);
  const Layout outLayout = *Layout::parse(a.outLayout.empty() ? a.dataLayout : a.outLayout);
  const DataType outDtype = outType->as<TensorTypeNode>()->dtype;
  const NDArray data = nn::detail::castTensor(
      nn::detail::relayoutTensor(tensorAt(args, 0), dataLayout, nchw), outDtype);
  NDArray weight = nn::detail::castTensor(
      nn::detail::relayoutTensor(tensorAt(args, 1), kernelLayout, oihw), outDtype);
  const std::vector<int64_t> outDims =
      *staticShape(*convertShape(outType->as<TensorTypeNode>()->shape, outLayout, nchw));

  const int64_t n = data.shape()[0], cin = data.shape()[1], h = data.shape()[2],
                w = data.shape()[3];
  const int64_t cout = outDims[1], hout = outDims[2], wout = outDims[3];
  const int64_t kh = weight.shape()[2], kw = weight.shape()[3];
  // The relation guarantees groups divides both channel counts.
  const int64_t groups = a.groups, cinPerGroup = cin / groups, coutPerGroup = cout / groups;
  // A depthwise weight (Cin, multiplier, kh, kw) holds the same elements, in the same order, as
  // the grouped weight (Cin * multiplier, 1, kh, kw) the loop below expects.
  if (weight.shape()[0] != cout) weight = weight.reshaped({cout, cinPerGroup, kh, kw});
  TS_CHECK(weight.shape()[1] == cinPerGroup) << "conv2d weight does not match its type";
  const auto pad = *nn::detail::expandPadding(a.padding);  // top, left, bottom, right
  const int64_t sh = a.strides[0], sw = a.strides[1], dh = a.dilation[0], dw = a.dilation[1];

  NDArray out = NDArray::empty(outDims, outDtype);
  for (int64_t b = 0; b < n; ++b)
    for (int64_t k = 0; k < cout; ++k) {
      const int64_t group = k / coutPerGroup;
      for (int64_t y = 0; y < hout; ++y)
        for (int64_t x = 0; x < wout; ++x) {
          nn::detail::Accumulator acc(outDtype);
          for (int64_t c = 0; c < cinPerGroup; ++c)
            for (int64_t i = 0; i < kh; ++i)
              for (int64_t j = 0; j < kw; ++j) {
                const int64_t p = y * sh + i * dh - pad[0];
                const int64_t q = x * sw + j * dw - pad[1];
                if (p < 0 || p >= h || q < 0 || q >= w) continue;  // zero padding
                const int64_t channel = group * cinPerGroup + c;
                acc.mac(data, ((b * cin + channel) * h + p) * w + q, weight,
                        ((k * cinPerGroup + c) * kh + i) * kw + j);
              }
          acc.store(out, ((b * cout + k) * hout + y) * wout + x);
        }
    }
  return nn::detail::relayoutTensor(out, nchw, outLayout);
}

}  // namespace

void registerConvOps(OpRegistry& r) {
  r.add(OpDef{.name = "nn.conv2d",
              .args = {"data", "weight"},
              .summary = "2-D convolution with strides, padding, dilation, groups and layouts",
              .attrs = attrsType<Conv2DAttrs>(),
              .typeRelation = conv2dRel,
              .pattern = OpPattern::kOutEWiseFusable,
              .kernel = conv2dKernel,
              .supportLevel = 2});
}

}  // namespace tessera::relay
