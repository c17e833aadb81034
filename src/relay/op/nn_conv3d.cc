// nn.conv3d: the builder, the type relation (which assigns the weight's type when channels and
// kernel_size are set, as conv2d's does: relay.testing's resnet_3d leaves its weights untyped)
// and the reference kernel, plain loops over the definition.
#include "relay/op/nn_conv3d.h"

#include <algorithm>

#include "relay/op/nn.h"
#include "relay/op/op_common.h"
#include "relay/op/op_families.h"

namespace tessera::relay {

namespace nn {

namespace {

// TVM's Python API turns an int into a triple; a 1-element list is our spelling of that int.
std::vector<int64_t> tripleFromScalar(std::vector<int64_t> v) {
  if (v.size() == 1) v = {v[0], v[0], v[0]};
  return v;
}

}  // namespace

std::optional<std::array<int64_t, 6>> expandPadding3d(const std::vector<int64_t>& p) {
  if (p.size() == 1) return std::array<int64_t, 6>{p[0], p[0], p[0], p[0], p[0], p[0]};
  if (p.size() == 3) return std::array<int64_t, 6>{p[0], p[1], p[2], p[0], p[1], p[2]};
  if (p.size() == 6) return std::array<int64_t, 6>{p[0], p[1], p[2], p[3], p[4], p[5]};
  return std::nullopt;
}

Expr conv3d(Expr data, Expr weight, Conv3DAttrs attrs) {
  if (auto six = expandPadding3d(attrs.padding)) attrs.padding.assign(six->begin(), six->end());
  attrs.strides = tripleFromScalar(std::move(attrs.strides));
  attrs.dilation = tripleFromScalar(std::move(attrs.dilation));
  if (attrs.kernelSize) attrs.kernelSize = tripleFromScalar(std::move(*attrs.kernelSize));
  return makeCall(opByName("nn.conv3d"), {std::move(data), std::move(weight)},
                  makeAttrs(std::move(attrs)));
}

Conv3DGeometry conv3dGeometry(const Conv3DAttrs& a, const std::vector<int64_t>& data,
                              const std::vector<int64_t>& weight) {
  Conv3DGeometry g{};
  g.batch = data[0], g.inChannels = data[1], g.groups = a.groups;
  g.inPerGroup = weight[1], g.outChannels = weight[0], g.outPerGroup = weight[0] / a.groups;
  g.padding = *expandPadding3d(a.padding);
  for (int d = 0; d < 3; ++d) {
    g.in[d] = data[2 + d], g.kernel[d] = weight[2 + d];
    g.strides[d] = a.strides[d], g.dilation[d] = a.dilation[d];
    const int64_t span = (g.kernel[d] - 1) * g.dilation[d] + 1;
    g.out[d] = (g.in[d] + g.padding[d] + g.padding[d + 3] - span) / g.strides[d] + 1;
  }
  return g;
}

}  // namespace nn

namespace {

using nn::Conv3DAttrs;
using nn::detail::dimsConflict;

bool allPositive(const std::vector<int64_t>& v) {
  return std::all_of(v.begin(), v.end(), [](int64_t x) { return x > 0; });
}

std::string listText(const std::vector<int64_t>& v) {
  return toAttrValue(v).str();
}

// conv3d_c1: the attribute values the relation and the kernels rely on.
void checkAttrs(const Conv3DAttrs& a, const TypeReporter& r) {
  const char* code = "conv3d_c1";
  if (a.dataLayout != "NCDHW" || a.kernelLayout != "OIDHW" ||
      !(a.outLayout.empty() || a.outLayout == "NCDHW"))
    r.fail(code, "data_layout=\"" + a.dataLayout + "\", kernel_layout=\"" + a.kernelLayout +
                     "\": only NCDHW data and OIDHW weights are supported");
  if (a.strides.size() != 3 || !allPositive(a.strides))
    r.fail(code, "strides must be 3 positive values but are " + listText(a.strides));
  if (a.dilation.size() != 3 || !allPositive(a.dilation))
    r.fail(code, "dilation must be 3 positive values but is " + listText(a.dilation));
  if (!nn::expandPadding3d(a.padding) ||
      std::any_of(a.padding.begin(), a.padding.end(), [](int64_t p) { return p < 0; }))
    r.fail(code, "padding must be 1, 3 or 6 values of at least 0 but is " + listText(a.padding));
  if (a.kernelSize && (a.kernelSize->size() != 3 || !allPositive(*a.kernelSize)))
    r.fail(code, "kernel_size must be 3 positive values but is " + listText(*a.kernelSize));
  if (a.groups < 1) r.fail(code, "groups must be positive but is " + std::to_string(a.groups));
  if (a.channels && (*a.channels < 1 || *a.channels % a.groups != 0))
    r.fail(code, "channels=" + std::to_string(*a.channels) +
                     " must be a positive multiple of groups=" + std::to_string(a.groups));
}

// One output extent; conv3d_c3 when the dilated window overhangs the padded input.
Dim outExtent(const Dim& in, const Dim& k, int d, const Conv3DAttrs& a, const std::string& shapes,
              const TypeReporter& r) {
  if (!k.isConst()) return Dim::any();
  const auto pads = *nn::expandPadding3d(a.padding);
  const Dim out = nn::detail::slidingOutDim(in, pads[d] + pads[d + 3], k.value(), a.strides[d],
                                            a.dilation[d], false);
  if (out.isConst() && out.value() < 1)
    r.fail("conv3d_c3", "the dilated kernel " +
                            std::to_string((k.value() - 1) * a.dilation[d] + 1) +
                            " exceeds the padded input along spatial axis " + std::to_string(d) +
                            " (" + shapes + ", padding=" + listText(a.padding) + ")");
  return out;
}

std::optional<Type> conv3dRel(const TypeReporter& r) {
  const TensorTypeNode* data = r.tensorArg(0);
  if (!data) return std::nullopt;
  const Conv3DAttrs& a = r.attrs<Conv3DAttrs>();
  checkAttrs(a, r);
  if (data->shape.size() != 5)
    r.fail("conv3d_c2", "data shape " + shapeToString(data->shape) + " is not NCDHW");
  const Dim cin = data->shape[1];
  if (cin.isConst() && cin.value() % a.groups != 0)
    r.fail("conv3d_c2", "data shape " + shapeToString(data->shape) + " has " + cin.str() +
                            " channels, which groups=" + std::to_string(a.groups) +
                            " does not divide");
  const Dim inPerGroup = cin.isConst() ? Dim(cin.value() / a.groups) : Dim::any();
  const TensorTypeNode* weight = r.tensorArg(1);
  Shape w;
  if (a.channels && a.kernelSize) {
    const auto& k = *a.kernelSize;
    w = {Dim(*a.channels), inPerGroup, Dim(k[0]), Dim(k[1]), Dim(k[2])};
    if (weight && (weight->shape.size() != 5 ||
                   std::any_of(w.begin(), w.end(), [&, i = 0](const Dim& d) mutable {
                     return dimsConflict(weight->shape[i++], d);
                   })))
      r.fail("conv3d_c2",
             "weight shape " + shapeToString(weight->shape) + " does not match OIDHW " +
                 shapeToString(w) + " for data " + shapeToString(data->shape) +
                 ", channels=" + std::to_string(*a.channels) + ", kernel_size=" + listText(k));
    // As in TVM, a known weight keeps its own dtype.
    r.assign(1, tensorType(w, weight ? weight->dtype : data->dtype));
  } else if (weight) {
    if (weight->shape.size() != 5)
      r.fail("conv3d_c2", "weight shape " + shapeToString(weight->shape) + " is not OIDHW");
    w = weight->shape;
    if (dimsConflict(w[1], inPerGroup))
      r.fail("conv3d_c2", "weight shape " + shapeToString(weight->shape) + " has " + w[1].str() +
                              " input channels but data shape " + shapeToString(data->shape) +
                              " with groups=" + std::to_string(a.groups) + " needs " +
                              inPerGroup.str());
    if (w[0].isConst() && w[0].value() % a.groups != 0)
      r.fail("conv3d_c2", "weight shape " + shapeToString(weight->shape) + " has " + w[0].str() +
                              " output channels, which groups=" + std::to_string(a.groups) +
                              " does not divide");
    if (a.kernelSize &&
        (dimsConflict(w[2], (*a.kernelSize)[0]) || dimsConflict(w[3], (*a.kernelSize)[1]) ||
         dimsConflict(w[4], (*a.kernelSize)[2])))
      r.fail("conv3d_c2", "kernel_size=" + listText(*a.kernelSize) +
                              " does not match weight shape " + shapeToString(weight->shape));
    if (a.channels && dimsConflict(w[0], *a.channels))
      r.fail("conv3d_c2", "channels=" + std::to_string(*a.channels) +
                              " does not match weight shape " + shapeToString(weight->shape));
  } else {
    return std::nullopt;  // the weight's type must come from elsewhere first
  }
  const std::string shapes =
      "data shape " + shapeToString(data->shape) + ", weight OIDHW " + shapeToString(w);
  Shape out = {data->shape[0], w[0]};
  for (int d = 0; d < 3; ++d)
    out.push_back(outExtent(data->shape[2 + d], w[2 + d], d, a, shapes, r));
  return tensorType(out, a.outDtype.isVoid() ? data->dtype : a.outDtype);
}

// Reference kernel: out[b, o, z, y, x] = sum over c, kd, kh, kw of
// data[b, g * inPerGroup + c, z * sd - pad_front + kd * dd, ...] * w[o, c, kd, kh, kw], taps in the
// padding contributing nothing.
Value conv3dKernel(const std::vector<Value>& args, const AttrsNode* attrs, const Type& outType) {
  const Conv3DAttrs& a = *attrsAs<Conv3DAttrs>(attrs);
  const DataType outDtype = outType->as<TensorTypeNode>()->dtype;
  const NDArray data = nn::detail::castTensor(tensorAt(args, 0), outDtype);
  const NDArray weight = nn::detail::castTensor(tensorAt(args, 1), outDtype);
  const nn::Conv3DGeometry g = nn::conv3dGeometry(a, data.shape(), weight.shape());
  NDArray out = allocTensor(outType);
  const auto& in = g.in;
  const auto& k = g.kernel;
  int64_t o = 0;  // flat output index: the loops below run in row-major output order
  for (int64_t b = 0; b < g.batch; ++b)
    for (int64_t oc = 0; oc < g.outChannels; ++oc) {
      const int64_t firstChannel = oc / g.outPerGroup * g.inPerGroup;
      for (int64_t z = 0; z < g.out[0]; ++z)
        for (int64_t y = 0; y < g.out[1]; ++y)
          for (int64_t x = 0; x < g.out[2]; ++x, ++o) {
            nn::detail::Accumulator acc(outDtype);
            for (int64_t c = 0; c < g.inPerGroup; ++c)
              for (int64_t kd = 0; kd < k[0]; ++kd) {
                const int64_t iz = z * g.strides[0] - g.padding[0] + kd * g.dilation[0];
                if (iz < 0 || iz >= in[0]) continue;
                for (int64_t kh = 0; kh < k[1]; ++kh) {
                  const int64_t iy = y * g.strides[1] - g.padding[1] + kh * g.dilation[1];
                  if (iy < 0 || iy >= in[1]) continue;
                  for (int64_t kw = 0; kw < k[2]; ++kw) {
                    const int64_t ix = x * g.strides[2] - g.padding[2] + kw * g.dilation[2];
                    if (ix < 0 || ix >= in[2]) continue;
                    const int64_t di =
                        (((b * g.inChannels + firstChannel + c) * in[0] + iz) * in[1] + iy) *
                            in[2] +
                        ix;
                    const int64_t wi =
                        (((oc * g.inPerGroup + c) * k[0] + kd) * k[1] + kh) * k[2] + kw;
                    acc.mac(data, di, weight, wi);
                  }
                }
              }
            acc.store(out, o);
          }
    }
  return out;
}

}  // namespace

void registerConv3dOps(OpRegistry& r) {
  r.add(OpDef{.name = "nn.conv3d",
              .args = {"data", "weight"},
              .summary = "3-D convolution (NCDHW data, OIDHW weight)",
              .attrs = attrsType<Conv3DAttrs>(),
              .typeRelation = conv3dRel,
              .pattern = OpPattern::kOutEWiseFusable,
              .kernel = conv3dKernel,
              .supportLevel = 2});
}

}  // namespace tessera::relay
