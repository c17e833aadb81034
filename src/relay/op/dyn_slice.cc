// dyn.strided_slice (kOpaque, data-dependent shape): a strided slice whose begin, end and strides
// are tensors read when the program runs (TVM's dyn.strided_slice). torchvision's detectors
// split their boxes per image with `split(boxes_per_image)`, a Slice whose end is a count of
// boxes known only at run time. Attrs are strided_slice's: `axes` names the sliced axes (None:
// the leading ones); only slice_mode "end" is read.
#include <algorithm>
#include <string>

#include "relay/op/dynamic.h"
#include "relay/op/op_common.h"
#include "relay/op/op_families.h"
#include "relay/op/tensor.h"
#include "support/diagnostic.h"

namespace tessera::relay {
namespace {

// The sliced axes: `axes`, or the leading `count` axes.
std::vector<int64_t> slicedAxes(const StridedSliceAttrs& a, int64_t count, int64_t rank) {
  std::vector<int64_t> axes;
  if (!a.axes) {
    for (int64_t k = 0; k < count; ++k) axes.push_back(k);
    return axes;
  }
  for (int64_t k : *a.axes) axes.push_back(k < 0 ? k + rank : k);
  return axes;
}

std::optional<Type> dynStridedSliceRel(const TypeReporter& r) {
  const TensorTypeNode* t = r.tensorArg(0);
  if (!t) return std::nullopt;
  int64_t count = -1;
  for (size_t i = 1; i < 4; ++i) {
    const TensorTypeNode* v = r.tensorArg(i);
    if (!v) return std::nullopt;
    if (!v->dtype.isInt() || v->ndim() != 1 || !v->shape[0].isConst() ||
        (count >= 0 && v->shape[0].value() != count))
      r.fail("dyn.strided_slice_c1",
             "begin, end and strides must be 1-D signed integer tensors of one static length, "
             "got " +
                 typeToString(r.arg(i)));
    count = v->shape[0].value();
  }
  const auto& a = r.attrs<StridedSliceAttrs>();
  const int64_t rank = t->ndim();
  if (a.sliceMode != "end")
    r.fail("dyn.strided_slice_c2", "slice_mode must be \"end\", got \"" + a.sliceMode + "\"");
  if ((a.axes && static_cast<int64_t>(a.axes->size()) != count) || (!a.axes && count > rank))
    r.fail("dyn.strided_slice_c2",
           std::to_string(count) + " begin values for " +
               (a.axes ? listToString(*a.axes) : "rank " + std::to_string(rank)));
  Shape shape = t->shape;
  std::vector<bool> seen(static_cast<size_t>(rank), false);
  for (int64_t axis : slicedAxes(a, count, rank)) {
    if (axis < 0 || axis >= rank || seen[axis])
      r.fail("dyn.strided_slice_c2", "axes " + listToString(*a.axes) +
                                         " must be distinct axes of rank " + std::to_string(rank));
    seen[axis] = true;
    shape[axis] = Dim::any();
  }
  return tensorType(std::move(shape), t->dtype);
}

// ONNX Slice's clamping: negative positions count from the end, then begin and end are clamped
// into the axis ([0, d] going forward, [-1, d - 1] going back).
struct Range1D {
  int64_t begin = 0, step = 1, length = 0;
};
Range1D clampedRange(int64_t b, int64_t e, int64_t step, int64_t d) {
  if (step == 0) throwDiagnostic("dyn.strided_slice", "a stride is 0");
  if (b < 0) b += d;
  if (e < 0) e += d;
  if (step > 0) {
    b = std::clamp<int64_t>(b, 0, d);
    e = std::clamp<int64_t>(e, 0, d);
    return {b, step, e > b ? (e - b + step - 1) / step : 0};
  }
  b = std::clamp<int64_t>(b, 0, d - 1);
  e = std::clamp<int64_t>(e, -1, d - 1);
  return {b, step, b > e ? (b - e - step - 1) / -step : 0};
}

Value dynStridedSliceKernel(const std::vector<Value>& args, const AttrsNode* attrs, const Type&) {
  const NDArray& x = tensorAt(args, 0);
  const NDArray &begin = tensorAt(args, 1), &end = tensorAt(args, 2), &strides = tensorAt(args, 3);
  const auto& a = attrsOrDefault<StridedSliceAttrs>(attrs);
  const std::vector<int64_t> axes = slicedAxes(a, begin.numel(), x.ndim());
  std::vector<Range1D> ranges;
  for (int64_t k = 0; k < x.ndim(); ++k) ranges.push_back({0, 1, x.shape()[k]});
  for (size_t i = 0; i < axes.size(); ++i) {
    const auto at = static_cast<int64_t>(i);
    ranges[axes[i]] =
        clampedRange(begin.getInt(at), end.getInt(at), strides.getInt(at), x.shape()[axes[i]]);
  }
  std::vector<int64_t> shape;
  for (const Range1D& r : ranges) shape.push_back(r.length);
  NDArray out = NDArray::empty(shape, x.dtype());
  std::vector<int64_t> coord(shape.size());
  for (int64_t p = 0; p < out.numel(); ++p) {
    coord = unravelIndex(p, shape);
    for (size_t k = 0; k < coord.size(); ++k)
      coord[k] = ranges[k].begin + coord[k] * ranges[k].step;
    const int64_t from = ravelIndex(coord, x.shape());
    if (x.dtype().isFloat())
      out.setFloat(p, x.getFloat(from));
    else if (x.dtype().isInt())
      out.setInt(p, x.getInt(from));
    else
      out.setUInt(p, x.getUInt(from));
  }
  return out;
}

}  // namespace

void registerDynSliceOps(OpRegistry& r) {
  r.add(OpDef{.name = "dyn.strided_slice",
              .args = {"data", "begin", "end", "strides"},
              .summary = "strided slice with begin, end and strides read when the program runs",
              .attrs = attrsType<StridedSliceAttrs>(),
              .typeRelation = dynStridedSliceRel,
              .pattern = OpPattern::kOpaque,
              .kernel = dynStridedSliceKernel,
              .dataDependentShape = true});
}

Expr dynStridedSlice(Expr data, Expr begin, Expr end, Expr strides,
                     std::optional<std::vector<int64_t>> axes) {
  StridedSliceAttrs attrs;
  attrs.axes = std::move(axes);
  return makeCall(opByName("dyn.strided_slice"),
                  {std::move(data), std::move(begin), std::move(end), std::move(strides)},
                  makeAttrs(std::move(attrs)));
}

}  // namespace tessera::relay
