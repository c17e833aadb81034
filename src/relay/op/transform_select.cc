// Selection transforms (kInjective): concatenate and stack (one Tuple argument), split (a
// TupleType result), strided_slice (numpy slicing with clamping), take (gather with clip, wrap or
// fast indexing) and where. Kernels move whole elements bit for bit, so every dtype works.
#include <cstring>
#include <string>

#include "relay/op/op_common.h"
#include "relay/op/op_families.h"
#include "relay/op/shape_func_ops.h"
#include "relay/op/tensor.h"
#include "support/check.h"
#include "support/diagnostic.h"

namespace tessera::relay {
namespace {

// Copies `count` consecutive elements bit for bit; source and destination share the dtype.
void copyElements(const NDArray& from, int64_t i, const NDArray& to, int64_t j, int64_t count) {
  const int64_t size = from.dtype().bytes();
  std::memcpy(static_cast<char*>(to.data()) + j * size,
              static_cast<const char*>(from.data()) + i * size, static_cast<size_t>(count * size));
}

int64_t product(const std::vector<int64_t>& dims, size_t from, size_t to) {
  int64_t n = 1;
  for (size_t k = from; k < to; ++k) n *= dims[k];
  return n;
}

// --- concatenate, stack --------------------------------------------------------------------------

// The tensor types of the single Tuple argument, or nullopt while any is unknown; a non-tuple, an
// empty tuple or a non-tensor field is reported with `code`.
std::optional<std::vector<const TensorTypeNode*>> tupleFields(const TypeReporter& r,
                                                              const std::string& code) {
  const Type& t = r.arg(0);
  if (!t || t->kind == TypeKind::kIncomplete) return std::nullopt;
  const auto* tuple = t->as<TupleTypeNode>();
  if (!tuple || tuple->fields.empty())
    r.fail(code, "data must be a non-empty tuple of tensors but has type " + typeToString(t));
  std::vector<const TensorTypeNode*> out;
  for (const Type& f : tuple->fields) {
    if (!f || f->kind == TypeKind::kIncomplete) return std::nullopt;
    const auto* tensor = f->as<TensorTypeNode>();
    if (!tensor)
      r.fail(code, "data must be a non-empty tuple of tensors but has type " + typeToString(t));
    out.push_back(tensor);
  }
  return out;
}

std::optional<Type> concatenateRel(const TypeReporter& r) {
  const auto fields = tupleFields(r, "concatenate_c1");
  if (!fields) return std::nullopt;
  const TensorTypeNode* first = fields->front();
  const int rank = first->ndim();
  for (const TensorTypeNode* f : *fields) {
    if (f->ndim() != rank || f->dtype != first->dtype) {
      r.fail("concatenate_c2", "all tensors must have the same rank and dtype but " +
                                   typeToString(r.arg(0)) + " mixes them");
    }
  }
  const int axis = normalizeAxis(r.attrs<ConcatenateAttrs>().axis, rank, r, "concatenate_c3");
  Shape out = first->shape;
  Dim total(0);
  for (const TensorTypeNode* f : *fields) {
    for (int k = 0; k < rank; ++k) {
      if (k == axis) continue;
      const Dim& d = f->shape[k];
      if (out[k].isAny()) out[k] = d;
      r.assumeEqual(out[k], d, "dimension " + std::to_string(k) + " of the inputs");
      if (d.isConst() && out[k].isConst() && d.value() != out[k].value()) {
        r.fail("concatenate_c4", "dimension " + std::to_string(k) + " differs between shapes in " +
                                     typeToString(r.arg(0)) + " (only axis " +
                                     std::to_string(axis) + " may differ)");
      }
    }
    const Dim& d = f->shape[axis];
    total = total.isConst() && d.isConst() ? Dim(total.value() + d.value()) : Dim::any();
  }
  out[axis] = total;
  return tensorType(std::move(out), first->dtype);
}

// The output is `outer` slabs; each input contributes a contiguous run of its own slab to each.
Value concatenateKernel(const std::vector<Value>& args, const AttrsNode* attrs,
                        const Type& outType) {
  TS_CHECK(!args.empty() && args[0].isTuple()) << "concatenate expects a tuple";
  const std::vector<Value>& parts = args[0].fields();
  NDArray out = allocTensor(outType);
  const int rank = out.ndim();
  const int64_t axisAttr = attrsOrDefault<ConcatenateAttrs>(attrs).axis;
  const size_t axis = static_cast<size_t>(axisAttr < 0 ? axisAttr + rank : axisAttr);
  const int64_t outer = product(out.shape(), 0, axis);
  int64_t offset = 0;  // in elements within one outer slab of the output
  const int64_t outSlab = product(out.shape(), axis, out.shape().size());
  for (const Value& part : parts) {
    const NDArray& x = part.tensor();
    const int64_t slab = product(x.shape(), axis, x.shape().size());
    for (int64_t o = 0; o < outer; ++o) copyElements(x, o * slab, out, o * outSlab + offset, slab);
    offset += slab;
  }
  return out;
}

std::optional<Type> stackRel(const TypeReporter& r) {
  const auto fields = tupleFields(r, "stack_c1");
  if (!fields) return std::nullopt;
  const TensorTypeNode* first = fields->front();
  for (const TensorTypeNode* f : *fields) {
    bool same = f->dtype == first->dtype && f->ndim() == first->ndim();
    for (int k = 0; same && k < f->ndim(); ++k) {
      const Dim& a = f->shape[k];
      const Dim& b = first->shape[k];
      same = !(a.isConst() && b.isConst()) || a.value() == b.value();
      r.assumeEqual(b, a, "dimension " + std::to_string(k) + " of the inputs");
    }
    if (!same) {
      r.fail("stack_c2", "all tensors must have the same shape and dtype but " +
                             typeToString(r.arg(0)) + " mixes them");
    }
  }
  const int rank = first->ndim();
  const int axis = normalizeAxis(r.attrs<StackAttrs>().axis, rank + 1, r, "stack_c3");
  Shape out = first->shape;
  out.insert(out.begin() + axis, Dim(static_cast<int64_t>(fields->size())));
  return tensorType(std::move(out), first->dtype);
}

Value stackKernel(const std::vector<Value>& args, const AttrsNode* attrs, const Type& outType) {
  TS_CHECK(!args.empty() && args[0].isTuple()) << "stack expects a tuple";
  const std::vector<Value>& parts = args[0].fields();
  NDArray out = allocTensor(outType);
  const int64_t axisAttr = attrsOrDefault<StackAttrs>(attrs).axis;
  const size_t axis = static_cast<size_t>(axisAttr < 0 ? axisAttr + out.ndim() : axisAttr);
  const int64_t outer = product(out.shape(), 0, axis);
  const int64_t inner = product(out.shape(), axis + 1, out.shape().size());
  const int64_t n = static_cast<int64_t>(parts.size());
  for (int64_t p = 0; p < n; ++p) {
    for (int64_t o = 0; o < outer; ++o)
      copyElements(parts[p].tensor(), o * inner, out, (o * n + p) * inner, inner);
  }
  return out;
}

// --- split ---------------------------------------------------------------------------------------

// indices_or_sections is an AttrValue because TVM accepts an int or a list in the same field.
std::optional<Type> splitRel(const TypeReporter& r) {
  const TensorTypeNode* t = r.tensorArg(0);
  if (!t) return std::nullopt;
  const auto& a = r.attrs<SplitAttrs>();
  const int axis = normalizeAxis(a.axis, t->ndim(), r, "split_c4");
  const Dim extent = t->shape[axis];
  const AttrValue& ios = a.indicesOrSections;
  std::vector<Type> fields;
  auto part = [&](Dim d) {
    Shape s = t->shape;
    s[axis] = std::move(d);
    fields.push_back(tensorType(std::move(s), t->dtype));
  };
  if (ios.kind() == AttrValue::Kind::kInt) {
    const int64_t n = ios.asInt();
    if (n <= 0)
      r.fail("split_c1", "the number of sections must be positive but is " + std::to_string(n));
    if (extent.isConst() && extent.value() % n != 0) {
      r.fail("split_c2", "axis " + std::to_string(axis) + " of data of shape " +
                             shapeToString(t->shape) + " cannot be split into " +
                             std::to_string(n) + " equal sections");
    }
    for (int64_t i = 0; i < n; ++i) part(extent.isConst() ? Dim(extent.value() / n) : Dim::any());
    return tupleType(std::move(fields));
  }
  std::vector<int64_t> indices;
  if (ios.kind() != AttrValue::Kind::kArray || !fromAttrValue(ios, indices).empty()) {
    r.fail("split_c1",
           "indices_or_sections must be an integer or a list of integers but is " + ios.str());
  }
  // As in TVM: strictly ascending, the first above 0, the last below the extent.
  int64_t begin = 0;
  for (int64_t index : indices) {
    if (index <= begin || (extent.isConst() && index >= extent.value())) {
      r.fail("split_c3", "indices " + listToString(indices) +
                             " must ascend strictly within (0, extent) of axis " +
                             std::to_string(axis) + " of data of shape " + shapeToString(t->shape));
    }
    part(Dim(index - begin));
    begin = index;
  }
  part(extent.isConst() ? Dim(extent.value() - begin) : Dim::any());
  return tupleType(std::move(fields));
}

// The piece extents come from the inferred TupleType, so the relation's arithmetic is not
// repeated here.
Value splitKernel(const std::vector<Value>& args, const AttrsNode* attrs, const Type& outType) {
  const NDArray& x = tensorAt(args, 0);
  const auto* tuple = outType->as<TupleTypeNode>();
  TS_CHECK(tuple) << "split's type is a tuple";
  const int64_t axisAttr = attrsOrDefault<SplitAttrs>(attrs).axis;
  const size_t axis = static_cast<size_t>(axisAttr < 0 ? axisAttr + x.ndim() : axisAttr);
  const int64_t outer = product(x.shape(), 0, axis);
  const int64_t inSlab = product(x.shape(), axis, x.shape().size());
  std::vector<Value> parts;
  int64_t offset = 0;
  for (const Type& field : tuple->fields) {
    NDArray out = allocTensor(field);
    const int64_t slab = product(out.shape(), axis, out.shape().size());
    for (int64_t o = 0; o < outer; ++o) copyElements(x, o * inSlab + offset, out, o * slab, slab);
    offset += slab;
    parts.emplace_back(out);
  }
  return Value::tuple(std::move(parts));
}

// --- strided_slice -------------------------------------------------------------------------------

// One sliced axis: the request as given, then (once the extent is known) where it starts, its
// step and how many elements it takes.
struct SliceAxis {
  int axis;
  std::optional<int64_t> begin, end;
  int64_t stride;
  int64_t first = 0, length = 0;
};

void resolveSlice(SliceAxis& s, int64_t extent, bool sizeMode) {
  const ResolvedSlice r = resolveSliceAxis(s.begin, s.end, s.stride, extent, sizeMode);
  s.first = r.first;
  s.length = r.length;
}

// The sliced axes of a call; reports strided_slice_c1..c4 when `r` is set.
std::vector<SliceAxis> sliceAxes(const StridedSliceAttrs& a, const Shape& shape,
                                 const TypeReporter* r) {
  const int rank = static_cast<int>(shape.size());
  const std::vector<int64_t> begin = a.begin.value_or(std::vector<int64_t>{});
  const std::vector<int64_t> end = a.end.value_or(std::vector<int64_t>{});
  const std::vector<int64_t> strides = a.strides.value_or(std::vector<int64_t>{});
  auto fail = [&](const char* code, const std::string& msg) {
    TS_CHECK(r) << "strided_slice kernel on an unchecked call";
    r->fail(code, msg + " for data of shape " + shapeToString(shape));
  };
  if (a.sliceMode != "end" && a.sliceMode != "size")
    fail("strided_slice_c4", "slice_mode \"" + a.sliceMode + "\" is not \"end\" or \"size\"");
  std::vector<int> axes;
  if (a.axes) {
    if (begin.size() != a.axes->size() || end.size() != a.axes->size())
      fail("strided_slice_c2", "begin " + listToString(begin) + " and end " + listToString(end) +
                                   " must have one entry per axis of " + listToString(*a.axes));
    for (int64_t axis : *a.axes) {
      const int64_t k = axis < 0 ? axis + rank : axis;
      if (k < 0 || k >= rank)
        fail("strided_slice_c3", "axis " + std::to_string(axis) + " is out of range");
      axes.push_back(static_cast<int>(k));
    }
  } else {
    const size_t n = std::max(begin.size(), end.size());
    if (n > shape.size())
      fail("strided_slice_c2", "begin " + listToString(begin) + " and end " + listToString(end) +
                                   " have more entries than axes");
    for (size_t k = 0; k < n; ++k) axes.push_back(static_cast<int>(k));
  }
  std::vector<SliceAxis> out;
  for (size_t j = 0; j < axes.size(); ++j) {
    SliceAxis s{.axis = axes[j],
                .begin = j < begin.size() ? std::optional(begin[j]) : std::nullopt,
                .end = j < end.size() ? std::optional(end[j]) : std::nullopt,
                .stride = a.sliceMode == "size" ? 1 : (j < strides.size() ? strides[j] : 1)};
    if (s.stride == 0) fail("strided_slice_c1", "strides " + listToString(strides) + " contain 0");
    out.push_back(s);
  }
  return out;
}

std::optional<Type> stridedSliceRel(const TypeReporter& r) {
  const TensorTypeNode* t = r.tensorArg(0);
  if (!t) return std::nullopt;
  const auto& a = r.attrs<StridedSliceAttrs>();
  Shape out = t->shape;
  for (SliceAxis& s : sliceAxes(a, t->shape, &r)) {
    const Dim& d = t->shape[s.axis];
    if (!d.isConst()) {
      out[s.axis] = Dim::any();
      continue;
    }
    resolveSlice(s, d.value(), a.sliceMode == "size");
    out[s.axis] = Dim(s.length);
  }
  return tensorType(std::move(out), t->dtype);
}

}  // namespace

// Clamps like numpy: negative indices count from the end; the range is [0, extent] for forward
// and [-1, extent - 1] for backward steps.
ResolvedSlice resolveSliceAxis(std::optional<int64_t> begin, std::optional<int64_t> end,
                               int64_t stride, int64_t extent, bool sizeMode) {
  if (sizeMode) stride = 1;
  auto canon = [&](int64_t index) {
    if (index < 0) index += extent;
    const int64_t lo = stride < 0 ? -1 : 0;
    const int64_t hi = stride < 0 ? extent - 1 : extent;
    return std::min(std::max(index, lo), hi);
  };
  const int64_t b = begin ? canon(*begin) : (stride > 0 ? 0 : extent - 1);
  int64_t e = end ? canon(*end) : (stride > 0 ? extent : -1);
  if (sizeMode) e = (!end || *end < 0) ? extent : std::min(b + *end, extent);
  const int64_t length = stride > 0 ? std::max<int64_t>(0, (e - b + stride - 1) / stride)
                                    : std::max<int64_t>(0, (b - e - stride - 1) / -stride);
  return {.first = b, .step = stride, .length = length};
}

// A `?` axis sliced with a forward step (a detector's `keep[:300]`): numpy's clamping written
// over the run-time extent n, begin and end each min(i, n) when non-negative, max(i + n, 0)
// otherwise, and ceil((end - begin) / step) elements, none when negative. Backward steps and
// size mode over a `?` axis are left to the relation (no shape function: the build error).
std::optional<SymValue> stridedSliceShapeFunc(const CallNode& call,
                                              const std::vector<SymValue>& in) {
  if (in.empty() || in[0].isTuple) return std::nullopt;
  const auto& a = attrsOrDefault<StridedSliceAttrs>(call.attrs.get());
  SymShape out = in[0].shape;
  Shape shape;
  for (const tir::PrimExpr& d : out) {
    const int64_t* v = tir::asConstInt(d);
    shape.push_back(v ? Dim(*v) : Dim::any());
  }
  auto dim = [](int64_t v) { return tir::intImm(v, DataType::int64()); };
  for (SliceAxis& s : sliceAxes(a, shape, nullptr)) {
    if (shape[s.axis].isConst()) {
      resolveSlice(s, shape[s.axis].value(), a.sliceMode == "size");
      out[s.axis] = dim(s.length);
      continue;
    }
    if (s.stride < 0 || a.sliceMode != "end") return std::nullopt;
    const tir::PrimExpr n = out[s.axis];
    auto canon = [&](int64_t i) {
      return i >= 0 ? tir::min(dim(i), n) : tir::max(n + dim(i), dim(0));
    };
    const tir::PrimExpr begin = s.begin ? canon(*s.begin) : dim(0);
    const tir::PrimExpr end = s.end ? canon(*s.end) : n;
    out[s.axis] = tir::max(tir::floordiv(end - begin + dim(s.stride - 1), dim(s.stride)), dim(0));
  }
  return SymValue{.shape = std::move(out)};
}

namespace {

Value stridedSliceKernel(const std::vector<Value>& args, const AttrsNode* attrs,
                         const Type& outType) {
  const NDArray& x = tensorAt(args, 0);
  const auto& a = attrsOrDefault<StridedSliceAttrs>(attrs);
  NDArray out = allocTensor(outType);
  // Per input axis: start and step (unsliced axes start at 0 with step 1).
  std::vector<int64_t> first(x.ndim(), 0), step(x.ndim(), 1);
  for (SliceAxis& s : sliceAxes(a, makeShape(x.shape()), nullptr)) {
    resolveSlice(s, x.shape()[s.axis], a.sliceMode == "size");
    first[s.axis] = s.first;
    step[s.axis] = s.stride;
  }
  std::vector<int64_t> inCoords(x.ndim());
  for (int64_t o = 0; o < out.numel(); ++o) {
    const std::vector<int64_t> c = unravelIndex(o, out.shape());
    for (int k = 0; k < x.ndim(); ++k) inCoords[k] = first[k] + c[k] * step[k];
    copyElements(x, ravelIndex(inCoords, x.shape()), out, o, 1);
  }
  return out;
}

// --- take ----------------------------------------------------------------------------------------

// Output: data[:axis] + indices[batch_dims:] + data[axis+1:] (TVM's TakeRel).
std::optional<Type> takeRel(const TypeReporter& r) {
  const TensorTypeNode* data = r.tensorArg(0);
  const TensorTypeNode* indices = r.tensorArg(1);
  if (!data || !indices) return std::nullopt;
  const auto& a = r.attrs<TakeAttrs>();
  if (!indices->dtype.isInteger()) {
    r.fail("take_c1", "indices of type " + typeToString(r.arg(1)) + " must be integers");
  }
  if (a.mode != "clip" && a.mode != "wrap" && a.mode != "fast")
    r.fail("take_c4", "mode \"" + a.mode + "\" is not \"clip\", \"wrap\" or \"fast\"");
  if (!a.axis) {
    if (a.batchDims != 0)
      r.fail("take_c3", "batch_dims must be 0 when axis is None (data is flattened)");
    return tensorType(indices->shape, data->dtype);
  }
  const int axis = normalizeAxis(*a.axis, data->ndim(), r, "take_c2");
  const int batch = a.batchDims < 0 ? a.batchDims + indices->ndim() : a.batchDims;
  if (batch < 0 || batch > axis || batch > indices->ndim()) {
    r.fail("take_c3", "batch_dims " + std::to_string(a.batchDims) + " is invalid for axis " +
                          std::to_string(axis) + ", data of shape " + shapeToString(data->shape) +
                          " and indices of shape " + shapeToString(indices->shape));
  }
  Shape out(data->shape.begin(), data->shape.begin() + axis);
  out.insert(out.end(), indices->shape.begin() + batch, indices->shape.end());
  out.insert(out.end(), data->shape.begin() + axis + 1, data->shape.end());
  return tensorType(std::move(out), data->dtype);
}

// Applies the take mode to one index along an axis of `extent` elements.
int64_t resolveIndex(int64_t index, int64_t extent, const std::string& mode) {
  if (extent == 0 || (mode == "fast" && (index < 0 || index >= extent))) {
    throwDiagnostic("take_c5",
                    "index " + std::to_string(index) + " is out of range for an axis of extent " +
                        std::to_string(extent) + " (mode \"" + mode + "\")",
                    Span{}, "take");
  }
  if (mode == "wrap") return ((index % extent) + extent) % extent;
  if (mode == "clip") return std::min(std::max<int64_t>(index, 0), extent - 1);
  return index;
}

// Each output coordinate splits into (data prefix, index coordinates, data suffix); the batch
// coordinates are shared between data and indices.
Value takeKernel(const std::vector<Value>& args, const AttrsNode* attrs, const Type& outType) {
  const NDArray& data = tensorAt(args, 0);
  const NDArray& indices = tensorAt(args, 1);
  const auto& a = attrsOrDefault<TakeAttrs>(attrs);
  NDArray out = allocTensor(outType);
  if (!a.axis) {
    for (int64_t o = 0; o < out.numel(); ++o)
      copyElements(data, resolveIndex(indices.getInt(o), data.numel(), a.mode), out, o, 1);
    return out;
  }
  const int axis = static_cast<int>(*a.axis < 0 ? *a.axis + data.ndim() : *a.axis);
  const int batch = a.batchDims < 0 ? a.batchDims + indices.ndim() : a.batchDims;
  const int gathered = indices.ndim() - batch;  // index axes that appear in the output
  std::vector<int64_t> indexCoords(indices.ndim()), dataCoords(data.ndim());
  for (int64_t o = 0; o < out.numel(); ++o) {
    const std::vector<int64_t> c = unravelIndex(o, out.shape());
    for (int k = 0; k < batch; ++k) indexCoords[k] = c[k];
    for (int k = 0; k < gathered; ++k) indexCoords[batch + k] = c[axis + k];
    const int64_t index = indices.getInt(ravelIndex(indexCoords, indices.shape()));
    for (int k = 0; k < axis; ++k) dataCoords[k] = c[k];
    dataCoords[axis] = resolveIndex(index, data.shape()[axis], a.mode);
    for (int k = axis + 1; k < data.ndim(); ++k) dataCoords[k] = c[k - 1 + gathered];
    copyElements(data, ravelIndex(dataCoords, data.shape()), out, o, 1);
  }
  return out;
}

// --- where ---------------------------------------------------------------------------------------

std::optional<Type> whereRel(const TypeReporter& r) {
  const TensorTypeNode* cond = r.tensorArg(0);
  const TensorTypeNode* x = r.tensorArg(1);
  const TensorTypeNode* y = r.tensorArg(2);
  if (!cond || !x || !y) return std::nullopt;
  if (!cond->dtype.isBool())
    r.fail("where_c1", "condition of type " + typeToString(r.arg(0)) + " must be bool");
  if (x->dtype != y->dtype) {
    r.fail("where_c2", "x " + typeToString(r.arg(1)) + " and y " + typeToString(r.arg(2)) +
                           " must have the same dtype");
  }
  Shape shape = broadcastShapes(cond->shape, x->shape, r, "where_c3");
  shape = broadcastShapes(shape, y->shape, r, "where_c3");
  return tensorType(std::move(shape), x->dtype);
}

Value whereKernel(const std::vector<Value>& args, const AttrsNode*, const Type& outType) {
  const NDArray& cond = tensorAt(args, 0);
  const NDArray& x = tensorAt(args, 1);
  const NDArray& y = tensorAt(args, 2);
  NDArray out = allocTensor(outType);
  const BroadcastIndexer ic(cond.shape(), out.shape());
  const BroadcastIndexer ix(x.shape(), out.shape());
  const BroadcastIndexer iy(y.shape(), out.shape());
  for (int64_t o = 0; o < out.numel(); ++o) {
    if (cond.getUInt(ic.map(o)) != 0)
      copyElements(x, ix.map(o), out, o, 1);
    else
      copyElements(y, iy.map(o), out, o, 1);
  }
  return out;
}

}  // namespace

// where is kBroadcast as in TVM (its output is a broadcast of three inputs); the rest are
// kInjective.
void registerSelectOps(OpRegistry& r) {
  r.add(OpDef{.name = "concatenate",
              .args = {"data"},
              .summary = "join a tuple of tensors along axis",
              .attrs = attrsType<ConcatenateAttrs>(),
              .typeRelation = concatenateRel,
              .shapeFunc = concatenateShapeFunc,
              .pattern = OpPattern::kInjective,
              .kernel = concatenateKernel});
  r.add(OpDef{.name = "stack",
              .args = {"data"},
              .summary = "stack a tuple of equal-shaped tensors along a new axis",
              .attrs = attrsType<StackAttrs>(),
              .typeRelation = stackRel,
              .pattern = OpPattern::kInjective,
              .kernel = stackKernel});
  r.add(OpDef{.name = "split",
              .args = {"data"},
              .summary = "split into equal sections or before given indices (tuple result)",
              .attrs = attrsType<SplitAttrs>(),
              .typeRelation = splitRel,
              .pattern = OpPattern::kInjective,
              .kernel = splitKernel});
  r.add(OpDef{.name = "strided_slice",
              .args = {"data"},
              .summary = "numpy-style slice with begin, end and strides",
              .attrs = attrsType<StridedSliceAttrs>(),
              .typeRelation = stridedSliceRel,
              .shapeFunc = stridedSliceShapeFunc,
              .pattern = OpPattern::kInjective,
              .kernel = stridedSliceKernel});
  r.add(OpDef{.name = "take",
              .args = {"data", "indices"},
              .summary = "gather elements along axis (clip, wrap or fast indexing)",
              .attrs = attrsType<TakeAttrs>(),
              .typeRelation = takeRel,
              .pattern = OpPattern::kInjective,
              .kernel = takeKernel});
  r.add(OpDef{.name = "where",
              .args = {"condition", "x", "y"},
              .summary = "condition ? x : y with broadcasting",
              .typeRelation = whereRel,
              .pattern = OpPattern::kBroadcast,
              .kernel = whereKernel});
}

// --- builders ------------------------------------------------------------------------------------

// concatenate and stack take one Tuple argument, as in TVM; the builders make the Tuple.
Expr concatenate(std::vector<Expr> fields, int axis) {
  return makeCall(opByName("concatenate"), {makeTuple(std::move(fields))},
                  makeAttrs(ConcatenateAttrs{.axis = axis}));
}
Expr stack(std::vector<Expr> fields, int axis) {
  return makeCall(opByName("stack"), {makeTuple(std::move(fields))},
                  makeAttrs(StackAttrs{.axis = axis}));
}
Expr split(Expr data, int64_t sections, int axis) {
  return makeCall(
      opByName("split"), {std::move(data)},
      makeAttrs(SplitAttrs{.indicesOrSections = AttrValue::integer(sections), .axis = axis}));
}
Expr split(Expr data, std::vector<int64_t> indices, int axis) {
  return makeCall(opByName("split"), {std::move(data)},
                  makeAttrs(SplitAttrs{.indicesOrSections = toAttrValue(indices), .axis = axis}));
}
Expr stridedSlice(Expr data, std::vector<int64_t> begin, std::vector<int64_t> end,
                  std::vector<int64_t> strides, std::optional<std::vector<int64_t>> axes,
                  std::string sliceMode) {
  return makeCall(opByName("strided_slice"), {std::move(data)},
                  makeAttrs(StridedSliceAttrs{.begin = std::move(begin),
                                              .end = std::move(end),
                                              .strides = std::move(strides),
                                              .sliceMode = std::move(sliceMode),
                                              .axes = std::move(axes)}));
}
Expr take(Expr data, Expr indices, std::optional<int64_t> axis, std::string mode, int batchDims) {
  return makeCall(
      opByName("take"), {std::move(data), std::move(indices)},
      makeAttrs(TakeAttrs{.batchDims = batchDims, .axis = axis, .mode = std::move(mode)}));
}
Expr where(Expr condition, Expr x, Expr y) {
  return makeCall(opByName("where"), {std::move(condition), std::move(x), std::move(y)});
}

}  // namespace tessera::relay
