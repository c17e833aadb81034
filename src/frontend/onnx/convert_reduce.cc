// Reductions: ReduceMean/Sum/Max/Min/Prod/SumSquare/L1/L2/LogSum/LogSumExp and ArgMax/ArgMin.
// Axes come from the attribute, or (ReduceSum since opset 13, the others since opset 18) from an
// optional input that must be known at import.
#include "frontend/onnx/context.h"
#include "relay/op/tensor.h"

namespace tessera::frontend::onnx {

namespace {

using relay::Expr;

enum class Reduction { kMean, kSum, kMax, kMin, kProd, kSumSquare, kL1, kL2, kLogSum, kLogSumExp };

// The opset from which a reduction's axes are an input and no longer an attribute.
constexpr int64_t axesInputSince(Reduction kind) {
  return kind == Reduction::kSum ? 13 : 18;
}

// The Reduce* family shares axes/keepdims handling; the kind picks the Relay reduction. An axes
// input before its opset is accepted too (some exporters emit it early); an attribute after it is
// not, as ONNX's checker would refuse it.
template <Reduction kKind>
void reduce(NodeContext& n) {
  const int64_t rank = n.inputRank(0);
  const int64_t since = axesInputSince(kKind);
  if (n.opset() >= since && n.hasAttr("axes"))
    n.fail("onnx_attr",
           "since opset " + std::to_string(since) + " 'axes' is an input, not an attribute");
  std::vector<int64_t> axes = n.attrInts("axes").value_or(std::vector<int64_t>{});
  if (n.hasInput(1)) {
    if (n.hasAttr("axes"))
      n.fail("onnx_attr", "axes are given both as an attribute and as an input");
    axes = n.constantInts(1, "axes");
  }
  Expr x = n.input(0);
  // Empty axes reduce everything, unless noop_with_empty_axes makes the node an identity.
  if (axes.empty() && n.attrInt("noop_with_empty_axes", 0) != 0) {
    n.setOutput(0, x);
    return;
  }
  for (int64_t& a : axes) a = n.normalizeAxis(a, rank, "axes entry");
  relay::ReduceAttrs attrs;
  if (!axes.empty()) attrs.axis = axes;
  attrs.keepdims = n.attrInt("keepdims", 1) != 0;
  switch (kKind) {
    case Reduction::kMean:
      n.setOutput(0, relay::mean(x, attrs));
      return;
    case Reduction::kSum:
      n.setOutput(0, relay::sum(x, attrs));
      return;
    case Reduction::kMax:
      n.setOutput(0, relay::max(x, attrs));
      return;
    case Reduction::kMin:
      n.setOutput(0, relay::min(x, attrs));
      return;
    case Reduction::kProd:
      n.setOutput(0, relay::prod(x, attrs));
      return;
    case Reduction::kSumSquare:
      n.setOutput(0, relay::sum(relay::multiply(x, x), attrs));
      return;
    case Reduction::kL1:
      n.setOutput(0, relay::sum(relay::abs(x), attrs));
      return;
    case Reduction::kL2:
      n.setOutput(0, relay::sqrt(relay::sum(relay::multiply(x, x), attrs)));
      return;
    case Reduction::kLogSum:
      n.setOutput(0, relay::log(relay::sum(x, attrs)));
      return;
    case Reduction::kLogSumExp: {
      // max + log(sum(exp(x - max))): exp never overflows.
      relay::ReduceAttrs kept = attrs;
      kept.keepdims = true;
      const Expr shifted = relay::exp(relay::subtract(x, relay::max(x, kept)));
      n.setOutput(0, relay::add(relay::log(relay::sum(shifted, attrs)), relay::max(x, attrs)));
      return;
    }
  }
}

// ArgMax/ArgMin: one axis, int64 indices (Relay's are int32, so the result is cast).
template <bool kMax>
void argReduce(NodeContext& n) {
  const int64_t axis = n.normalizeAxis(n.attrInt("axis", 0), n.inputRank(0));
  const relay::ArgReduceAttrs attrs{.axis = std::vector<int64_t>{axis},
                                    .keepdims = n.attrInt("keepdims", 1) != 0,
                                    .selectLastIndex = n.attrInt("select_last_index", 0) != 0};
  Expr y = kMax ? relay::argmax(n.input(0), attrs) : relay::argmin(n.input(0), attrs);
  n.setOutput(0, relay::cast(y, DataType::int64()));
}

// CumSum along a constant axis: the input, expanded by a new axis, times a triangular 0/1
// matrix and summed — sum over j <= i (exclusive: j < i; reverse: j >= i or j > i). Quadratic in
// the axis length, which is fine for the sizes models cumulate over.
void cumSum(NodeContext& n) {
  const std::vector<int64_t> s = n.inputShape(0);
  const int64_t rank = static_cast<int64_t>(s.size());
  if (rank == 0) n.fail("onnx_input", "input must have rank 1 or more");
  const int64_t axis = n.normalizeAxis(static_cast<int64_t>(n.constantScalar(1, "axis")), rank);
  const bool exclusive = n.attrInt("exclusive", 0) != 0, reverse = n.attrInt("reverse", 0) != 0;
  const int64_t len = s[axis];
  // mask[j, i] (j the summed position, i the output position), laid on axes (axis, axis + 1).
  std::vector<int64_t> maskShape(static_cast<size_t>(rank + 1), 1);
  maskShape[axis] = len;
  maskShape[axis + 1] = len;
  NDArray mask = NDArray::empty(maskShape, n.inputDtype(0));
  for (int64_t j = 0; j < len; ++j)
    for (int64_t i = 0; i < len; ++i) {
      const bool in = reverse ? (exclusive ? j > i : j >= i) : (exclusive ? j < i : j <= i);
      mask.setFloat(j * len + i, in ? 1 : 0);
    }
  const Expr spread = relay::multiply(relay::expandDims(n.input(0), static_cast<int>(axis + 1)),
                                      relay::makeConstant(mask));
  n.setOutput(0, relay::sum(spread, relay::ReduceAttrs{.axis = std::vector<int64_t>{axis}}));
}

constexpr ConverterRow kRows[] = {
    {"ArgMax", argReduce<true>, "int64 result"},
    {"ArgMin", argReduce<false>, "int64 result"},
    {"CumSum", cumSum, "constant axis; exclusive, reverse"},
    {"ReduceL1", reduce<Reduction::kL1>, "axes attribute before opset 18, input since"},
    {"ReduceL2", reduce<Reduction::kL2>, "axes attribute before opset 18, input since"},
    {"ReduceLogSum", reduce<Reduction::kLogSum>, "axes attribute before opset 18, input since"},
    {"ReduceLogSumExp", reduce<Reduction::kLogSumExp>,
     "axes attribute before opset 18, input since; max-shifted"},
    {"ReduceMax", reduce<Reduction::kMax>, "axes attribute before opset 18, input since"},
    {"ReduceMean", reduce<Reduction::kMean>, "axes attribute before opset 18, input since"},
    {"ReduceMin", reduce<Reduction::kMin>, "axes attribute before opset 18, input since"},
    {"ReduceProd", reduce<Reduction::kProd>, "axes attribute before opset 18, input since"},
    {"ReduceSum", reduce<Reduction::kSum>, "axes attribute before opset 13, input since"},
    {"ReduceSumSquare", reduce<Reduction::kSumSquare>,
     "axes attribute before opset 18, input since"},
};

}  // namespace

std::span<const ConverterRow> reduceConverters() {
  return kRows;
}

}  // namespace tessera::frontend::onnx
