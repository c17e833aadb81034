// ONNX operators that reorder elements along one axis by positions computed in the graph: TopK
// (ranks from pairwise comparisons, so the whole selection is elementwise ops and reductions; the
// dyn.topk builtin where K or the extent is known only at run time) and
// ReverseSequence (a take at positions computed from the run-time sequence lengths).
#include <numeric>
#include <string>
#include <vector>

#include "frontend/onnx/context.h"
#include "relay/op/dynamic.h"
#include "relay/op/tensor.h"

namespace tessera::frontend::onnx {
namespace {

using relay::Expr;

/// Largest comparison table TopK builds (rows x extent x extent elements).
constexpr int64_t kMaxTopKPairs = int64_t{1} << 24;

// The permutation that moves `axis` last, and its inverse.
std::pair<std::vector<int64_t>, std::vector<int64_t>> axisLast(int64_t rank, int64_t axis) {
  std::vector<int64_t> perm;
  for (int64_t a = 0; a < rank; ++a)
    if (a != axis) perm.push_back(a);
  perm.push_back(axis);
  std::vector<int64_t> inverse(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) inverse[perm[i]] = static_cast<int64_t>(i);
  return {perm, inverse};
}

// TopK: with the axis moved last and the data as R rows of L, element i's rank in its row is the
// number of elements ahead of it — strictly greater (smaller when largest=0), or equal at a lower
// position, which is ONNX's tie-break. Output slot t takes the element of rank t. Ranks are a
// permutation of 0..L-1, so every slot matches exactly one element. Results are always sorted
// (ONNX leaves the order free when sorted=0); NaNs are not ordered.
// TopK as dyn.topk, the VM builtin that sorts: for a K known only at run time or an axis with a
// `?` extent (a detector's `scores.topk(min(count, 300))` over the boxes past a threshold), and
// for rows too long for the comparison table.
void topKAtRunTime(NodeContext& n, int64_t axis, bool largest) {
  const TensorTypeNode& kType = n.inputType(1);
  if (!kType.dtype.isInteger() || kType.ndim() > 1)
    n.fail("onnx_input",
           "K must be a 1-D integer tensor but has type " + typeToString(n.typeOf(n.input(1))));
  const Expr result =
      relay::dynTopK(n.input(0), n.input(1), relay::TopKAttrs{.axis = axis, .isAscend = !largest});
  for (size_t k = 0; k < 2; ++k)
    if (n.outputUsed(k)) n.setOutput(k, relay::makeTupleGetItem(result, static_cast<int>(k)));
}

void topK(NodeContext& n) {
  const TensorTypeNode& type = n.inputType(0);
  const auto rank = static_cast<int64_t>(type.ndim());
  if (rank == 0) n.fail("onnx_input", "input 0 must have rank 1 or more");
  const int64_t axis = n.normalizeAxis(n.attrInt("axis", -1), rank);
  const bool largest = n.attrInt("largest", 1) != 0;
  if (!n.constantInput(1) || !type.shape[axis].isConst()) return topKAtRunTime(n, axis, largest);
  const std::vector<int64_t> s = n.inputShape(0);
  const std::vector<int64_t> kv = n.constantInts(1, "k");
  if (kv.size() != 1) n.fail("onnx_input", "K must hold one value");
  const int64_t extent = s[axis], k = kv[0];
  if (k < 1 || k > extent)
    n.fail("onnx_input", "K = " + std::to_string(k) + " is outside [1, " + std::to_string(extent) +
                             "] for axis " + std::to_string(axis));
  const int64_t rows = shapeNumel(s) / extent;
  int64_t pairs = 0;
  if (__builtin_mul_overflow(rows, extent * extent, &pairs) || pairs > kMaxTopKPairs)
    return topKAtRunTime(n, axis, largest);
  const auto [perm, inverse] = axisLast(rank, axis);
  const bool moved = axis != rank - 1;
  const Expr x =
      relay::reshape(moved ? relay::transpose(n.input(0), perm) : n.input(0), {rows, extent});

  const Expr self = relay::reshape(x, {rows, extent, 1});
  const Expr other = relay::reshape(x, {rows, 1, extent});
  NDArray lower = NDArray::empty({1, extent, extent}, DataType::boolType());
  for (int64_t i = 0; i < extent; ++i)
    for (int64_t j = 0; j < extent; ++j) lower.setInt(i * extent + j, j < i ? 1 : 0);
  const Expr ahead =
      relay::logicalOr(largest ? relay::greater(other, self) : relay::less(other, self),
                       relay::logicalAnd(relay::equal(other, self), relay::makeConstant(lower)));
  const DataType i64 = DataType::int64();
  const Expr ranks = relay::sum(relay::cast(ahead, i64),
                                relay::ReduceAttrs{.axis = std::vector<int64_t>{2}});  // [R, L]
  const Expr pick =
      relay::equal(relay::reshape(ranks, {rows, 1, extent}), iotaConstant({1, k, 1}));  // [R, k, L]
  const Expr indices =
      relay::sum(relay::where(pick, iotaConstant({1, 1, extent}), scalarConstant(0, i64)),
                 relay::ReduceAttrs{.axis = std::vector<int64_t>{2}});  // [R, k]
  const Expr flat = relay::add(indices, iotaConstant({rows, 1}, extent));
  const Expr values = relay::take(relay::reshape(x, {rows * extent}), flat, 0, "clip");

  std::vector<int64_t> outShape;
  for (int64_t a : perm) outShape.push_back(a == axis ? k : s[a]);
  auto restore = [&](const Expr& e) {
    const Expr shaped = relay::reshape(e, outShape);
    return moved ? relay::transpose(shaped, inverse) : shaped;
  };
  n.setOutput(0, restore(values));
  n.setOutput(1, restore(indices));
}

// ReverseSequence: with the batch axis first, row (b, t) of the data viewed as B*T rows takes row
// (b, len[b] - 1 - t) when t < len[b] and stays otherwise. Lengths are clamped to [0, T], so a
// length out of range cannot move data across batch entries.
void reverseSequence(NodeContext& n) {
  const std::vector<int64_t> s = n.inputShape(0);
  if (s.size() < 2) n.fail("onnx_input", "input 0 must have rank 2 or more");
  const int64_t batchAxis = n.attrInt("batch_axis", 1), timeAxis = n.attrInt("time_axis", 0);
  if ((batchAxis != 0 && batchAxis != 1) || (timeAxis != 0 && timeAxis != 1) ||
      batchAxis == timeAxis)
    n.fail("onnx_attr", "batch_axis and time_axis must be 0 and 1 in some order, not " +
                            std::to_string(batchAxis) + " and " + std::to_string(timeAxis));
  if (!n.inputDtype(1).isInteger()) n.fail("onnx_input", "sequence_lens must be integers");
  const int64_t batch = s[batchAxis], time = s[timeAxis];
  if (n.inputShape(1) != std::vector<int64_t>{batch})
    n.fail("onnx_input", "sequence_lens must have shape (" + std::to_string(batch) +
                             "), one length per batch entry");
  std::vector<int64_t> swap(s.size());
  std::iota(swap.begin(), swap.end(), 0);
  std::swap(swap[0], swap[1]);
  const bool swapped = batchAxis == 1;
  const Expr x = swapped ? relay::transpose(n.input(0), swap) : n.input(0);
  const int64_t width = extentProduct(s, 2, s.size());

  const DataType i64 = DataType::int64();
  const Expr lens =
      relay::minimum(relay::maximum(relay::reshape(relay::cast(n.input(1), i64), {batch, 1}),
                                    scalarConstant(0, i64)),
                     scalarConstant(static_cast<double>(time), i64));
  const Expr steps = iotaConstant({1, time});
  const Expr reversed = relay::subtract(relay::subtract(lens, scalarConstant(1, i64)), steps);
  const Expr source = relay::where(relay::less(steps, lens), reversed, steps);  // [B, T]
  const Expr flat =
      relay::reshape(relay::add(source, iotaConstant({batch, 1}, time)), {batch * time});
  std::vector<int64_t> shape = {batch, time};
  shape.insert(shape.end(), s.begin() + 2, s.end());
  const Expr out =
      relay::reshape(relay::take(relay::reshape(x, {batch * time, width}), flat, 0, "clip"), shape);
  n.setOutput(0, swapped ? relay::transpose(out, swap) : out);
}

constexpr ConverterRow kRows[] = {
    {"ReverseSequence", reverseSequence, "run-time sequence_lens (clamped to the time extent)"},
    {"TopK", topK,
     "largest, sorted (always sorted); ties by lower index; K known at import: pairwise ranks for "
     "rows x extent^2 up to 2^24; K at run time, a `?` axis or longer rows: dyn.topk (VM builtin)"},
};

}  // namespace

std::span<const ConverterRow> reorderConverters() {
  return kRows;
}

}  // namespace tessera::frontend::onnx
