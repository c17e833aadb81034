// nn.conv2d_transpose: the type relation (which assigns the weight type when channels and
// kernel_size are set, as conv2d's does) and the reference kernel, written as the gather form of
// the definition so that it shares nothing with the compiled lowering it checks.
#include "relay/op/nn_conv_transpose.h"

#include <algorithm>

#include "relay/op/nn.h"
#include "relay/op/op_common.h"
#include "relay/op/op_families.h"
#include "support/check.h"

namespace tessera::relay {

namespace nn {

Expr conv2dTranspose(Expr data, Expr weight, Conv2DTransposeAttrs attrs) {
  if (auto four = detail::expandPadding(attrs.padding))
    attrs.padding.assign(four->begin(), four->end());
  attrs.strides = detail::pairFromScalar(std::move(attrs.strides));
  attrs.dilation = detail::pairFromScalar(std::move(attrs.dilation));
  attrs.outputPadding = detail::pairFromScalar(std::move(attrs.outputPadding));
  if (attrs.kernelSize) attrs.kernelSize = detail::pairFromScalar(std::move(*attrs.kernelSize));
  return makeCall(opByName("nn.conv2d_transpose"), {std::move(data), std::move(weight)},
                  makeAttrs(std::move(attrs)));
}

ConvTransposeGeometry convTransposeGeometry(const Conv2DTransposeAttrs& a,
                                            const std::vector<int64_t>& data,
                                            const std::vector<int64_t>& weight) {
  ConvTransposeGeometry g{};
  g.batch = data[0], g.inChannels = data[1], g.height = data[2], g.width = data[3];
  g.groups = a.groups;
  g.inPerGroup = g.inChannels / g.groups;
  g.outPerGroup = weight[1];
  g.outChannels = g.outPerGroup * g.groups;
  g.kh = weight[2], g.kw = weight[3];
  g.strides = {a.strides[0], a.strides[1]};
  g.dilation = {a.dilation[0], a.dilation[1]};
  g.padding = *detail::expandPadding(a.padding);
  const std::array<int64_t, 2> in = {g.height, g.width}, k = {g.kh, g.kw};
  std::array<int64_t, 2> out{};
  for (int d = 0; d < 2; ++d) {
    const int64_t span = (k[d] - 1) * g.dilation[d];
    out[d] = (in[d] - 1) * g.strides[d] - g.padding[d] - g.padding[d + 2] + span + 1 +
             a.outputPadding[d];
    g.before[d] = span - g.padding[d];
    g.after[d] = span - g.padding[d + 2] + a.outputPadding[d];
  }
  g.outHeight = out[0], g.outWidth = out[1];
  return g;
}

}  // namespace nn

namespace {

using nn::Conv2DTransposeAttrs;
using nn::detail::dimsConflict;

bool allPositive(const std::vector<int64_t>& v) {
  return std::all_of(v.begin(), v.end(), [](int64_t x) { return x > 0; });
}

std::string listText(const std::vector<int64_t>& v) {
  return toAttrValue(v).str();
}

// conv2d_transpose_c1: the attribute values the relation and the kernels rely on.
void checkAttrs(const Conv2DTransposeAttrs& a, const TypeReporter& r) {
  const char* code = "conv2d_transpose_c1";
  if (a.dataLayout != "NCHW" || a.kernelLayout != "IOHW" ||
      !(a.outLayout.empty() || a.outLayout == "NCHW"))
    r.fail(code, "data_layout=\"" + a.dataLayout + "\", kernel_layout=\"" + a.kernelLayout +
                     "\": only NCHW data and IOHW weights are supported");
  if (a.strides.size() != 2 || !allPositive(a.strides))
    r.fail(code, "strides must be 2 positive values but are " + listText(a.strides));
  if (a.dilation.size() != 2 || !allPositive(a.dilation))
    r.fail(code, "dilation must be 2 positive values but is " + listText(a.dilation));
  if (!nn::detail::expandPadding(a.padding) ||
      std::any_of(a.padding.begin(), a.padding.end(), [](int64_t p) { return p < 0; }))
    r.fail(code, "padding must be 1, 2 or 4 values of at least 0 but is " + listText(a.padding));
  if (a.outputPadding.size() != 2)
    r.fail(code, "output_padding must be 2 values but is " + listText(a.outputPadding));
  for (int d = 0; d < 2; ++d)
    if (a.outputPadding[d] < 0 || a.outputPadding[d] >= std::max(a.strides[d], a.dilation[d]))
      r.fail(code, "output_padding " + listText(a.outputPadding) +
                       " must be at least 0 and below the stride or the dilation");
  if (a.kernelSize && (a.kernelSize->size() != 2 || !allPositive(*a.kernelSize)))
    r.fail(code, "kernel_size must be 2 positive values but is " + listText(*a.kernelSize));
  if (a.groups < 1) r.fail(code, "groups must be positive but is " + std::to_string(a.groups));
  if (a.channels && (*a.channels < 1 || *a.channels % a.groups != 0))
    r.fail(code, "channels=" + std::to_string(*a.channels) +
                     " must be a positive multiple of groups=" + std::to_string(a.groups));
}

Dim outExtent(const Dim& in, const Dim& k, int d, const Conv2DTransposeAttrs& a,
              const TypeReporter& r) {
  if (!in.isConst() || !k.isConst()) return Dim::any();
  const auto pads = *nn::detail::expandPadding(a.padding);
  const int64_t out = (in.value() - 1) * a.strides[d] - pads[d] - pads[d + 2] +
                      (k.value() - 1) * a.dilation[d] + 1 + a.outputPadding[d];
  if (out < 1)
    r.fail("conv2d_transpose_c3", "the padding " + listText(a.padding) +
                                      " leaves no output along spatial axis " + std::to_string(d));
  return Dim(out);
}

std::optional<Type> conv2dTransposeRel(const TypeReporter& r) {
  const TensorTypeNode* data = r.tensorArg(0);
  if (!data) return std::nullopt;
  const Conv2DTransposeAttrs& a = r.attrs<Conv2DTransposeAttrs>();
  checkAttrs(a, r);
  if (data->shape.size() != 4)
    r.fail("conv2d_transpose_c2", "data shape " + shapeToString(data->shape) + " is not NCHW");
  const Dim cin = data->shape[1];
  if (cin.isConst() && cin.value() % a.groups != 0)
    r.fail("conv2d_transpose_c2", "data shape " + shapeToString(data->shape) + " has " + cin.str() +
                                      " channels, which groups=" + std::to_string(a.groups) +
                                      " does not divide");
  const TensorTypeNode* weight = r.tensorArg(1);
  Shape w;
  if (a.channels && a.kernelSize) {
    w = {cin, Dim(*a.channels / a.groups), Dim((*a.kernelSize)[0]), Dim((*a.kernelSize)[1])};
    if (weight && (weight->shape.size() != 4 ||
                   std::any_of(w.begin(), w.end(), [&, i = 0](const Dim& d) mutable {
                     return dimsConflict(weight->shape[i++], d);
                   })))
      r.fail("conv2d_transpose_c2",
             "weight shape " + shapeToString(weight->shape) + " does not match IOHW " +
                 shapeToString(w) + " for data " + shapeToString(data->shape) + ", channels=" +
                 std::to_string(*a.channels) + ", kernel_size=" + listText(*a.kernelSize));
    r.assign(1, tensorType(w, weight ? weight->dtype : data->dtype));
  } else if (weight) {
    if (weight->shape.size() != 4)
      r.fail("conv2d_transpose_c2",
             "weight shape " + shapeToString(weight->shape) + " is not IOHW");
    w = weight->shape;
    if (dimsConflict(w[0], cin))
      r.fail("conv2d_transpose_c2", "weight shape " + shapeToString(weight->shape) + " has " +
                                        w[0].str() + " input channels but data shape " +
                                        shapeToString(data->shape) + " has " + cin.str());
    if (a.kernelSize &&
        (dimsConflict(w[2], (*a.kernelSize)[0]) || dimsConflict(w[3], (*a.kernelSize)[1])))
      r.fail("conv2d_transpose_c2", "kernel_size=" + listText(*a.kernelSize) +
                                        " does not match weight shape " +
                                        shapeToString(weight->shape));
    if (a.channels && w[1].isConst() && w[1].value() * a.groups != *a.channels)
      r.fail("conv2d_transpose_c2", "channels=" + std::to_string(*a.channels) +
                                        " does not match weight shape " +
                                        shapeToString(weight->shape));
  } else {
    return std::nullopt;  // the weight's type must come from elsewhere first
  }
  const Dim cout = w[1].isConst() ? Dim(w[1].value() * a.groups) : Dim::any();
  return tensorType(Shape{data->shape[0], cout, outExtent(data->shape[2], w[2], 0, a, r),
                          outExtent(data->shape[3], w[3], 1, a, r)},
                    a.outDtype.isVoid() ? data->dtype : a.outDtype);
}

// Reference kernel, the gather form of the definition: output (y, x) receives data (i, j) through
// kernel tap (ki, kj) when y = i * stride - pad_top + ki * dilation (likewise for x).
Value conv2dTransposeKernel(const std::vector<Value>& args, const AttrsNode* attrs,
                            const Type& outType) {
  const Conv2DTransposeAttrs& a = *attrsAs<Conv2DTransposeAttrs>(attrs);
  const DataType outDtype = outType->as<TensorTypeNode>()->dtype;
  const NDArray data = nn::detail::castTensor(tensorAt(args, 0), outDtype);
  const NDArray weight = nn::detail::castTensor(tensorAt(args, 1), outDtype);
  const nn::ConvTransposeGeometry g = nn::convTransposeGeometry(a, data.shape(), weight.shape());
  NDArray out = NDArray::empty({g.batch, g.outChannels, g.outHeight, g.outWidth}, outDtype);
  const int64_t sh = g.strides[0], sw = g.strides[1], dh = g.dilation[0], dw = g.dilation[1];
  for (int64_t b = 0; b < g.batch; ++b)
    for (int64_t o = 0; o < g.outChannels; ++o) {
      const int64_t group = o / g.outPerGroup, oc = o % g.outPerGroup;
      for (int64_t y = 0; y < g.outHeight; ++y)
        for (int64_t x = 0; x < g.outWidth; ++x) {
          nn::detail::Accumulator acc(outDtype);
          for (int64_t ic = 0; ic < g.inPerGroup; ++ic) {
            const int64_t c = group * g.inPerGroup + ic;
            for (int64_t ki = 0; ki < g.kh; ++ki) {
              const int64_t ty = y + g.padding[0] - ki * dh;
              if (ty < 0 || ty % sh != 0 || ty / sh >= g.height) continue;
              for (int64_t kj = 0; kj < g.kw; ++kj) {
                const int64_t tx = x + g.padding[1] - kj * dw;
                if (tx < 0 || tx % sw != 0 || tx / sw >= g.width) continue;
                acc.mac(data, ((b * g.inChannels + c) * g.height + ty / sh) * g.width + tx / sw,
                        weight, ((c * g.outPerGroup + oc) * g.kh + ki) * g.kw + kj);
              }
            }
          }
          acc.store(out, ((b * g.outChannels + o) * g.outHeight + y) * g.outWidth + x);
        }
    }
  return out;
}

}  // namespace

void registerConvTransposeOps(OpRegistry& r) {
  r.add(OpDef{.name = "nn.conv2d_transpose",
              .args = {"data", "weight"},
              .summary = "2-D transposed convolution (NCHW data, IOHW weight)",
              .attrs = attrsType<Conv2DTransposeAttrs>(),
              .typeRelation = conv2dTransposeRel,
              .pattern = OpPattern::kOutEWiseFusable,
              .kernel = conv2dTransposeKernel,
              .supportLevel = 2});
}

}  // namespace tessera::relay
