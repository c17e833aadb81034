// Matrix products and normalisations: Gemm, MatMul (batched and broadcast), Det (unrolled LU),
// BatchNormalization, LayerNormalization, Softmax and LogSoftmax (opset < 13 coerces to 2-D), and
// Dropout (inference: identity). Weight-side rearrangements (transposes of constants) are folded
// at import.
#include <algorithm>

#include "frontend/onnx/context.h"
#include "relay/op/nn.h"
#include "relay/op/tensor.h"

namespace tessera::frontend::onnx {

namespace {

using relay::Expr;

Expr transpose2d(NodeContext& n, const Expr& x) {
  return n.fold(relay::transpose(x, std::vector<int64_t>{1, 0}));
}

// Gemm: alpha * A' B' + beta * C, with nn.dense computing A' B' from B' transposed.
void gemm(NodeContext& n) {
  if (n.inputRank(0) != 2 || n.inputRank(1) != 2) n.fail("onnx_shape", "A and B must be 2-D");
  const double alpha = n.attrFloat("alpha", 1.0);
  const double beta = n.attrFloat("beta", 1.0);
  const DataType dtype = n.inputDtype(0);
  Expr a = n.attrInt("transA", 0) ? relay::transpose(n.input(0), std::vector<int64_t>{1, 0})
                                  : n.input(0);
  Expr w = n.attrInt("transB", 0) ? n.input(1) : transpose2d(n, n.input(1));
  Expr y = relay::nn::dense(a, w);
  if (alpha != 1.0) y = relay::multiply(y, scalarConstant(alpha, dtype));
  if (n.hasInput(2)) {
    Expr c = n.input(2);
    if (beta != 1.0) c = n.fold(relay::multiply(c, scalarConstant(beta, dtype)));
    y = relay::add(y, c);
  }
  n.setOutput(0, y);
}

Expr reshapeTo(const Expr& x, const std::vector<int64_t>& shape) {
  return relay::reshape(x, shape, std::find(shape.begin(), shape.end(), 0) != shape.end());
}

// MatMul with numpy semantics. A 2-D (or effectively 2-D) B uses nn.dense over A's leading axes;
// otherwise both operands are broadcast over the batch axes and flattened to 3-D batch_matmul.
}  // namespace

Expr matmulOf(NodeContext& n, Expr a, Expr b) {
  std::vector<int64_t> sb = n.shapeOf(b);
  // A with a dynamic batch, (?, ..., K), against a 2-D B: dense keeps the `?` extents.
  const auto* ta = n.typeOf(a)->as<TensorTypeNode>();
  if (ta && sb.size() == 2 && !ta->shape.empty() && ta->shape.back().isConst() &&
      !staticShape(ta->shape)) {
    if (ta->shape.back().value() != sb[0])
      n.fail("onnx_shape", "the reduction extents differ: A has " +
                               std::to_string(ta->shape.back().value()) + " columns and B has " +
                               std::to_string(sb[0]) + " rows");
    return relay::nn::dense(a, transpose2d(n, b));
  }
  std::vector<int64_t> sa = n.shapeOf(a);
  if (sa.empty() || sb.empty()) n.fail("onnx_shape", "MatMul operands must have rank >= 1");
  const int64_t k = sa.back();
  const int64_t kb = sb.size() == 1 ? sb[0] : sb[sb.size() - 2];
  if (k != kb)
    n.fail("onnx_shape", "the reduction extents differ: A has " + std::to_string(k) +
                             " columns and B has " + std::to_string(kb) + " rows");
  if (sb.size() == 1) {
    // (..., K) x (K): dense against a one-row weight, then drop the unit axis.
    std::vector<int64_t> out(sa.begin(), sa.end() - 1);
    Expr row = n.fold(relay::expandDims(b, 0));
    return reshapeTo(relay::nn::dense(a, row), out);
  }
  const int64_t cols = sb.back();
  const bool bIs2d = extentProduct(sb, 0, sb.size() - 2) == 1 && sb.size() <= sa.size();
  if (bIs2d) {
    if (sb.size() > 2) b = n.fold(reshapeTo(b, {kb, cols}));
    return relay::nn::dense(a, transpose2d(n, b));
  }
  const bool aVector = sa.size() == 1;
  if (aVector) sa.insert(sa.begin(), 1);
  const std::vector<int64_t> ba(sa.begin(), sa.end() - 2), bb(sb.begin(), sb.end() - 2);
  std::optional<std::vector<int64_t>> batch = broadcastShapes(ba, bb);
  if (!batch) n.fail("onnx_shape", "the batch axes of A and B do not broadcast");
  const int64_t rows = sa[sa.size() - 2];
  const int64_t batchSize = extentProduct(*batch, 0, batch->size());
  auto to3d = [&](Expr x, const std::vector<int64_t>& shape, int64_t r, int64_t c) {
    std::vector<int64_t> full = *batch;
    full.push_back(r);
    full.push_back(c);
    if (full != shape) x = relay::broadcastTo(reshapeTo(x, shape), full);
    return reshapeTo(x, {batchSize, r, c});
  };
  Expr y = relay::nn::batchMatmul(to3d(a, sa, rows, k), n.fold(to3d(b, sb, kb, cols)),
                                  DataType::voidType(), false, false);
  std::vector<int64_t> out = *batch;
  if (!aVector) out.push_back(rows);
  out.push_back(cols);
  return reshapeTo(y, out);
}

namespace {

void matmul(NodeContext& n) {
  n.setOutput(0, matmulOf(n, n.input(0), n.input(1)));
}

// BatchNormalization. In training mode (opset 14+) Y is normalised with the batch's own mean and
// (biased) variance over every axis but 1, and the outputs running_mean and running_var blend
// those into the given statistics: input * momentum + batch * (1 - momentum).
void batchNorm(NodeContext& n) {
  if (n.inputRank(0) < 2) n.fail("onnx_shape", "the input must have rank >= 2");
  const double epsilon = n.attrFloat("epsilon", 1e-5);
  if (n.attrInt("training_mode", 0) == 0) {
    n.requireOutputsAtMost(1, "the running statistics are outputs of training mode only");
    Expr bn = relay::nn::batchNorm(n.input(0), n.input(1), n.input(2), n.input(3), n.input(4),
                                   {.axis = 1, .epsilon = epsilon});
    n.setOutput(0, relay::makeTupleGetItem(bn, 0));
    return;
  }
  const int64_t rank = n.inputRank(0);
  std::vector<int64_t> axes = {0};
  for (int64_t a = 2; a < rank; ++a) axes.push_back(a);
  const DataType dtype = n.inputDtype(0);
  const Expr x = n.input(0);
  const Expr mean = relay::mean(x, {.axis = axes});
  const Expr centred = relay::subtract(x, relay::expandDims(mean, 1, static_cast<int>(rank - 2)));
  const Expr variance = relay::mean(relay::multiply(centred, centred), {.axis = axes});
  Expr bn = relay::nn::batchNorm(x, n.input(1), n.input(2), mean, variance,
                                 {.axis = 1, .epsilon = epsilon});
  n.setOutput(0, relay::makeTupleGetItem(bn, 0));
  const double momentum = n.attrFloat("momentum", 0.9);
  auto blend = [&](const Expr& given, const Expr& batch) {
    return relay::add(relay::multiply(given, scalarConstant(momentum, dtype)),
                      relay::multiply(batch, scalarConstant(1 - momentum, dtype)));
  };
  n.setOutput(1, blend(n.input(3), mean));
  n.setOutput(2, blend(n.input(4), variance));
}

// LayerNormalization (opset 17) normalises over axes [axis, rank); nn.layer_norm normalises one
// axis, so several trailing axes are flattened into one and restored afterwards.
void layerNorm(NodeContext& n) {
  const std::vector<int64_t> shape = n.inputShape(0);
  const auto rank = static_cast<int64_t>(shape.size());
  const auto axis = static_cast<size_t>(n.normalizeAxis(n.attrInt("axis", -1), rank));
  const int64_t width = extentProduct(shape, axis, shape.size());
  const DataType dtype = n.inputDtype(0);
  auto vector = [&](const Expr& p) {
    if (extentProduct(n.shapeOf(p), 0, n.shapeOf(p).size()) != width)
      n.fail("onnx_shape", "scale and bias must have the normalised shape's " +
                               std::to_string(width) + " elements");
    return n.fold(reshapeTo(p, {width}));
  };
  Expr gamma = vector(n.input(1));
  Expr beta =
      n.hasInput(2) ? vector(n.input(2)) : relay::makeConstant(NDArray::empty({width}, dtype));
  Expr x = n.input(0);
  const bool flatten = axis + 1 != shape.size();
  if (flatten) x = reshapeTo(x, {extentProduct(shape, 0, axis), width});
  Expr y =
      relay::nn::layerNorm(x, gamma, beta, {.axis = -1, .epsilon = n.attrFloat("epsilon", 1e-5)});
  n.setOutput(0, flatten ? reshapeTo(y, shape) : y);
  if (n.outputUsed(1) || n.outputUsed(2)) {
    // Mean and InvStdDev over the normalised axes, kept as unit axes.
    std::vector<int64_t> axes;
    for (auto a = static_cast<int64_t>(axis); a < rank; ++a) axes.push_back(a);
    const relay::ReduceAttrs over{.axis = axes, .keepdims = true};
    const Expr mean = relay::mean(n.input(0), over);
    const Expr centred = relay::subtract(n.input(0), mean);
    const Expr variance = relay::mean(relay::multiply(centred, centred), over);
    const Expr eps = scalarConstant(n.attrFloat("epsilon", 1e-5), dtype);
    n.setOutput(1, mean);
    n.setOutput(2, relay::rsqrt(relay::add(variance, eps)));
  }
}

// Before opset 13 Softmax flattens to 2-D at `axis` (default 1) and normalises the trailing
// block; since 13 it normalises the one axis (default -1).
template <bool kLog>
void softmax(NodeContext& n) {
  const std::vector<int64_t> shape = n.inputShapeDynamicBatch(0);
  const auto rank = static_cast<int64_t>(shape.size());
  const bool legacy = n.opset() < 13;
  const int64_t axis = n.normalizeAxis(n.attrInt("axis", legacy ? 1 : -1), rank);
  auto apply = [](const Expr& x, int64_t a) {
    return kLog ? relay::nn::logSoftmax(x, {.axis = a}) : relay::nn::softmax(x, {.axis = a});
  };
  if (!legacy || axis == rank - 1) {
    n.setOutput(0, apply(n.input(0), axis));
    return;
  }
  if (shape[0] < 0)
    n.fail("onnx_dynamic", "a Softmax before opset 13 over a dynamic batch needs its extent");
  const auto split = static_cast<size_t>(axis);
  Expr flat = reshapeTo(
      n.input(0), {extentProduct(shape, 0, split), extentProduct(shape, split, shape.size())});
  n.setOutput(0, reshapeTo(apply(flat, 1), shape));
}

// Dropout. Inference, and training with a ratio of exactly 0, keep every element: the output is the
// input and the mask all true. Training with another ratio draws random numbers: unsupported.
void dropout(NodeContext& n) {
  const bool training =
      n.hasInput(2) && (!n.constantInput(2) || n.constantScalar(2, "training_mode") != 0);
  if (training && !(n.hasInput(1) && n.constantInput(1) && n.constantScalar(1, "ratio") == 0))
    n.fail("onnx_unsupported_attr",
           "training_mode must be a constant false (inference), or the ratio a constant 0: random "
           "dropout is not supported");
  n.setOutput(0, n.input(0));
  if (n.outputUsed(1)) {
    NDArray mask = NDArray::empty(n.inputShape(0), DataType::boolType());
    for (int64_t i = 0; i < mask.numel(); ++i) mask.setInt(i, 1);
    n.setOutput(1, relay::makeConstant(mask));
  }
}

// InstanceNormalization: each (n, c) plane normalised over its spatial axes, then scaled and
// shifted per channel.
void instanceNorm(NodeContext& n) {
  const int64_t rank = n.inputRank(0);
  if (rank < 3) n.fail("onnx_input", "input must have rank 3 or more (N, C, spatial...)");
  std::vector<int64_t> spatial;
  for (int64_t a = 2; a < rank; ++a) spatial.push_back(a);
  const relay::ReduceAttrs over{.axis = spatial, .keepdims = true};
  const DataType dtype = n.inputDtype(0);
  const Expr centred = relay::subtract(n.input(0), relay::mean(n.input(0), over));
  const Expr variance = relay::mean(relay::multiply(centred, centred), over);
  const Expr eps = scalarConstant(n.attrFloat("epsilon", 1e-5), dtype);
  const Expr normalised = relay::divide(centred, relay::sqrt(relay::add(variance, eps)));
  // scale and B are (C): laid along axis 1.
  const Expr scale = relay::expandDims(n.input(1), 1, static_cast<int>(rank - 2));
  const Expr bias = relay::expandDims(n.input(2), 1, static_cast<int>(rank - 2));
  n.setOutput(0, relay::add(relay::multiply(normalised, scale), bias));
}

/// Largest matrix order Det unrolls (the graph grows with the square of it).
constexpr int64_t kMaxDetOrder = 64;

// Det: LU decomposition with partial pivoting, unrolled over the static order M on the batch
// flattened to [B, M, M]. Each step works on the trailing m x m block: the pivot row is the argmax
// of |first column|, picked by a one-hot `where` + `sum` (exact: one term, no 0 x inf), and swapped
// with row 0 by `where`; the pivot (negated when rows were swapped) multiplies the determinant and
// the rows below are eliminated. A zero pivot means the whole column is zero: dividing by 1 instead
// keeps the factors 0, so a singular matrix gives exactly 0 rather than NaN.
void det(NodeContext& n) {
  const std::vector<int64_t> shape = n.inputShape(0);
  const size_t rank = shape.size();
  if (rank < 2 || shape[rank - 1] != shape[rank - 2])
    n.fail("onnx_shape", "the input must be [..., M, M]");
  const DataType dtype = n.inputDtype(0);
  if (!dtype.isFloat()) n.fail("onnx_input", "the input must be a float tensor");
  const int64_t order = shape[rank - 1];
  if (order > kMaxDetOrder)
    n.fail("onnx_unsupported_size", "matrices of order " + std::to_string(order) +
                                        " exceed the supported " + std::to_string(kMaxDetOrder));
  const std::vector<int64_t> batchShape(shape.begin(), shape.end() - 2);
  const int64_t batch = extentProduct(shape, 0, rank - 2);
  if (order == 0) {
    n.setOutput(0, relay::ones(batchShape, dtype));
    return;
  }
  const Expr zero = scalarConstant(0, dtype), one = scalarConstant(1, dtype);
  const Expr first = relay::makeConstant(NDArray::scalarInt(0, DataType::int64()));
  Expr block = relay::reshape(n.input(0), {batch, order, order});
  Expr result;
  for (int64_t m = order; m >= 1; --m) {
    if (m == 1) {
      Expr last = relay::reshape(block, {batch});
      result = result ? relay::multiply(result, last) : last;
      break;
    }
    const Expr column = relay::take(block, first, 2);  // [B, m]
    const Expr pivotAt = relay::argmax(relay::abs(column), {.axis = std::vector<int64_t>{1}});
    NDArray rows = NDArray::empty({m}, DataType::int32());
    for (int64_t i = 0; i < m; ++i) rows.setInt(i, i);
    const Expr isPivot = relay::expandDims(
        relay::equal(relay::makeConstant(rows), relay::expandDims(pivotAt, 1)), 2);  // [B, m, 1]
    const Expr pivotRow =
        relay::sum(relay::where(isPivot, block, zero), {.axis = std::vector<int64_t>{1}});
    const Expr topRow = relay::expandDims(relay::take(block, first, 1), 1);  // [B, 1, m]
    // Rows 1..m-1 after the swap: the pivot's old place takes row 0.
    const Expr below = relay::where(relay::stridedSlice(isPivot, {1}, {m}, {1}, {{1}}), topRow,
                                    relay::stridedSlice(block, {1}, {m}, {1}, {{1}}));
    const Expr pivot = relay::take(pivotRow, first, 1);  // [B]
    const Expr swapped =
        relay::notEqual(pivotAt, relay::makeConstant(NDArray::scalarInt(0, DataType::int32())));
    const Expr signedPivot = relay::where(swapped, relay::negative(pivot), pivot);
    result = result ? relay::multiply(result, signedPivot) : signedPivot;
    const Expr divisor = relay::where(relay::equal(pivot, zero), one, pivot);
    const Expr factors =
        relay::divide(relay::take(below, first, 2), relay::expandDims(divisor, 1));  // [B, m-1]
    const Expr pivotTail =
        relay::expandDims(relay::stridedSlice(pivotRow, {1}, {m}, {1}, {{1}}), 1);  // [B, 1, m-1]
    block = relay::subtract(relay::stridedSlice(below, {1}, {m}, {1}, {{2}}),
                            relay::multiply(relay::expandDims(factors, 2), pivotTail));
  }
  n.setOutput(0, relay::reshape(result, batchShape));
}

constexpr ConverterRow kRows[] = {
    {"BatchNormalization", batchNorm, "inference; training mode with batch statistics"},
    {"InstanceNormalization", instanceNorm, "epsilon"},
    {"Det", det, "LU with partial pivoting unrolled over M <= 64; batched"},
    {"Dropout", dropout, "inference, or training with ratio 0: identity"},
    {"Gemm", gemm, "alpha, beta, transA, transB"},
    {"LayerNormalization", layerNorm, "opset 17; any axis; Y output only"},
    {"LogSoftmax", softmax<true>, "opset < 13: 2-D coercion; 13+: axis"},
    {"MatMul", matmul, "numpy semantics incl. 1-D operands and batch broadcasting"},
    {"Softmax", softmax<false>, "opset < 13: 2-D coercion; 13+: axis"},
};

}  // namespace

std::span<const ConverterRow> linalgConverters() {
  return kRows;
}

}  // namespace tessera::frontend::onnx
