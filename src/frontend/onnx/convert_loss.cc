// ONNX's loss functions as compositions: NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss
// (opsets 12/13), following the reference implementation of the ONNX backend tests: the loss at
// each position is -input[n, target[n, d...], d...], weighted by weight[target] (taken with
// clipping, as targets equal to ignore_index may be out of range), zero where the target is
// ignore_index; "mean" divides by the sum of those weights (by the count when unweighted and
// nothing is ignored).
#include "frontend/onnx/context.h"
#include "relay/op/nn.h"
#include "relay/op/tensor.h"

namespace tessera::frontend::onnx {
namespace {

using relay::Expr;

// The loss of log-probabilities `logProb` (N, C, d...) against class indices `target` (N, d...).
Expr negativeLogLikelihood(NodeContext& n, const Expr& logProb, size_t targetInput,
                           size_t weightInput) {
  const std::vector<int64_t> s = n.shapeOf(logProb);
  const std::vector<int64_t> t = n.inputShape(targetInput);
  if (s.size() < 2) n.fail("onnx_input", "input 0 must have rank 2 or more (N, C, ...)");
  std::vector<int64_t> expectedTarget = {s[0]};
  expectedTarget.insert(expectedTarget.end(), s.begin() + 2, s.end());
  if (t != expectedTarget)
    n.fail("onnx_input", "the target's shape must be the input's without its class axis");
  const DataType dtype = n.typeOf(logProb)->as<TensorTypeNode>()->dtype;
  const std::string reduction = n.attrString("reduction", "mean");
  if (reduction != "mean" && reduction != "sum" && reduction != "none")
    n.badAttr("reduction", reduction, "mean, sum, none");
  const Expr target = relay::cast(n.input(targetInput), DataType::int64());

  // The class axis against every class index: a one-hot selection of the target's entry.
  std::vector<int64_t> along(s.size(), 1);
  along[1] = s[1];
  NDArray classes = NDArray::empty(along, DataType::int64());
  for (int64_t c = 0; c < s[1]; ++c) classes.setInt(c, c);
  const Expr selected = relay::equal(relay::expandDims(target, 1), relay::makeConstant(classes));
  Expr loss = relay::negative(relay::sum(relay::where(selected, logProb, scalarConstant(0, dtype)),
                                         relay::ReduceAttrs{.axis = std::vector<int64_t>{1}}));

  std::optional<Expr> positionWeight;  // weight[target], zero where ignored
  if (n.hasInput(weightInput))
    positionWeight = relay::take(n.input(weightInput), target, 0, "clip");
  if (std::optional<int64_t> ignore = n.attrIntOpt("ignore_index")) {
    const Expr kept = relay::cast(
        relay::notEqual(target, scalarConstant(static_cast<double>(*ignore), DataType::int64())),
        dtype);
    positionWeight = positionWeight ? relay::multiply(*positionWeight, kept) : kept;
  }
  if (positionWeight) loss = relay::multiply(loss, *positionWeight);
  if (reduction == "none") return loss;
  const Expr total = relay::sum(loss);
  if (reduction == "sum") return total;
  if (positionWeight) return relay::divide(total, relay::sum(*positionWeight));
  return relay::mean(loss);
}

void negativeLogLikelihoodLoss(NodeContext& n) {
  n.setOutput(0, negativeLogLikelihood(n, n.input(0), 1, 2));
}

// SoftmaxCrossEntropyLoss: the loss of log_softmax(scores) over the class axis; its second output
// is that log-probability.
void softmaxCrossEntropyLoss(NodeContext& n) {
  if (n.inputRank(0) < 2) n.fail("onnx_input", "scores must have rank 2 or more (N, C, ...)");
  const Expr logProb = relay::nn::logSoftmax(n.input(0), relay::SoftmaxAttrs{.axis = 1});
  n.setOutput(0, negativeLogLikelihood(n, logProb, 1, 2));
  n.setOutput(1, logProb);
}

constexpr ConverterRow kRows[] = {
    {"NegativeLogLikelihoodLoss", negativeLogLikelihoodLoss,
     "reduction mean/sum/none, weight, ignore_index"},
    {"SoftmaxCrossEntropyLoss", softmaxCrossEntropyLoss,
     "reduction mean/sum/none, weights, ignore_index; log_prob output"},
};

}  // namespace

std::span<const ConverterRow> lossConverters() {
  return kRows;
}

}  // namespace tessera::frontend::onnx
