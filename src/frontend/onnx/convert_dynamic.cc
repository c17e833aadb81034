// ONNX operators whose output shapes depend on the data (NonZero, Compress, Unique,
// NonMaxSuppression): Relay ops typed with `?` dims (relay/op/dynamic.h) that the reference
// interpreter runs; `tessera run` falls back to it for such modules and `tessera compile` refuses
// them. Everything that fixes the layout (ranks, axes, attributes) is still checked at import.
#include <string>
#include <vector>

#include "frontend/onnx/context.h"
#include "relay/op/dynamic.h"
#include "relay/op/tensor.h"

namespace tessera::frontend::onnx {
namespace {

using relay::Expr;

// NonZero (opsets 9, 13): argwhere's rows are the coordinates, ONNX wants them as columns. A
// scalar counts as a 1-element vector, as numpy and ONNX Runtime treat it.
void nonZero(NodeContext& n) {
  Expr x = n.input(0);
  if (n.inputType(0).ndim() == 0) x = relay::reshape(x, {1});
  n.setOutput(0, relay::transpose(relay::argwhere(x), std::vector<int64_t>{1, 0}));
}

// Compress (opsets 9, 11): the slices along `axis` (of the flattened input without one) where the
// 1-D boolean condition holds; a condition shorter than the axis drops the slices past its end.
void compress(NodeContext& n) {
  const TensorTypeNode& cond = n.inputType(1);
  if (cond.ndim() != 1 || !cond.dtype.isBool())
    n.fail("onnx_input", "condition must be a 1-D bool tensor but has type " +
                             typeToString(n.typeOf(n.input(1))));
  const std::vector<int64_t> s = n.inputShape(0);
  const std::optional<int64_t> axisAttr = n.attrIntOpt("axis");
  Expr x = n.input(0);
  int64_t axis = 0;
  if (axisAttr) {
    if (s.empty()) n.fail("onnx_input", "input 0 is a scalar; an axis needs rank 1 or more");
    axis = n.normalizeAxis(*axisAttr, static_cast<int64_t>(s.size()));
  } else {
    x = relay::reshape(x, {extentProduct(s, 0, s.size())});
  }
  const int64_t extent = axisAttr ? s[axis] : extentProduct(s, 0, s.size());
  const std::vector<int64_t> c = n.inputShape(1);
  if (c[0] > extent)
    n.fail("onnx_input", "condition has " + std::to_string(c[0]) + " entries but " +
                             (axisAttr ? "axis " + std::to_string(axis) + " has "
                                       : std::string("the flattened input has ")) +
                             std::to_string(extent));
  const Expr indices = relay::squeeze(relay::argwhere(n.input(1)), std::vector<int64_t>{1});
  n.setOutput(0, relay::take(x, indices, axis));
}

// Unique (opset 11): sorted (0 or 1) and an optional axis; outputs Y, indices, inverse_indices,
// counts, each taken from unique's tuple only when declared.
void unique(NodeContext& n) {
  const int64_t sorted = n.attrInt("sorted", 1);
  if (sorted != 0 && sorted != 1) n.badAttr("sorted", std::to_string(sorted), "0 or 1");
  std::optional<int64_t> axis = n.attrIntOpt("axis");
  if (axis) {
    const int64_t rank = n.inputType(0).ndim();
    if (rank == 0) n.fail("onnx_input", "input 0 is a scalar; an axis needs rank 1 or more");
    axis = n.normalizeAxis(*axis, rank);
  }
  n.requireOutputsAtMost(4, "Unique has four outputs");
  const Expr result = relay::unique(n.input(0), sorted == 1, axis);
  for (size_t k = 0; k < n.numOutputs(); ++k)
    if (n.outputUsed(k)) n.setOutput(k, relay::makeTupleGetItem(result, static_cast<int>(k)));
}

// NonMaxSuppression (opsets 10, 11): omitted inputs take ONNX's defaults (no boxes per class, IoU
// threshold 0, no score threshold: an empty tensor).
void nonMaxSuppression(NodeContext& n) {
  const int64_t center = n.attrInt("center_point_box", 0);
  if (center != 0 && center != 1) n.badAttr("center_point_box", std::to_string(center), "0 or 1");
  const Expr maxOut =
      n.hasInput(2) ? n.input(2) : relay::makeConstant(NDArray::scalarInt(0, DataType::int64()));
  const Expr iou =
      n.hasInput(3) ? n.input(3) : relay::makeConstant(NDArray::scalar(0, DataType::float32()));
  const Expr score =
      n.hasInput(4) ? n.input(4) : relay::makeConstant(NDArray::empty({0}, DataType::float32()));
  n.setOutput(
      0, relay::allClassNonMaxSuppression(n.input(0), n.input(1), maxOut, iou, score, center == 1));
}

constexpr ConverterRow kRows[] = {
    {"Compress", compress,
     "axis or flattened; condition a 1-D bool, at most the axis long; data-dependent shape "
     "(interpreter)"},
    {"NonMaxSuppression", nonMaxSuppression,
     "center_point_box 0/1; thresholds and box limit at run time; data-dependent shape "
     "(interpreter)"},
    {"NonZero", nonZero, "any numeric dtype; data-dependent shape (interpreter)"},
    {"Unique", unique, "sorted 0/1, axis or flattened; data-dependent shape (interpreter)"},
};

}  // namespace

std::span<const ConverterRow> dynamicConverters() {
  return kRows;
}

}  // namespace tessera::frontend::onnx
