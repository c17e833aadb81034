// ONNX operators that select, join or create tensors: Concat, Split, Slice, Gather,
// GatherElements, Hardmax, Trilu, Constant, ConstantOfShape, EyeLike and Range. Index-like inputs
// (split sizes, slice bounds) must be known at import time; creation ops produce constants when
// small and Relay `full` otherwise.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "frontend/onnx/context.h"
#include "frontend/onnx/tensor_proto.h"
#include "relay/op/dynamic.h"
#include "relay/op/tensor.h"

namespace tessera::frontend::onnx {

namespace {

using relay::Expr;

// Concat: `axis` is required (no default in any opset); negative counts from the end.
void concat(NodeContext& n) {
  std::optional<int64_t> axis = n.attrIntOpt("axis");
  if (!axis) n.fail("onnx_attr", "attribute 'axis' is required");
  std::vector<Expr> fields;
  for (size_t i = 0; i < n.numInputs(); ++i) fields.push_back(n.input(i));
  if (fields.empty()) n.fail("onnx_input", "Concat needs at least one input");
  const int64_t k = n.normalizeAxis(*axis, n.inputRank(0));
  n.setOutput(0, relay::concatenate(fields, static_cast<int>(k)));
}

// Split sizes: the 'split' attribute before opset 13, an optional input since; without them,
// one part per output: equal parts before opset 18, and since 18 (with or without num_outputs)
// parts of ceil(extent / parts) with a smaller last one, as ONNX's reference splits.
void split(NodeContext& n) {
  // Other axes may be `?` (boxes selected at run time, split into coordinates).
  const std::vector<int64_t> in = n.inputDims(0);
  const int64_t axis = n.normalizeAxis(n.attrInt("axis", 0), static_cast<int64_t>(in.size()));
  if (in[axis] < 0) (void)n.inputShape(0);  // the diagnostic naming the `?` extent
  const int64_t extent = in[axis];
  std::optional<std::vector<int64_t>> sizes;
  if (n.opset() >= 13 && n.hasAttr("split"))
    n.fail("onnx_attr", "since opset 13 'split' is an input, not an attribute");
  if (n.hasInput(1))
    sizes = n.constantInts(1, "split");
  else
    sizes = n.attrInts("split");
  const auto parts = static_cast<int64_t>(n.numOutputs());
  if (parts == 0) n.fail("onnx_output", "Split needs at least one output");
  if (std::optional<int64_t> count = n.opset() >= 18 ? n.attrIntOpt("num_outputs") : std::nullopt) {
    if (sizes) n.fail("onnx_attr", "'num_outputs' and the split input are given together");
    if (*count != parts)
      n.fail("onnx_attr", "num_outputs is " + std::to_string(*count) + " but the node has " +
                              std::to_string(parts) + " outputs");
  }
  if (!sizes && n.opset() >= 18) {
    const int64_t chunk = (extent + parts - 1) / parts;
    if (chunk * (parts - 1) > extent)
      n.fail("onnx_shape", "axis " + std::to_string(axis) + " of extent " + std::to_string(extent) +
                               " has too few elements for " + std::to_string(parts) + " parts of " +
                               std::to_string(chunk));
    sizes = std::vector<int64_t>(parts, chunk);
    sizes->back() = extent - chunk * (parts - 1);
  }
  if (!sizes) {
    if (extent % parts != 0)
      n.fail("onnx_shape", "axis " + std::to_string(axis) + " of extent " + std::to_string(extent) +
                               " does not split into " + std::to_string(parts) + " equal parts");
    sizes = std::vector<int64_t>(parts, extent / parts);
  }
  if (static_cast<int64_t>(sizes->size()) != parts)
    n.fail("onnx_attr", "split has " + std::to_string(sizes->size()) + " sizes for " +
                            std::to_string(parts) + " outputs");
  std::vector<int64_t> indices;
  int64_t offset = 0;
  for (int64_t s : *sizes) {
    if (s < 0 || s > extent - offset)
      n.fail("onnx_attr", "split sizes do not add up to the extent " + std::to_string(extent) +
                              " of axis " + std::to_string(axis));
    offset += s;
    indices.push_back(offset);
  }
  if (offset != extent)
    n.fail("onnx_attr", "split sizes add up to " + std::to_string(offset) + ", not the extent " +
                            std::to_string(extent) + " of axis " + std::to_string(axis));
  if (parts == 1) {
    n.setOutput(0, n.input(0));
    return;
  }
  // Relay's split needs strictly ascending indices; ONNX allows empty parts, which become
  // empty slices.
  if (std::find(sizes->begin(), sizes->end(), 0) != sizes->end()) {
    int64_t begin = 0;
    for (int64_t i = 0; i < parts; ++i) {
      const int64_t end = indices[static_cast<size_t>(i)];
      n.setOutput(static_cast<size_t>(i),
                  relay::stridedSlice(n.input(0), {begin}, {end}, {1}, std::vector<int64_t>{axis}));
      begin = end;
    }
    return;
  }
  indices.pop_back();
  Expr tuple = relay::split(n.input(0), indices, static_cast<int>(axis));
  for (int64_t i = 0; i < parts; ++i)
    n.setOutput(static_cast<size_t>(i), relay::makeTupleGetItem(tuple, static_cast<int>(i)));
}

// Slice with starts, ends or steps known only at run time (a detector's
// `split(boxes_per_image)`, whose end is a count of boxes): dyn.strided_slice reads them when the
// program runs. The axes must be known here, since they decide which extents become `?`.
void sliceAtRunTime(NodeContext& n) {
  const int64_t rank = n.inputRank(0);
  std::optional<std::vector<int64_t>> axes;
  if (n.hasInput(3)) {
    axes.emplace();
    for (int64_t a : n.constantInts(3, "axes"))
      axes->push_back(n.normalizeAxis(a, rank, "axes entry"));
  }
  Expr steps = n.hasInput(4) ? n.input(4) : Expr{};
  if (!steps) {
    const int64_t count = n.inputType(1).ndim() == 1 && n.inputType(1).shape[0].isConst()
                              ? n.inputType(1).shape[0].value()
                              : -1;
    if (count < 0) n.fail("onnx_input", "starts must be a 1-D tensor of static length");
    NDArray ones = NDArray::empty({count}, DataType::int64());
    for (int64_t k = 0; k < count; ++k) ones.setInt(k, 1);
    steps = relay::makeConstant(ones);
  }
  n.setOutput(0, relay::dynStridedSlice(n.input(0), n.input(1), n.input(2), steps, axes));
}

// Slice (opset 10+ input form): starts, ends, optional axes and steps, all known at import time.
// strided_slice clamps like ONNX (negative indices count from the end).
void slice(NodeContext& n) {
  const int64_t rank = n.inputRank(0);
  if (!n.constantInput(1) || !n.constantInput(2) || (n.hasInput(4) && !n.constantInput(4))) {
    sliceAtRunTime(n);
    return;
  }
  const std::vector<int64_t> starts = n.constantInts(1, "starts");
  const std::vector<int64_t> ends = n.constantInts(2, "ends");
  std::vector<int64_t> axes;
  if (n.hasInput(3)) {
    for (int64_t a : n.constantInts(3, "axes"))
      axes.push_back(n.normalizeAxis(a, rank, "axes entry"));
  } else {
    for (size_t k = 0; k < starts.size(); ++k) axes.push_back(static_cast<int64_t>(k));
  }
  std::vector<int64_t> steps =
      n.hasInput(4) ? n.constantInts(4, "steps") : std::vector<int64_t>(starts.size(), 1);
  if (starts.size() != ends.size() || starts.size() != axes.size() || starts.size() != steps.size())
    n.fail("onnx_input", "starts, ends, axes and steps must have the same length");
  for (int64_t s : steps)
    if (s == 0) n.fail("onnx_input", "steps must not be 0");
  for (size_t i = 0; i < axes.size(); ++i)
    for (size_t j = i + 1; j < axes.size(); ++j)
      if (axes[i] == axes[j])
        n.fail("onnx_input", "axis " + std::to_string(axes[i]) + " is sliced twice");
  if (axes.empty()) {
    n.setOutput(0, n.input(0));
    return;
  }
  // A step longer than the axis selects at most one element either way; clamping it keeps the
  // slice arithmetic far from overflow. A `?` axis (-1; a count known at run time, as a
  // detector's `keep[:300]`) is clamped by strided_slice's shape function when the program runs.
  const std::vector<int64_t> in = n.inputDims(0);
  for (size_t k = 0; k < steps.size(); ++k) {
    if (in[axes[k]] < 0) continue;
    const int64_t limit = std::max<int64_t>(in[axes[k]], 1);
    steps[k] = steps[k] > 0 ? std::min(steps[k], limit) : std::max(steps[k], -limit);
  }
  n.setOutput(0, relay::stridedSlice(n.input(0), starts, ends, steps, axes));
}

// Gather: known indices are range-checked and made non-negative; run-time indices wrap, which
// matches ONNX for every valid (possibly negative) index.
void gather(NodeContext& n) {
  const TensorTypeNode& type = n.inputType(0);
  const int64_t axis = n.normalizeAxis(n.attrInt("axis", 0), type.ndim());
  if (!n.inputDtype(1).isInteger()) n.fail("onnx_input", "indices must be integers");
  std::optional<NDArray> indices = n.constantInput(1);
  // Run-time indices, or an axis whose extent is known only at run time (boxes selected by a
  // threshold): take's wrap mode counts negative indices from the end when the program runs.
  if (!indices || !type.shape[axis].isConst()) {
    n.setOutput(0, relay::take(n.input(0), n.input(1), axis, "wrap"));
    return;
  }
  const int64_t extent = type.shape[axis].value();
  NDArray fixed = NDArray::empty(indices->shape(), DataType::int64());
  for (int64_t i = 0; i < indices->numel(); ++i) {
    int64_t v = indices->getInt(i);
    if (v < -extent || v >= extent)
      n.fail("onnx_input", "index " + std::to_string(v) + " is out of range for axis " +
                               std::to_string(axis) + " of extent " + std::to_string(extent));
    fixed.as<int64_t>()[i] = v < 0 ? v + extent : v;
  }
  n.setOutput(0, relay::take(n.input(0), relay::makeConstant(fixed), axis));
}

// GatherElements as a take from the flattened data: the flat index of output element p is the
// flat offset of p's coordinates with the axis coordinate removed (a constant table over the
// static index shape) plus index(p) times the axis stride. Negative indices count from the end.
void gatherElements(NodeContext& n) {
  const std::vector<int64_t> in = n.inputShape(0);
  const std::vector<int64_t> idx = n.inputShape(1);
  const int64_t rank = static_cast<int64_t>(in.size());
  const int64_t axis = n.normalizeAxis(n.attrInt("axis", 0), rank);
  if (!n.inputDtype(1).isInteger()) n.fail("onnx_input", "indices must be integers");
  if (static_cast<int64_t>(idx.size()) != rank)
    n.fail("onnx_input", "indices must have the data's rank " + std::to_string(rank));
  std::vector<int64_t> strides(in.size(), 1);
  for (int64_t d = rank - 2; d >= 0; --d) strides[d] = strides[d + 1] * in[d + 1];
  NDArray offsets = NDArray::empty(idx, DataType::int64());
  std::vector<int64_t> c(idx.size(), 0);
  for (int64_t p = 0; p < offsets.numel(); ++p) {
    int64_t flat = 0;
    for (int64_t d = 0; d < rank; ++d)
      if (d != axis) flat += c[d] * strides[d];
    offsets.as<int64_t>()[p] = flat;
    for (int64_t d = rank - 1; d >= 0 && ++c[d] == idx[d]; --d) c[d] = 0;  // next coordinate
  }
  const relay::Expr index = relay::cast(n.input(1), DataType::int64());
  const relay::Expr extent = scalarConstant(static_cast<double>(in[axis]), DataType::int64());
  const relay::Expr wrapped = relay::where(relay::less(index, scalarConstant(0, DataType::int64())),
                                           relay::add(index, extent), index);
  const relay::Expr flat = relay::add(
      relay::makeConstant(offsets),
      relay::multiply(wrapped,
                      scalarConstant(static_cast<double>(strides[axis]), DataType::int64())));
  n.setOutput(0, relay::take(n.input(0), flat, std::nullopt, "clip"));
}

// GatherND: data's first batch_dims + k axes flattened into one, each index tuple (the last axis
// of `indices`, k long; negative entries count from the end) turned into a flat position — plus
// the batch position times the size of one batch's block — and gathered with `take`.
void gatherNd(NodeContext& n) {
  const std::vector<int64_t> d = n.inputShape(0);
  const TensorTypeNode& qType = n.inputType(1);
  const int64_t batch = n.attrInt("batch_dims", 0);
  if (qType.ndim() == 0 || batch < 0 || batch >= static_cast<int64_t>(qType.ndim()))
    n.fail("onnx_input", "indices must have rank > batch_dims");
  // Indices selected at run time (a detector's boxes past a threshold: NonZero's `?` count) keep
  // their `?` extents through take; only the tuple length and batch_dims' offsets need constants.
  if (!qType.shape.back().isConst() || batch > 0)
    (void)n.inputShape(1);  // the diagnostic naming the `?` extent
  const std::vector<int64_t> q = n.inputDims(1);
  const int64_t k = q.back();
  if (k < 1 || batch + k > static_cast<int64_t>(d.size()))
    n.fail("onnx_input", "each index tuple must address at most the data's rank less batch_dims");
  for (int64_t a = 0; a < batch; ++a)
    if (d[a] != q[a]) n.fail("onnx_input", "the batch axes of data and indices differ");
  const DataType i64 = DataType::int64();
  const Expr indices = relay::cast(n.input(1), i64);
  std::vector<int64_t> stride(static_cast<size_t>(k), 1);
  for (int64_t j = k - 2; j >= 0; --j) stride[j] = stride[j + 1] * d[batch + j + 1];
  const int64_t block = stride[0] * d[batch];
  Expr flat;
  for (int64_t j = 0; j < k; ++j) {
    Expr idx = relay::take(indices, scalarConstant(static_cast<double>(j), i64),
                           static_cast<int64_t>(q.size()) - 1, "clip");
    const Expr extent = scalarConstant(static_cast<double>(d[batch + j]), i64);
    idx = relay::where(relay::less(idx, scalarConstant(0, i64)), relay::add(idx, extent), idx);
    idx = relay::multiply(idx, scalarConstant(static_cast<double>(stride[j]), i64));
    flat = flat ? relay::add(flat, idx) : idx;
  }
  if (batch > 0) {  // the batch position of every index tuple, as a constant
    std::vector<int64_t> along(q.begin(), q.end() - 1);
    for (size_t a = static_cast<size_t>(batch); a < along.size(); ++a) along[a] = 1;
    NDArray offset = NDArray::empty(along, i64);
    for (int64_t p = 0; p < offset.numel(); ++p) offset.setInt(p, p * block);
    flat = relay::add(flat, relay::makeConstant(offset));
  }
  std::vector<int64_t> flatShape = {extentProduct(d, 0, static_cast<size_t>(batch + k))};
  flatShape.insert(flatShape.end(), d.begin() + batch + k, d.end());
  n.setOutput(0, relay::take(relay::reshape(n.input(0), flatShape), flat, 0, "clip"));
}

// EyeLike: ones on the diagonal shifted by k, of the input's static shape (a constant).
void eyeLike(NodeContext& n) {
  const std::vector<int64_t> s = n.inputShape(0);
  if (s.size() != 2) n.fail("onnx_input", "input 0 must have rank 2");
  DataType dtype = n.inputDtype(0);
  if (std::optional<int64_t> to = n.attrIntOpt("dtype")) {
    std::optional<DataType> named = dataTypeOf(static_cast<int32_t>(*to));
    if (!named) n.badAttr("dtype", onnxTypeName(static_cast<int32_t>(*to)), "numeric types");
    dtype = *named;
  }
  const int64_t k = n.attrInt("k", 0);
  NDArray eye = NDArray::empty(s, dtype);
  for (int64_t i = 0; i < s[0]; ++i)
    for (int64_t j = 0; j < s[1]; ++j) eye.setFloat(i * s[1] + j, j - i == k ? 1 : 0);
  n.setOutput(0, relay::makeConstant(eye));
}

// Hardmax (opset 13: one axis): 1 where the first maximum along the axis is, 0 elsewhere — the
// argmax compared with a constant arange laid along the axis.
void hardmax(NodeContext& n) {
  const std::vector<int64_t> s = n.inputShape(0);
  const int64_t rank = static_cast<int64_t>(s.size());
  const int64_t axis = n.normalizeAxis(n.attrInt("axis", n.opset() < 13 ? 1 : -1), rank);
  if (n.opset() < 13 && axis != rank - 1)
    n.fail("onnx_attr", "Hardmax before opset 13 coerces the input to 2-D at axis " +
                            std::to_string(axis) + "; only the last axis is supported");
  std::vector<int64_t> along(s.size(), 1);
  along[axis] = s[axis];
  NDArray positions = NDArray::empty(along, DataType::int32());
  for (int64_t i = 0; i < s[axis]; ++i) positions.setInt(i, i);
  const relay::Expr first = relay::argmax(
      n.input(0), relay::ArgReduceAttrs{.axis = std::vector<int64_t>{axis}, .keepdims = true});
  n.setOutput(0, relay::cast(relay::equal(relay::makeConstant(positions), first), n.inputDtype(0)));
}

// OneHot: `values[1]` where the (wrapped) index equals the position along the new axis,
// `values[0]` elsewhere; depth must be known at import time.
void oneHot(NodeContext& n) {
  const int64_t depth = static_cast<int64_t>(n.constantScalar(1, "depth"));
  if (depth <= 0) n.fail("onnx_input", "depth must be positive, not " + std::to_string(depth));
  const int64_t rank = n.inputRank(0) + 1;
  const int64_t axis = n.normalizeAxis(n.attrInt("axis", -1), rank);
  const Expr index = relay::cast(n.input(0), DataType::int64());
  const Expr d = scalarConstant(static_cast<double>(depth), DataType::int64());
  const Expr wrapped = relay::where(relay::less(index, scalarConstant(0, DataType::int64())),
                                    relay::add(index, d), index);
  std::vector<int64_t> along(static_cast<size_t>(rank), 1);
  along[axis] = depth;
  NDArray positions = NDArray::empty(along, DataType::int64());
  for (int64_t i = 0; i < depth; ++i) positions.setInt(i, i);
  const Expr hot = relay::equal(relay::expandDims(wrapped, static_cast<int>(axis)),
                                relay::makeConstant(positions));
  const Expr values = n.input(2);
  const Expr off = relay::take(values, scalarConstant(0, DataType::int64()), 0);
  const Expr on = relay::take(values, scalarConstant(1, DataType::int64()), 0);
  n.setOutput(0, relay::where(hot, on, off));
}

// Tile: each axis repeated; the data is interleaved with unit axes, broadcast and folded back.
void tile(NodeContext& n) {
  const std::vector<int64_t> s = n.inputShape(0);
  const std::vector<int64_t> repeats = n.constantInts(1, "repeats");
  if (repeats.size() != s.size())
    n.fail("onnx_input", "repeats has " + std::to_string(repeats.size()) +
                             " entries for an input of rank " + std::to_string(s.size()));
  std::vector<int64_t> interleaved, broadcast, out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (repeats[i] < 0) n.fail("onnx_input", "repeats must not be negative");
    interleaved.insert(interleaved.end(), {1, s[i]});
    broadcast.insert(broadcast.end(), {repeats[i], s[i]});
    out.push_back(repeats[i] * s[i]);
  }
  const Expr spread = relay::broadcastTo(relay::reshape(n.input(0), interleaved), broadcast);
  n.setOutput(0, relay::reshape(spread, out));
}

void constant(NodeContext& n) {
  const ::onnx::NodeProto& p = n.proto();
  if (p.attribute_size() != 1)
    n.fail("onnx_attr",
           "Constant needs exactly one attribute but has " + std::to_string(p.attribute_size()));
  const std::string& name = p.attribute(0).name();
  if (name == "value") {
    n.setOutput(0, relay::makeConstant(*n.attrTensor("value")));
  } else if (name == "value_float") {
    n.setOutput(0, scalarConstant(*n.attrFloatOpt("value_float"), DataType::float32()));
  } else if (name == "value_int") {
    n.setOutput(
        0, relay::makeConstant(NDArray::scalarInt(*n.attrIntOpt("value_int"), DataType::int64())));
  } else if (name == "value_floats") {
    const std::vector<float> v = *n.attrFloats("value_floats");
    NDArray a = NDArray::empty({static_cast<int64_t>(v.size())}, DataType::float32());
    for (size_t i = 0; i < v.size(); ++i) a.as<float>()[i] = v[i];
    n.setOutput(0, relay::makeConstant(a));
  } else if (name == "value_ints") {
    n.setOutput(0, int64Constant(*n.attrInts("value_ints")));
  } else {
    n.badAttr(name, "(given)", "value, value_float, value_floats, value_int, value_ints");
  }
}

// ConstantOfShape: `value` (a one-element tensor, default float 0) repeated over a known shape.
void constantOfShape(NodeContext& n) {
  const std::vector<int64_t> shape = n.constantInts(0, "shape");
  if (static_cast<int64_t>(shape.size()) > kMaxRank)
    n.fail("onnx_shape", "rank " + std::to_string(shape.size()) + " exceeds the supported " +
                             std::to_string(kMaxRank));
  NDArray fill = NDArray::scalar(0, DataType::float32());
  if (std::optional<NDArray> value = n.attrTensor("value")) {
    if (value->numel() != 1) n.fail("onnx_attr", "'value' must hold exactly one element");
    fill = value->reshaped({});
  }
  int64_t numel = 1;
  for (int64_t d : shape) {
    if (d < 0) n.fail("onnx_shape", "the shape has a negative extent " + std::to_string(d));
    if (__builtin_mul_overflow(numel, d, &numel))
      n.fail("onnx_shape", "the shape's size overflows");
  }
  if (numel > kMaxFoldElements) {
    n.setOutput(0, relay::full(relay::makeConstant(fill), shape, fill.dtype()));
    return;
  }
  NDArray out = NDArray::empty(shape, fill.dtype());
  const size_t elem = static_cast<size_t>(fill.dtype().bytes());
  for (int64_t i = 0; i < numel; ++i)
    std::memcpy(static_cast<char*>(out.data()) + i * elem, fill.data(), elem);
  n.setOutput(0, relay::makeConstant(out));
}

// Range: start, limit and delta must be known; the result is a constant.
void range(NodeContext& n) {
  const DataType dtype = n.inputDtype(0);
  for (size_t i = 1; i < 3; ++i)
    if (n.inputDtype(i) != dtype) n.fail("onnx_input", "start, limit and delta must share a type");
  if (dtype.isFloat()) {
    const double start = n.constantScalar(0, "start");
    const double delta = n.constantScalar(2, "delta");
    if (delta == 0) n.fail("onnx_input", "delta must not be 0");
    const double count = std::ceil((n.constantScalar(1, "limit") - start) / delta);
    if (!(count < static_cast<double>(kMaxFoldElements)))
      n.fail("onnx_shape", "the range is too long or not finite");
    const int64_t length = count > 0 ? static_cast<int64_t>(count) : 0;
    NDArray out = NDArray::empty({length}, dtype);
    for (int64_t i = 0; i < length; ++i) out.setFloat(i, start + static_cast<double>(i) * delta);
    n.setOutput(0, relay::makeConstant(out));
    return;
  }
  auto one = [&](size_t i, const char* what) {
    std::vector<int64_t> v = n.constantInts(i, what);
    if (v.size() != 1) n.fail("onnx_input", std::string(what) + " must hold one value");
    return v[0];
  };
  const int64_t start = one(0, "start"), limit = one(1, "limit"), delta = one(2, "delta");
  if (delta == 0) n.fail("onnx_input", "delta must not be 0");
  // Count in double: exact enough to bound the length, and it cannot overflow.
  const double count = std::ceil((static_cast<double>(limit) - static_cast<double>(start)) /
                                 static_cast<double>(delta));
  if (!(count < static_cast<double>(kMaxFoldElements)))
    n.fail("onnx_shape", "the range is too long");
  const int64_t length = count > 0 ? static_cast<int64_t>(count) : 0;
  NDArray out = NDArray::empty({length}, dtype);
  for (int64_t i = 0; i < length; ++i) out.setInt(i, start + i * delta);
  n.setOutput(0, relay::makeConstant(out));
}

// Trilu: the upper (upper=1) or lower triangle of the last two axes, diagonal shifted by k (an
// optional input, which may be run-time data), zero elsewhere: a constant (rows, cols) table of
// col - row compared with k selects the elements.
void trilu(NodeContext& n) {
  const std::vector<int64_t> shape = n.inputShape(0);
  if (shape.size() < 2) n.fail("onnx_input", "input 0 must have rank 2 or more");
  const bool upper = n.attrInt("upper", 1) != 0;
  const int64_t rows = shape[shape.size() - 2], cols = shape.back();
  NDArray offset = NDArray::empty({rows, cols}, DataType::int64());
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) offset.setInt(i * cols + j, j - i);
  relay::Expr k = n.hasInput(1) ? relay::cast(n.input(1), DataType::int64())
                                : scalarConstant(0, DataType::int64());
  relay::Expr diagonal = relay::makeConstant(offset);
  relay::Expr keep = upper ? relay::greaterEqual(diagonal, k) : relay::lessEqual(diagonal, k);
  n.setOutput(0, relay::where(keep, n.input(0), scalarConstant(0, n.inputDtype(0))));
}

constexpr ConverterRow kRows[] = {
    {"Concat", concat, ""},
    {"Constant", constant, "value, value_float(s), value_int(s)"},
    {"ConstantOfShape", constantOfShape, "constant shape, or `?` extents and constants"},
    {"EyeLike", eyeLike, "static shape; k, dtype"},
    {"Gather", gather, "negative indices; `?` extents"},
    {"GatherElements", gatherElements, "negative indices; static shapes"},
    {"GatherND", gatherNd, "batch_dims; negative indices; `?` index counts without batch_dims"},
    {"Hardmax", hardmax, "one axis (opset 13 semantics)"},
    {"OneHot", oneHot, "constant depth; negative indices"},
    {"Range", range, "constant start, limit and delta"},
    {"Slice", slice,
     "constant starts/ends/axes/steps; negative indices and steps; forward steps over `?` extents"},
    {"Split", split,
     "split attribute before opset 13, input since; equal parts (opset 18: num_outputs, a "
     "smaller last part)"},
    {"Tile", tile, "constant repeats"},
    {"Trilu", trilu, "k constant or run-time; static matrix shape"},
};

}  // namespace

std::span<const ConverterRow> tensorConverters() {
  return kRows;
}

}  // namespace tessera::frontend::onnx
