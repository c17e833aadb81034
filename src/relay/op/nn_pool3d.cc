// nn.adaptive_avg_pool3d (and relay.nn.global_avg_pool3d, which TVM builds as this op with
// output_size [1, 1, 1]): the type relation and the reference kernel. Any layout whose D, H and W
// axes are not split works, by iterating over the output's coordinates.
#include <algorithm>

#include "ir/layout.h"
#include "relay/op/nn.h"
#include "relay/op/nn_conv3d.h"
#include "relay/op/op_common.h"
#include "relay/op/op_families.h"

namespace tessera::relay {

namespace nn {

Expr adaptiveAvgPool3d(Expr data, AdaptivePool3DAttrs attrs) {
  return makeCall(opByName("nn.adaptive_avg_pool3d"), {std::move(data)},
                  makeAttrs(std::move(attrs)));
}

Expr globalAvgPool3d(Expr data) {
  return adaptiveAvgPool3d(std::move(data), {.outputSize = {1, 1, 1}});
}

}  // namespace nn

namespace {

using nn::AdaptivePool3DAttrs;

// Positions of the D, H and W axes of a layout.
using Spatial = std::array<int, 3>;

// pool3d_c1: the layout parses, fits the data, has D, H and W unsplit; out_layout empty or equal.
Spatial spatialAxes(const AdaptivePool3DAttrs& a, const TensorTypeNode& data,
                    const TypeReporter& r) {
  std::string why;
  std::optional<Layout> layout = Layout::parse(a.layout, &why);
  if (!layout) r.fail("pool3d_c1", "layout: " + why);
  Spatial axes{};
  for (int k = 0; k < 3; ++k) {
    const char letter = "DHW"[k];
    axes[k] = layout->indexOf(letter);
    if (axes[k] < 0 || layout->subFactor(letter) != 0)
      r.fail("pool3d_c1",
             "layout \"" + a.layout + "\" must have D, H and W axes, none of them split");
  }
  if (layout->ndim() != static_cast<int>(data.shape.size()))
    r.fail("pool3d_c1",
           "data shape " + shapeToString(data.shape) + " does not fit layout \"" + a.layout + "\"");
  // Pooling never changes the layout here; TVM uses out_layout only in layout passes.
  if (!a.outLayout.empty() && a.outLayout != a.layout)
    r.fail("pool3d_c1",
           "out_layout \"" + a.outLayout + "\" differs from layout \"" + a.layout + "\"");
  return axes;
}

// TVM's AdaptivePool3DRel: output_size replaces D, H and W, whatever their input extents.
std::optional<Type> adaptivePool3dRel(const TypeReporter& r) {
  const TensorTypeNode* data = r.tensorArg(0);
  if (!data) return std::nullopt;
  const AdaptivePool3DAttrs& a = r.attrs<AdaptivePool3DAttrs>();
  const Spatial axes = spatialAxes(a, *data, r);
  const std::vector<int64_t>& size = a.outputSize;
  if ((size.size() != 0 && size.size() != 1 && size.size() != 3) ||
      std::any_of(size.begin(), size.end(), [](int64_t s) { return s < 1; }))
    r.fail("pool3d_c2", "output_size must be 0, 1 or 3 positive values but is " +
                            toAttrValue(size).str() + " (data shape " + shapeToString(data->shape) +
                            ")");
  Shape out = data->shape;
  // Empty keeps the input extents; one value is used for all three axes.
  for (size_t k = 0; k < 3 && !size.empty(); ++k) out[axes[k]] = size[size.size() == 3 ? k : 0];
  return tensorType(out, data->dtype);
}

// Output cell i along an axis averages input [floor(i*In/Out), ceil((i+1)*In/Out)), as TVM's
// adaptive pool does (windows overlap when Out does not divide In).
Value adaptiveAvgPool3dKernel(const std::vector<Value>& args, const AttrsNode* attrs,
                              const Type& outType) {
  const Layout layout = *Layout::parse(attrsAs<AdaptivePool3DAttrs>(attrs)->layout);
  const Spatial axes = {layout.indexOf('D'), layout.indexOf('H'), layout.indexOf('W')};
  const NDArray& x = tensorAt(args, 0);
  NDArray out = allocTensor(outType);
  for (int64_t o = 0; o < out.numel(); ++o) {
    std::vector<int64_t> coords = unravelIndex(o, out.shape());
    std::array<int64_t, 3> begin{}, end{};
    for (int k = 0; k < 3; ++k) {
      const int64_t in = x.shape()[axes[k]], n = out.shape()[axes[k]], i = coords[axes[k]];
      begin[k] = i * in / n;
      end[k] = ((i + 1) * in + n - 1) / n;
    }
    nn::detail::Accumulator sum(x.dtype());
    for (int64_t d = begin[0]; d < end[0]; ++d)
      for (int64_t h = begin[1]; h < end[1]; ++h)
        for (int64_t w = begin[2]; w < end[2]; ++w) {
          coords[axes[0]] = d, coords[axes[1]] = h, coords[axes[2]] = w;
          sum.add(x, ravelIndex(coords, x.shape()));
        }
    const int64_t count = (end[0] - begin[0]) * (end[1] - begin[1]) * (end[2] - begin[2]);
    sum.store(out, o, std::max<int64_t>(1, count));
  }
  return out;
}

}  // namespace

void registerPool3dOps(OpRegistry& r) {
  r.add(OpDef{.name = "nn.adaptive_avg_pool3d",
              .args = {"data"},
              .summary = "3-D average pooling to a given output size",
              .attrs = attrsType<AdaptivePool3DAttrs>(),
              .typeRelation = adaptivePool3dRel,
              .pattern = OpPattern::kOutEWiseFusable,
              .kernel = adaptiveAvgPool3dKernel,
              .supportLevel = 10});
}

}  // namespace tessera::relay
