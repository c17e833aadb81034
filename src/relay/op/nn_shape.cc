// nn.pad (constant, edge and reflect modes; the pad value is a scalar argument cast to the data's
// dtype at run time) and nn.batch_flatten (`(d0, d1 * ... * dk)`, a reshape-only op).
#include <algorithm>
#include <cstring>

#include "relay/op/nn.h"
#include "relay/op/op_common.h"
#include "relay/op/op_families.h"

namespace tessera::relay {

namespace nn {

Expr pad(Expr data, Expr padValue, PadAttrs attrs) {
  return makeCall(opByName("nn.pad"), {std::move(data), std::move(padValue)},
                  makeAttrs(std::move(attrs)));
}

Expr batchFlatten(Expr data) {
  return makeCall(opByName("nn.batch_flatten"), {std::move(data)});
}

}  // namespace nn

namespace {

using nn::PadAttrs;

std::optional<Type> padRel(const TypeReporter& r) {
  const TensorTypeNode* data = r.tensorArg(0);
  if (!data) return std::nullopt;
  const PadAttrs& a = r.attrs<PadAttrs>();
  const std::string widths = toAttrValue(a.padWidth).str();
  const std::string shape = shapeToString(data->shape);
  if (static_cast<int>(a.padWidth.size()) != data->ndim())
    r.fail("pad_c1", "pad_width " + widths + " has " + std::to_string(a.padWidth.size()) +
                         " pairs but data shape " + shape + " has rank " +
                         std::to_string(data->ndim()));
  for (const std::vector<int64_t>& pair : a.padWidth) {
    if (pair.size() != 2)
      r.fail("pad_c1", "pad_width " + widths + " must hold one [before, after] pair per axis of " +
                           "data shape " + shape);
    if (pair[0] < 0 || pair[1] < 0)
      r.fail("pad_c2", "pad_width " + widths + " has a negative width (data shape " + shape + ")");
  }
  // The pad value may stay untyped here; once known it must be a scalar of any dtype.
  if (const TensorTypeNode* value = r.tensorArg(1); value && value->ndim() != 0)
    r.fail("pad_c3", "pad_value must be a scalar but has type " + typeToString(r.arg(1)));
  const bool edge = a.padMode == "edge";
  const bool reflect = a.padMode == "reflect";
  if (a.padMode != "constant" && !edge && !reflect)
    r.fail("pad_c4",
           "pad_mode must be \"constant\", \"edge\" or \"reflect\" but is \"" + a.padMode + "\"");
  Shape out;
  for (int d = 0; d < data->ndim(); ++d) {
    const Dim& dim = data->shape[d];
    const int64_t before = a.padWidth[d][0], after = a.padWidth[d][1];
    const bool padded = before > 0 || after > 0;
    // Edge padding copies a border element, so one must exist; reflection (without repeating
    // the border) needs `width` elements beyond it.
    if (dim.isConst() && padded && edge && dim.value() < 1)
      r.fail("pad_c4",
             "edge padding of an empty axis " + std::to_string(d) + " of data shape " + shape);
    if (dim.isConst() && padded && reflect && std::max(before, after) > dim.value() - 1)
      r.fail("pad_c4", "reflect padding by " + std::to_string(std::max(before, after)) +
                           " needs more than that many elements on axis " + std::to_string(d) +
                           " of data shape " + shape);
    out.push_back(dim.isConst() ? Dim(dim.value() + before + after) : Dim::any());
  }
  return tensorType(out, data->dtype);
}

// Maps an output coordinate back to the input along one axis of extent n, or -1 for a constant
// pad position.
int64_t sourceIndex(int64_t c, int64_t n, bool edge, bool reflect) {
  if (c >= 0 && c < n) return c;
  if (edge) return c < 0 ? 0 : n - 1;
  if (reflect) return c < 0 ? -c : 2 * (n - 1) - c;
  return -1;
}

Value padKernel(const std::vector<Value>& args, const AttrsNode* attrs, const Type& outType) {
  const PadAttrs& a = *attrsAs<PadAttrs>(attrs);
  const NDArray& x = tensorAt(args, 0);
  const NDArray& value = tensorAt(args, 1);
  NDArray out = allocTensor(outType);
  const bool edge = a.padMode == "edge", reflect = a.padMode == "reflect";
  const size_t bytes = static_cast<size_t>(x.dtype().bytes());
  for (int64_t o = 0; o < out.numel(); ++o) {
    std::vector<int64_t> coords = unravelIndex(o, out.shape());
    bool inside = true;
    for (size_t d = 0; d < coords.size(); ++d) {
      coords[d] = sourceIndex(coords[d] - a.padWidth[d][0], x.shape()[d], edge, reflect);
      inside = inside && coords[d] >= 0;
    }
    // Inside the data: copy the bytes, so every dtype (and NaN payloads) passes through unchanged.
    if (inside) {
      std::memcpy(static_cast<char*>(out.data()) + o * bytes,
                  static_cast<const char*>(x.data()) + ravelIndex(coords, x.shape()) * bytes,
                  bytes);
      continue;
    }
    // The pad value is cast to the data's dtype like `cast` would.
    if (value.dtype().isFloat())
      out.setFloat(o, value.getFloat(0));
    else if (value.dtype().isInt())
      out.setInt(o, value.getInt(0));
    else
      out.setUInt(o, value.getUInt(0));
  }
  return out;
}

std::optional<Type> batchFlattenRel(const TypeReporter& r) {
  const TensorTypeNode* data = r.tensorArg(0);
  if (!data) return std::nullopt;
  if (data->ndim() < 1) r.fail("batch_flatten_c1", "data must have rank >= 1 but has shape ()");
  // A symbolic extent cannot be multiplied out here, so it makes the product unknown too.
  Dim rest = 1;
  for (int d = 1; d < data->ndim(); ++d)
    rest = rest.isConst() && data->shape[d].isConst() ? Dim(rest.value() * data->shape[d].value())
                                                      : Dim::any();
  return tensorType(Shape{data->shape[0], rest}, data->dtype);
}

Value batchFlattenKernel(const std::vector<Value>& args, const AttrsNode* attrs,
                         const Type& outType) {
  (void)attrs;
  // Copy first: reshaped() shares the buffer, and the result must not alias the input's storage.
  return tensorAt(args, 0).copy().reshaped(staticDims(outType));
}

}  // namespace

void registerNnShapeOps(OpRegistry& r) {
  r.add(OpDef{.name = "nn.pad",
              .args = {"data", "pad_value"},
              .summary = "pads each axis with a constant, the edge value or a reflection",
              .attrs = attrsType<PadAttrs>(),
              .typeRelation = padRel,
              .pattern = OpPattern::kInjective,
              .kernel = padKernel,
              .supportLevel = 2});
  r.add(OpDef{.name = "nn.batch_flatten",
              .args = {"data"},
              .summary = "flattens all axes but the first",
              .typeRelation = batchFlattenRel,
              .pattern = OpPattern::kInjective,
              .kernel = batchFlattenKernel,
              .reshapeOnly = true,
              .supportLevel = 2});
}

}  // namespace tessera::relay
