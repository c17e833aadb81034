// relay.op.annotation.simulated_quantize: type relation and reference kernel. Spec relay.md §5.6.
#include "relay/op/quantize.h"

#include <cmath>

#include "relay/op/op_common.h"
#include "relay/op/op_families.h"
#include "support/check.h"

namespace tessera::relay {
namespace {

std::optional<Type> simulatedQuantizeRel(const TypeReporter& r) {
  const TensorTypeNode* data = r.tensorArg(0);
  if (!data) return std::nullopt;
  const auto& a = r.attrs<SimulatedQuantizeAttrs>();
  if (a.kind < 0 || a.kind > 3)
    r.fail("simulated_quantize_kind", "kind must be 0..3 (IDENTITY, INPUT, WEIGHT, ACTIVATION)");
  if (!data->dtype.isFloat())
    r.fail("simulated_quantize_dtype",
           "data must be floating point, not " + typeToString(r.arg(0)));
  for (size_t i = 1; i < 4; ++i) {
    const TensorTypeNode* s = r.tensorArg(i);
    if (!s) return std::nullopt;
    if (s->ndim() == 0) continue;
    // dom_scale may hold one scale per channel (weight_scale="per_channel_max"): a tensor that
    // broadcasts to the data's shape.
    if (i == 1 && s->ndim() <= data->ndim() &&
        shapeToString(broadcastShapes(data->shape, s->shape, r, "simulated_quantize_scale")) ==
            shapeToString(data->shape))
      continue;
    r.fail("simulated_quantize_scalar",
           "argument " + std::to_string(i) + " must be a scalar" +
               (i == 1 ? " or broadcast to the data's shape " + shapeToString(data->shape) : "") +
               ", not " + typeToString(r.arg(i)));
  }
  return r.arg(0);
}

/// For each element of `data`, the index of its scale in `scale` (numpy broadcasting, `scale` of
/// rank <= data's).
std::vector<int64_t> broadcastIndices(const NDArray& data, const NDArray& scale) {
  const std::vector<int64_t>& dims = data.shape();
  const std::vector<int64_t>& sdims = scale.shape();
  const size_t lead = dims.size() - sdims.size();
  std::vector<int64_t> out(static_cast<size_t>(data.numel()));
  std::vector<int64_t> coords(dims.size(), 0);
  for (int64_t i = 0; i < data.numel(); ++i) {
    int64_t s = 0;
    for (size_t d = lead; d < dims.size(); ++d)
      s = s * sdims[d - lead] + (sdims[d - lead] == 1 ? 0 : coords[d]);
    out[static_cast<size_t>(i)] = s;
    for (size_t d = dims.size(); d-- > 0;) {  // next coordinate, row-major
      if (++coords[d] < dims[d]) break;
      coords[d] = 0;
    }
  }
  return out;
}

Value simulatedQuantizeKernel(const std::vector<Value>& args, const AttrsNode* attrs,
                              const Type& outType) {
  const NDArray& x = tensorAt(args, 0);
  const auto& a = attrsOrDefault<SimulatedQuantizeAttrs>(attrs);
  if (a.kind == static_cast<int>(QAnnotateKind::kIdentity)) return args.at(0);
  // float32 arithmetic, as TVM's compute does it.
  const NDArray& scales = tensorAt(args, 1);
  const auto lo = static_cast<float>(tensorAt(args, 2).getFloat(0));
  const auto hi = static_cast<float>(tensorAt(args, 3).getFloat(0));
  const std::vector<int64_t> scaleOf =
      scales.numel() == 1 ? std::vector<int64_t>() : broadcastIndices(x, scales);
  NDArray out = allocTensor(outType);
  for (int64_t i = 0; i < x.numel(); ++i) {
    const auto scale =
        static_cast<float>(scales.getFloat(scaleOf.empty() ? 0 : scaleOf[static_cast<size_t>(i)]));
    const float scaled = static_cast<float>(x.getFloat(i)) / scale;
    const float clipped = std::fmin(std::fmax(scaled, lo), hi);
    out.setFloat(i, std::round(clipped) * scale);
  }
  return out;
}

}  // namespace

Expr simulatedQuantize(Expr data, Expr domScale, Expr clipMin, Expr clipMax, QAnnotateKind kind) {
  SimulatedQuantizeAttrs attrs;
  attrs.kind = static_cast<int>(kind);
  return makeCall(opByName("relay.op.annotation.simulated_quantize"),
                  {std::move(data), std::move(domScale), std::move(clipMin), std::move(clipMax)},
                  makeAttrs(attrs));
}

void registerQuantizeOps(OpRegistry& r) {
  r.add(OpDef{.name = "relay.op.annotation.simulated_quantize",
              .args = {"data", "dom_scale", "clip_min", "clip_max"},
              .summary = "float simulation of quantizing to [clip_min, clip_max] with dom_scale",
              .attrs = attrsType<SimulatedQuantizeAttrs>(),
              .typeRelation = simulatedQuantizeRel,
              .pattern = OpPattern::kElemWise,
              .kernel = simulatedQuantizeKernel});
}

}  // namespace tessera::relay
