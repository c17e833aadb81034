// ONNX's scatters, ScatterElements and ScatterND (opset 10's Scatter reaches the importer as
// ScatterElements through ONNX's version converter), as compositions of existing Relay ops. Both
// view the data as rows of S elements and every update as one such row sent to a destination row
// (ScatterElements: S = 1). Destinations known at import become gather tables; run-time ones are
// compared with every row they could reach, a match mask whose size is bounded. Over `?` extents
// ScatterElements becomes relay's scatter_elements, a VM builtin.
#include <algorithm>
#include <string>
#include <vector>

#include "frontend/onnx/context.h"
#include "relay/op/scatter.h"
#include "relay/op/tensor.h"

namespace tessera::frontend::onnx {
namespace {

using relay::Expr;

/// Largest intermediate (elements) a scatter may build: the run-time match mask, or the stacked
/// gather layers of known indices with duplicates. Beyond it the import fails rather than have the
/// model allocate gigabytes at run time.
constexpr int64_t kMaxScatterElements = int64_t{1} << 24;

enum class Reduction { kNone, kAdd, kMul, kMax, kMin };

// ScatterElements and ScatterND take `reduction` since opset 16 (none, add, mul); max and min are
// opset 18's and cost nothing more here, so they are accepted too.
Reduction reductionOf(const NodeContext& n) {
  const std::string r = n.attrString("reduction", "none");
  if (r == "none") return Reduction::kNone;
  if (r == "add") return Reduction::kAdd;
  if (r == "mul") return Reduction::kMul;
  if (r == "max") return Reduction::kMax;
  if (r == "min") return Reduction::kMin;
  n.badAttr("reduction", r, "none, add, mul, max, min");
}

Expr combine(Reduction r, const Expr& acc, const Expr& update) {
  switch (r) {
    case Reduction::kNone:
      return update;
    case Reduction::kAdd:
      return relay::add(acc, update);
    case Reduction::kMul:
      return relay::multiply(acc, update);
    case Reduction::kMax:
      return relay::maximum(acc, update);
    case Reduction::kMin:
      return relay::minimum(acc, update);
  }
  return update;
}

// The data as `rows` x `width`, the updates as `count` x `width`.
struct RowView {
  Expr data;
  Expr updates;
  int64_t rows = 0, width = 0, count = 0;
};

// The product of the extents, or -1 past kMaxScatterElements (the caller names the limit).
int64_t boundedProduct(std::initializer_list<int64_t> extents) {
  int64_t out = 1;
  for (int64_t e : extents)
    if (__builtin_mul_overflow(out, e, &out) || out > kMaxScatterElements) return -1;
  return out;
}

[[noreturn]] void tooLarge(const NodeContext& n, const std::string& what) {
  n.fail("onnx_unsupported_size", what + " would exceed " + std::to_string(kMaxScatterElements) +
                                      " elements; scatters of this size are not supported");
}

// Destinations known at import: layer l holds, per data row, the (l+1)-th update sent there (in
// update order), so applying the layers in turn reproduces the sequential definition; with no
// reduction only the last update of each row matters and one layer suffices.
Expr scatterKnown(const NodeContext& n, const RowView& v, const std::vector<int64_t>& dest,
                  Reduction r) {
  std::vector<std::vector<int64_t>> layers;
  std::vector<size_t> depth(static_cast<size_t>(v.rows), 0);
  for (int64_t u = 0; u < v.count; ++u) {
    const auto row = static_cast<size_t>(dest[u]);
    const size_t l = r == Reduction::kNone ? 0 : depth[row]++;
    if (l == layers.size()) {
      if (boundedProduct({static_cast<int64_t>(l + 1), v.rows, v.width}) < 0)
        tooLarge(n, std::to_string(l + 1) + " updates of one destination over " +
                        std::to_string(v.rows) + " rows of " + std::to_string(v.width));
      layers.emplace_back(static_cast<size_t>(v.rows), -1);
    }
    layers[l][row] = u;
  }
  Expr acc = v.data;
  for (const std::vector<int64_t>& layer : layers) {
    NDArray source = NDArray::empty({v.rows}, DataType::int64());
    NDArray hit = NDArray::empty({v.rows, 1}, DataType::boolType());
    for (int64_t p = 0; p < v.rows; ++p) {
      source.setInt(p, layer[p] < 0 ? 0 : layer[p]);
      hit.setInt(p, layer[p] >= 0 ? 1 : 0);
    }
    const Expr picked = relay::take(v.updates, relay::makeConstant(source), 0, "clip");
    acc = relay::where(relay::makeConstant(hit), combine(r, acc, picked), acc);
  }
  return acc;
}

// Run-time destinations, in `batch` independent groups (ScatterND: one; ScatterElements: one per
// line along the axis): data [batch, rows, width], updates [batch, count, width], `dest` [batch,
// count] int64 holding a row of the same group or -1 (an index out of range, dropped), and
// mask[b, u, p] says update u goes to row p. Without a reduction the highest matching u wins
// (ONNX leaves the order of duplicates open; its reference applies them in turn); otherwise the
// matching updates are folded in with the reduction's identity elsewhere.
struct BatchView {
  Expr data, updates;
  int64_t batch = 0, rows = 0, width = 0, count = 0;
};

Expr scatterRuntime(const NodeContext& n, const BatchView& v, const Expr& dest, Reduction r,
                    DataType dtype) {
  const DataType i64 = DataType::int64();
  const bool none = r == Reduction::kNone;
  if (boundedProduct({v.batch, v.count, v.rows, none ? 1 : v.width}) < 0)
    tooLarge(n, "the run-time match mask (" + std::to_string(v.batch) + " x " +
                    std::to_string(v.count) + " updates x " + std::to_string(v.rows) +
                    " destinations" + (none ? "" : " x " + std::to_string(v.width)) + ")");
  const Expr mask =
      relay::equal(relay::reshape(dest, {v.batch, v.count, 1}), iotaConstant({1, 1, v.rows}));
  const relay::ReduceAttrs overUpdates{.axis = std::vector<int64_t>{1}};
  if (none) {
    const Expr last = relay::max(
        relay::where(mask, iotaConstant({1, v.count, 1}), scalarConstant(-1, i64)), overUpdates);
    const Expr hit =
        relay::reshape(relay::greaterEqual(last, scalarConstant(0, i64)), {v.batch, v.rows, 1});
    const Expr source =
        relay::reshape(relay::add(last, iotaConstant({v.batch, 1}, v.count)), {v.batch * v.rows});
    const Expr picked =
        relay::take(relay::reshape(v.updates, {v.batch * v.count, v.width}), source, 0, "clip");
    return relay::where(hit, relay::reshape(picked, {v.batch, v.rows, v.width}), v.data);
  }
  const Expr mask4 = relay::reshape(mask, {v.batch, v.count, v.rows, 1});
  const Expr updates4 = relay::reshape(v.updates, {v.batch, v.count, 1, v.width});
  switch (r) {
    case Reduction::kAdd:
      return relay::add(
          v.data, relay::sum(relay::where(mask4, updates4, scalarConstant(0, dtype)), overUpdates));
    case Reduction::kMul:
      return relay::multiply(
          v.data,
          relay::prod(relay::where(mask4, updates4, scalarConstant(1, dtype)), overUpdates));
    case Reduction::kMax:
    case Reduction::kMin: {
      // Rows an update does not reach compare with the data itself, so no identity is needed.
      const Expr others = relay::where(mask4, updates4, relay::expandDims(v.data, 1));
      return r == Reduction::kMax ? relay::maximum(v.data, relay::max(others, overUpdates))
                                  : relay::minimum(v.data, relay::min(others, overUpdates));
    }
    case Reduction::kNone:
      break;
  }
  return v.data;
}

// Indices given as a Constant expression (not a specialised graph input), as integers.
std::optional<NDArray> constantIndices(const NodeContext& n) {
  auto c = relay::exprAs<relay::ConstantNode>(n.input(1));
  if (c && c->hasData()) return c->data;
  return std::nullopt;
}

void checkOperands(const NodeContext& n) {
  if (!n.inputDtype(1).isInteger()) n.fail("onnx_input", "indices must be integers");
  if (n.inputDtype(2) != n.inputDtype(0))
    n.fail("onnx_input", "updates have type " + n.inputDtype(2).name() + " but data has " +
                             n.inputDtype(0).name());
}

// `index` (int64) wrapped once when negative, and whether it then lies in [0, extent).
std::pair<Expr, Expr> wrapIndex(const Expr& index, int64_t extent) {
  const DataType i64 = DataType::int64();
  const Expr e = scalarConstant(static_cast<double>(extent), i64);
  const Expr wrapped =
      relay::where(relay::less(index, scalarConstant(0, i64)), relay::add(index, e), index);
  const Expr valid = relay::logicalAnd(relay::greaterEqual(wrapped, scalarConstant(0, i64)),
                                       relay::less(wrapped, e));
  return {wrapped, valid};
}

int64_t wrapKnown(const NodeContext& n, int64_t index, int64_t extent, int64_t axis) {
  if (index < -extent || index >= extent)
    n.fail("onnx_input", "index " + std::to_string(index) + " is out of range for axis " +
                             std::to_string(axis) + " of extent " + std::to_string(extent));
  return index < 0 ? index + extent : index;
}

bool hasDynamicExtent(const NodeContext& n, size_t input) {
  const std::vector<int64_t> dims = n.inputDims(input);
  return std::find(dims.begin(), dims.end(), -1) != dims.end();
}

// ScatterElements over `?` extents (torchvision's MultiScaleRoIAlign writes each level's pooled
// boxes into rows numbered at run time): relay's scatter_elements, which the VM runs as a builtin
// in one pass. The masks below need every extent at import, and would be quadratic in the rows.
void scatterElementsAtRunTime(NodeContext& n) {
  const int64_t rank = n.inputRank(0);
  if (n.inputRank(1) != rank || n.inputRank(2) != rank)
    n.fail("onnx_input", "indices and updates must have the data's rank " + std::to_string(rank));
  const int64_t axis = n.normalizeAxis(n.attrInt("axis", 0), rank);
  static constexpr const char* kNames[] = {"update", "add", "mul", "max", "min"};
  n.setOutput(0, relay::scatterElements(n.input(0), n.input(1), n.input(2), axis,
                                        kNames[static_cast<int>(reductionOf(n))]));
}

// ScatterElements. Known indices: update p goes to p's own coordinates with the axis coordinate
// replaced by indices[p], a flat position of a constant offset (the other coordinates) plus the
// index times the axis stride. Run-time indices: update p can only reach the line along the axis
// through p, so with the axis moved last the data is lines x extent and the mask per line is
// (indices' axis extent) x (data's axis extent), not updates x every element. Lines the indices
// do not cover (a smaller extent on another axis) get no destination.
void scatterElements(NodeContext& n) {
  checkOperands(n);
  if (hasDynamicExtent(n, 0) || hasDynamicExtent(n, 1)) {
    scatterElementsAtRunTime(n);
    return;
  }
  const std::vector<int64_t> d = n.inputShape(0), q = n.inputShape(1);
  const auto rank = static_cast<int64_t>(d.size());
  const int64_t axis = n.normalizeAxis(n.attrInt("axis", 0), rank);
  const Reduction r = reductionOf(n);
  if (static_cast<int64_t>(q.size()) != rank)
    n.fail("onnx_input", "indices must have the data's rank " + std::to_string(rank));
  if (n.inputShape(2) != q) n.fail("onnx_input", "updates must have the shape of indices");
  for (int64_t a = 0; a < rank; ++a)
    if (a != axis && q[a] > d[a])
      n.fail("onnx_input", "indices extent " + std::to_string(q[a]) + " of axis " +
                               std::to_string(a) + " exceeds the data's " + std::to_string(d[a]));
  const int64_t numel = shapeNumel(d), count = shapeNumel(q);
  if (std::optional<NDArray> idx = constantIndices(n)) {
    const std::vector<int64_t> strides = rowMajorStrides(d);
    std::vector<int64_t> dest, c(q.size(), 0);
    for (int64_t p = 0; p < count; ++p) {
      int64_t flat = wrapKnown(n, idx->getInt(p), d[axis], axis) * strides[axis];
      for (int64_t a = 0; a < rank; ++a)
        if (a != axis) flat += c[a] * strides[a];
      dest.push_back(flat);
      for (int64_t a = rank - 1; a >= 0 && ++c[a] == q[a]; --a) c[a] = 0;  // next coordinate
    }
    const RowView v{.data = relay::reshape(n.input(0), {numel, 1}),
                    .updates = relay::reshape(n.input(2), {count, 1}),
                    .rows = numel,
                    .width = 1,
                    .count = count};
    n.setOutput(0, relay::reshape(scatterKnown(n, v, dest, r), d));
    return;
  }
  std::vector<int64_t> perm, lineShape, boxShape;  // the other axes, then the axis
  for (int64_t a = 0; a < rank; ++a)
    if (a != axis) {
      perm.push_back(a);
      lineShape.push_back(d[a]);
      boxShape.push_back(q[a]);
    }
  perm.push_back(axis);
  std::vector<int64_t> inverse(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) inverse[perm[i]] = static_cast<int64_t>(i);
  auto axisLast = [&](const Expr& e) { return axis == rank - 1 ? e : relay::transpose(e, perm); };
  const int64_t lines = shapeNumel(lineShape), boxLines = shapeNumel(boxShape);
  const DataType i64 = DataType::int64();
  auto [wrapped, valid] = wrapIndex(relay::cast(n.input(1), i64), d[axis]);
  Expr dest = relay::reshape(axisLast(relay::where(valid, wrapped, scalarConstant(-1, i64))),
                             {boxLines, q[axis]});
  Expr updates = relay::reshape(axisLast(n.input(2)), {boxLines, q[axis]});
  if (boxShape != lineShape) {  // spread the covered lines over all lines of the data
    NDArray source = NDArray::empty({lines}, i64);
    NDArray covered = NDArray::empty({lines, 1}, DataType::boolType());
    std::vector<int64_t> c(lineShape.size(), 0);
    for (int64_t l = 0; l < lines; ++l) {
      int64_t box = 0;
      bool inside = true;
      for (size_t a = 0; a < c.size(); ++a) {
        inside = inside && c[a] < boxShape[a];
        box = box * boxShape[a] + c[a];
      }
      source.setInt(l, inside ? box : 0);
      covered.setInt(l, inside ? 1 : 0);
      for (int64_t a = static_cast<int64_t>(c.size()) - 1;
           a >= 0 && ++c[a] == lineShape[static_cast<size_t>(a)]; --a)
        c[a] = 0;
    }
    const Expr from = relay::makeConstant(source);
    dest = relay::where(relay::makeConstant(covered), relay::take(dest, from, 0, "clip"),
                        scalarConstant(-1, i64));
    updates = relay::take(updates, from, 0, "clip");
  }
  const BatchView v{.data = relay::reshape(axisLast(n.input(0)), {lines, d[axis], 1}),
                    .updates = relay::reshape(updates, {lines, q[axis], 1}),
                    .batch = lines,
                    .rows = d[axis],
                    .width = 1,
                    .count = q[axis]};
  std::vector<int64_t> moved = lineShape;
  moved.push_back(d[axis]);
  const Expr out = relay::reshape(scatterRuntime(n, v, dest, r, n.inputDtype(0)), moved);
  n.setOutput(0, axis == rank - 1 ? out : relay::transpose(out, inverse));
}

// ScatterND: each index tuple (the last axis of `indices`, k long) addresses a row of the data
// viewed as prod(d[:k]) rows of prod(d[k:]); the update rows follow the tuples in order.
void scatterNd(NodeContext& n) {
  checkOperands(n);
  const std::vector<int64_t> d = n.inputShape(0), q = n.inputShape(1);
  const Reduction r = reductionOf(n);
  if (q.empty()) n.fail("onnx_input", "indices must have rank 1 or more");
  const int64_t k = q.back();
  if (k < 1 || k > static_cast<int64_t>(d.size()))
    n.fail("onnx_input", "index tuples of length " + std::to_string(k) +
                             " do not address data of rank " + std::to_string(d.size()));
  std::vector<int64_t> want(q.begin(), q.end() - 1);
  want.insert(want.end(), d.begin() + k, d.end());
  if (n.inputShape(2) != want)
    n.fail("onnx_input", "updates must have shape " + shapeString(want) +
                             " (indices.shape[:-1] + "
                             "data.shape[k:]), not " +
                             shapeString(n.inputShape(2)));
  const int64_t rows = extentProduct(d, 0, static_cast<size_t>(k));
  const int64_t width = extentProduct(d, static_cast<size_t>(k), d.size());
  const int64_t count = extentProduct(q, 0, q.size() - 1);
  std::vector<int64_t> stride(static_cast<size_t>(k), 1);
  for (int64_t j = k - 2; j >= 0; --j) stride[j] = stride[j + 1] * d[j + 1];
  if (std::optional<NDArray> idx = constantIndices(n)) {
    std::vector<int64_t> dest;
    for (int64_t t = 0; t < count; ++t) {
      int64_t flat = 0;
      for (int64_t j = 0; j < k; ++j)
        flat += wrapKnown(n, idx->getInt(t * k + j), d[j], j) * stride[j];
      dest.push_back(flat);
    }
    const RowView v{.data = relay::reshape(n.input(0), {rows, width}),
                    .updates = relay::reshape(n.input(2), {count, width}),
                    .rows = rows,
                    .width = width,
                    .count = count};
    n.setOutput(0, relay::reshape(scatterKnown(n, v, dest, r), d));
    return;
  }
  const DataType i64 = DataType::int64();
  const Expr indices = relay::reshape(relay::cast(n.input(1), i64), {count, k});
  Expr flat, valid;
  for (int64_t j = 0; j < k; ++j) {
    auto [idx, ok] = wrapIndex(
        relay::take(indices, scalarConstant(static_cast<double>(j), i64), 1, "clip"), d[j]);
    idx = relay::multiply(idx, scalarConstant(static_cast<double>(stride[j]), i64));
    flat = flat ? relay::add(flat, idx) : idx;
    valid = valid ? relay::logicalAnd(valid, ok) : ok;
  }
  const BatchView v{.data = relay::reshape(n.input(0), {1, rows, width}),
                    .updates = relay::reshape(n.input(2), {1, count, width}),
                    .batch = 1,
                    .rows = rows,
                    .width = width,
                    .count = count};
  const Expr dest = relay::where(valid, flat, scalarConstant(-1, i64));
  n.setOutput(0, relay::reshape(scatterRuntime(n, v, dest, r, n.inputDtype(0)), d));
}

constexpr ConverterRow kRows[] = {
    {"ScatterElements", scatterElements,
     "reduction none/add/mul, max/min (opset 18; accepted earlier too); negative indices; run-time "
     "indices up to 2^24 updates x data elements"},
    {"ScatterND", scatterNd,
     "reduction none/add/mul, max/min (opset 18; accepted earlier too); negative indices; run-time "
     "indices up to 2^24 tuples x data elements"},
};

}  // namespace

std::span<const ConverterRow> scatterConverters() {
  return kRows;
}

}  // namespace tessera::frontend::onnx
