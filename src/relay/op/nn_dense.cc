// nn.dense and nn.batch_matmul: TVM's MatmulRel (dense assigns the weight type when units is set)
// and BatchMatmulRel, with plain-loop reference kernels that cast inputs to the output dtype and
// accumulate in it.
#include "relay/op/nn.h"
#include "relay/op/op_common.h"
#include "relay/op/op_families.h"

namespace tessera::relay {

namespace nn {

Expr dense(Expr data, Expr weight, DenseAttrs attrs) {
  return makeCall(opByName("nn.dense"), {std::move(data), std::move(weight)},
                  makeAttrs(std::move(attrs)));
}

Expr batchMatmul(Expr tensorA, Expr tensorB, DataType outDtype, bool transposeA, bool transposeB) {
  return makeCall(opByName("nn.batch_matmul"), {std::move(tensorA), std::move(tensorB)},
                  makeAttrs(BatchMatmulAttrs{
                      .outDtype = outDtype, .transposeA = transposeA, .transposeB = transposeB}));
}

}  // namespace nn

namespace {

using nn::BatchMatmulAttrs;
using nn::DenseAttrs;
using nn::detail::dimsConflict;

// Tessera's extension for VTA (vta/graph/graph_pack.h; TVM's graph_pack leaves dense alone): the
// blocked form TVM's dense_packed computes, data (N/b, K/c, b, c) x weight (O/c', K/c, c', c) ->
// (N/b, O/c', b, c'). A 4-D weight is the only sign of it: a plain weight is 2-D.
std::optional<Type> packedDenseRel(const TypeReporter& r, const TensorTypeNode* data,
                                   const TensorTypeNode* weight, const DenseAttrs& a) {
  const std::string shapes =
      "data shape " + shapeToString(data->shape) + ", weight shape " + shapeToString(weight->shape);
  if (data->ndim() != 4)
    r.fail("dense_c4", "a 4-D (packed) weight needs 4-D packed data (N/b, K/c, b, c): " + shapes);
  if (dimsConflict(data->shape[1], weight->shape[1]) ||
      dimsConflict(data->shape[3], weight->shape[3]))
    r.fail("dense_c4",
           "packed data and weight disagree on the K blocks (axis 1) or their lanes (axis 3): " +
               shapes);
  const Dim& blocks = weight->shape[0];
  const Dim& lanes = weight->shape[2];
  if (a.units && blocks.isConst() && lanes.isConst() && *a.units != blocks.value() * lanes.value())
    r.fail("dense_c3", "units=" + std::to_string(*a.units) + " does not match packed " + shapes);
  return tensorType(Shape{data->shape[0], blocks, data->shape[2], lanes},
                    a.outDtype.isVoid() ? data->dtype : a.outDtype);
}

// TVM's MatmulRel<DenseAttrs>. With units set the weight's type follows from the data alone, which
// is what lets a frontend leave dense weights untyped.
std::optional<Type> denseRel(const TypeReporter& r) {
  const TensorTypeNode* data = r.tensorArg(0);
  if (!data) return std::nullopt;
  const TensorTypeNode* weight = r.tensorArg(1);
  const DenseAttrs& a = r.attrs<DenseAttrs>();
  if (data->ndim() < 1) r.fail("dense_c1", "data must have rank >= 1 but has shape ()");
  if (weight && weight->ndim() == 4) return packedDenseRel(r, data, weight, a);
  if (weight && weight->ndim() != 2)
    r.fail("dense_c1",
           "weight must be 2-D (units, K), or 4-D in VTA's packed form, but has shape " +
               shapeToString(weight->shape));
  const Dim k = data->shape.back();
  Dim units = 0;
  if (a.units) {
    if (*a.units < 0) r.fail("dense_c3", "units must be >= 0 but is " + std::to_string(*a.units));
    units = *a.units;
    // Checked here, before the assignment, so the error names the constraint.
    if (weight && dimsConflict(weight->shape[0], units))
      r.fail("dense_c3", "units=" + std::to_string(*a.units) + " does not match weight shape " +
                             shapeToString(weight->shape));
    if (weight) r.assumeEqual(k, weight->shape[1], "the input features (K) of data and weight");
    if (weight && dimsConflict(weight->shape[1], k))
      r.fail("dense_c2", "data shape " + shapeToString(data->shape) + " has " + k.str() +
                             " input features but weight shape " + shapeToString(weight->shape) +
                             " has " + weight->shape[1].str());
    r.assign(1, tensorType(Shape{units, k}, weight ? weight->dtype : data->dtype));
  } else {
    if (!weight) return std::nullopt;
    r.assumeEqual(k, weight->shape[1], "the input features (K) of data and weight");
    if (dimsConflict(weight->shape[1], k))
      r.fail("dense_c2", "data shape " + shapeToString(data->shape) + " has " + k.str() +
                             " input features but weight shape " + shapeToString(weight->shape) +
                             " has " + weight->shape[1].str());
    units = weight->shape[0];
  }
  Shape out = data->shape;
  out.back() = units;
  return tensorType(out, a.outDtype.isVoid() ? data->dtype : a.outDtype);
}

// The packed form: out[bo, co, bi, ci] = sum_{ko, ki} x[bo, ko, bi, ki] * w[co, ko, ci, ki].
Value packedDenseKernel(const NDArray& x, const NDArray& w, const Type& outType) {
  const DataType dtype = outType->as<TensorTypeNode>()->dtype;
  NDArray out = allocTensor(outType);
  const std::vector<int64_t>& xs = x.shape();
  const std::vector<int64_t>& ws = w.shape();
  const int64_t kBlocks = xs[1], kLanes = xs[3];
  for (int64_t bo = 0; bo < xs[0]; ++bo)
    for (int64_t co = 0; co < ws[0]; ++co)
      for (int64_t bi = 0; bi < xs[2]; ++bi)
        for (int64_t ci = 0; ci < ws[2]; ++ci) {
          nn::detail::Accumulator acc(dtype);
          for (int64_t ko = 0; ko < kBlocks; ++ko)
            for (int64_t ki = 0; ki < kLanes; ++ki)
              acc.mac(x, ((bo * kBlocks + ko) * xs[2] + bi) * kLanes + ki, w,
                      ((co * kBlocks + ko) * ws[2] + ci) * kLanes + ki);
          acc.store(out, ((bo * ws[0] + co) * xs[2] + bi) * ws[2] + ci);
        }
  return out;
}

// out[r, n] = sum_k x[r, k] * w[n, k] over the flattened leading axes r of x.
Value denseKernel(const std::vector<Value>& args, const AttrsNode* attrs, const Type& outType) {
  (void)attrs;  // units only shapes the type, which outType already carries
  const DataType dtype = outType->as<TensorTypeNode>()->dtype;
  const NDArray x = nn::detail::castTensor(tensorAt(args, 0), dtype);
  const NDArray w = nn::detail::castTensor(tensorAt(args, 1), dtype);
  if (w.shape().size() == 4) return packedDenseKernel(x, w, outType);
  NDArray out = allocTensor(outType);
  const int64_t units = w.shape()[0], k = w.shape()[1];
  // Leading axes flatten to rows; computed from the shape so that K = 0 needs no division.
  int64_t rows = 1;
  for (size_t d = 0; d + 1 < x.shape().size(); ++d) rows *= x.shape()[d];
  for (int64_t row = 0; row < rows; ++row)
    for (int64_t n = 0; n < units; ++n) {
      nn::detail::Accumulator acc(dtype);
      for (int64_t i = 0; i < k; ++i) acc.mac(x, row * k + i, w, n * k + i);
      acc.store(out, row * units + n);
    }
  return out;
}

// TVM's BatchMatmulRel: both operands must be known (nothing is assigned).
std::optional<Type> batchMatmulRel(const TypeReporter& r) {
  const TensorTypeNode* x = r.tensorArg(0);
  const TensorTypeNode* y = r.tensorArg(1);
  if (!x || !y) return std::nullopt;
  const BatchMatmulAttrs& a = r.attrs<BatchMatmulAttrs>();
  const std::string shapes =
      "tensor_a shape " + shapeToString(x->shape) + ", tensor_b shape " + shapeToString(y->shape);
  if (x->ndim() != 3 || y->ndim() != 3)
    r.fail("batch_matmul_c1", "both inputs must be 3-D: " + shapes);
  const Dim& xb = x->shape[0];
  const Dim& xi = a.transposeA ? x->shape[2] : x->shape[1];
  const Dim& xk = a.transposeA ? x->shape[1] : x->shape[2];
  const Dim& yb = y->shape[0];
  const Dim& yk = a.transposeB ? y->shape[2] : y->shape[1];
  const Dim& yj = a.transposeB ? y->shape[1] : y->shape[2];
  const bool oneBatch = (xb.isConst() && xb.value() == 1) || (yb.isConst() && yb.value() == 1);
  if (dimsConflict(xb, yb) && !oneBatch)
    r.fail("batch_matmul_c2", "batch dimensions " + xb.str() + " and " + yb.str() +
                                  " differ and neither is 1: " + shapes);
  r.assumeEqual(xk, yk, "the reduction dimensions of the inputs");
  if (dimsConflict(xk, yk))
    r.fail("batch_matmul_c3", "reduction dimensions " + xk.str() + " and " + yk.str() +
                                  " differ (transpose_a=" + (a.transposeA ? "True" : "False") +
                                  ", transpose_b=" + (a.transposeB ? "True" : "False") +
                                  "): " + shapes);
  // A symbolic batch could be 1 or not; like TVM, the result's batch is then unknown, except
  // where a shape function assumes two batches equal (checked when the program runs).
  Dim batch = xb.isConst() && yb.isConst() ? Dim(std::max(xb.value(), yb.value())) : Dim::any();
  if (!oneBatch && r.assumeEqual(xb, yb, "the batch dimensions of the inputs"))
    batch = yb.isConst() ? yb : xb;
  return tensorType(Shape{batch, xi, yj}, a.outDtype.isVoid() ? x->dtype : a.outDtype);
}

// out[b, i, j] = sum_k A[b, i, k] * B[b, j, k] (NT form; the transposes pick other strides), with
// a batch extent of 1 broadcast.
Value batchMatmulKernel(const std::vector<Value>& args, const AttrsNode* attrs,
                        const Type& outType) {
  const BatchMatmulAttrs& a = *attrsAs<BatchMatmulAttrs>(attrs);
  const DataType dtype = outType->as<TensorTypeNode>()->dtype;
  const NDArray x = nn::detail::castTensor(tensorAt(args, 0), dtype);
  const NDArray y = nn::detail::castTensor(tensorAt(args, 1), dtype);
  NDArray out = allocTensor(outType);
  const std::vector<int64_t>& o = out.shape();
  const std::vector<int64_t>& xs = x.shape();
  const std::vector<int64_t>& ys = y.shape();
  const int64_t k = a.transposeA ? xs[1] : xs[2];
  for (int64_t b = 0; b < o[0]; ++b)
    for (int64_t i = 0; i < o[1]; ++i)
      for (int64_t j = 0; j < o[2]; ++j) {
        const int64_t xb = xs[0] == 1 ? 0 : b;
        const int64_t yb = ys[0] == 1 ? 0 : b;
        nn::detail::Accumulator acc(dtype);
        for (int64_t t = 0; t < k; ++t) {
          const std::vector<int64_t> xc =
              a.transposeA ? std::vector<int64_t>{xb, t, i} : std::vector<int64_t>{xb, i, t};
          const std::vector<int64_t> yc =
              a.transposeB ? std::vector<int64_t>{yb, j, t} : std::vector<int64_t>{yb, t, j};
          acc.mac(x, ravelIndex(xc, xs), y, ravelIndex(yc, ys));
        }
        acc.store(out, ravelIndex({b, i, j}, o));
      }
  return out;
}

}  // namespace

void registerDenseOps(OpRegistry& r) {
  r.add(OpDef{.name = "nn.dense",
              .args = {"data", "weight"},
              .summary = "linear transformation y = x W^T with a (units, K) weight",
              .attrs = attrsType<DenseAttrs>(),
              .typeRelation = denseRel,
              .pattern = OpPattern::kOutEWiseFusable,
              .kernel = denseKernel,
              .supportLevel = 1});
  r.add(OpDef{.name = "nn.batch_matmul",
              .args = {"tensor_a", "tensor_b"},
              .summary = "batched matrix product of 3-D tensors, optionally transposed",
              .attrs = attrsType<BatchMatmulAttrs>(),
              .typeRelation = batchMatmulRel,
              .pattern = OpPattern::kOutEWiseFusable,
              .kernel = batchMatmulKernel,
              .supportLevel = 10});
}

}  // namespace tessera::relay
