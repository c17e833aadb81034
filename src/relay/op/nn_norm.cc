// Normalisation-style nn ops: nn.batch_norm (inference meaning, 3-tuple result), nn.layer_norm,
// nn.bias_add and nn.dropout (identity at inference). Their relations assign the per-channel
// parameter types, so a frontend may leave gamma/beta/mean/var/bias untyped.
#include <cmath>

#include "relay/op/nn.h"
#include "relay/op/op_common.h"
#include "relay/op/op_families.h"

namespace tessera::relay {

namespace nn {

Expr batchNorm(Expr data, Expr gamma, Expr beta, Expr movingMean, Expr movingVar,
               BatchNormAttrs attrs) {
  return makeCall(opByName("nn.batch_norm"),
                  {std::move(data), std::move(gamma), std::move(beta), std::move(movingMean),
                   std::move(movingVar)},
                  makeAttrs(std::move(attrs)));
}

Expr layerNorm(Expr data, Expr gamma, Expr beta, LayerNormAttrs attrs) {
  return makeCall(opByName("nn.layer_norm"), {std::move(data), std::move(gamma), std::move(beta)},
                  makeAttrs(std::move(attrs)));
}

Expr biasAdd(Expr data, Expr bias, BiasAddAttrs attrs) {
  return makeCall(opByName("nn.bias_add"), {std::move(data), std::move(bias)},
                  makeAttrs(std::move(attrs)));
}

Expr dropoutRaw(Expr data, DropoutAttrs attrs) {
  return makeCall(opByName("nn.dropout"), {std::move(data)}, makeAttrs(std::move(attrs)));
}

Expr dropout(Expr data, DropoutAttrs attrs) {
  return makeTupleGetItem(dropoutRaw(std::move(data), std::move(attrs)), 0);
}

namespace detail {

int normalizeAxisOf(int64_t axis, const TensorTypeNode& data, const TypeReporter& r,
                    const std::string& code) {
  const int rank = data.ndim();
  const int64_t normalized = axis < 0 ? axis + rank : axis;
  if (normalized < 0 || normalized >= rank)
    r.fail(code, "axis " + std::to_string(axis) + " is out of range for data shape " +
                     shapeToString(data.shape) + " of rank " + std::to_string(rank));
  return static_cast<int>(normalized);
}

void assignVector(const TypeReporter& r, size_t index, const std::string& name, const Dim& extent,
                  DataType dtype, const TensorTypeNode& data, int axis, const std::string& code) {
  const Type expected = tensorType(Shape{extent}, dtype);
  // Checked before the assignment so that the error carries the constraint label.
  if (const TensorTypeNode* known = r.tensorArg(index)) {
    if (known->ndim() != 1 || dimsConflict(known->shape[0], extent) || known->dtype != dtype)
      r.fail(code, name + " has type " + typeToString(r.arg(index)) + " but " +
                       typeToString(expected) + " is expected (axis " + std::to_string(axis) +
                       " of data shape " + shapeToString(data.shape) + ")");
  }
  r.assign(index, expected);
}

}  // namespace detail
}  // namespace nn

namespace {

using nn::BatchNormAttrs;
using nn::BiasAddAttrs;
using nn::DropoutAttrs;
using nn::LayerNormAttrs;
using nn::detail::assignVector;
using nn::detail::normalizeAxisOf;

// Sizes that let a flat index be split as (outer, channel, inner) around one axis.
struct AxisSplit {
  int64_t extent = 1;  // the axis' own extent
  int64_t inner = 1;   // product of the extents after the axis
  int64_t outer = 1;   // product of the extents before the axis
  int64_t channelOf(int64_t flat) const { return (flat / inner) % extent; }
};

AxisSplit splitAt(const std::vector<int64_t>& shape, int axis) {
  AxisSplit s;
  s.extent = shape[axis];
  for (int d = 0; d < axis; ++d) s.outer *= shape[d];
  for (size_t d = axis + 1; d < shape.size(); ++d) s.inner *= shape[d];
  return s;
}

// Kernels run after the relation, so the axis is known to be in range.
int kernelAxis(int64_t axis, int rank) {
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

// TVM's BatchNormRel, but any in-range negative axis is accepted (TVM allows only -1).
std::optional<Type> batchNormRel(const TypeReporter& r) {
  const TensorTypeNode* data = r.tensorArg(0);
  if (!data) return std::nullopt;
  const int axis = normalizeAxisOf(r.attrs<BatchNormAttrs>().axis, *data, r, "batch_norm_c1");
  const Dim c = data->shape[axis];
  const char* names[] = {"gamma", "beta", "moving_mean", "moving_var"};
  for (size_t i = 1; i <= 4; ++i)
    assignVector(r, i, names[i - 1], c, data->dtype, *data, axis, "batch_norm_c2");
  const Type vec = tensorType(Shape{c}, data->dtype);
  return tupleType({r.arg(0), vec, vec});
}

// (x - mean[c]) / sqrt(var[c] + epsilon) * gamma[c] + beta[c]; mean and var are passed through.
Value batchNormKernel(const std::vector<Value>& args, const AttrsNode* attrs, const Type& outType) {
  const BatchNormAttrs& a = *attrsAs<BatchNormAttrs>(attrs);
  const NDArray& x = tensorAt(args, 0);
  const NDArray& gamma = tensorAt(args, 1);
  const NDArray& beta = tensorAt(args, 2);
  const NDArray& mean = tensorAt(args, 3);
  const NDArray& var = tensorAt(args, 4);
  NDArray out = allocTensor(outType->as<TupleTypeNode>()->fields[0]);
  const AxisSplit split = splitAt(x.shape(), kernelAxis(a.axis, x.ndim()));
  for (int64_t i = 0; i < x.numel(); ++i) {
    const int64_t c = split.channelOf(i);
    double v = (x.getFloat(i) - mean.getFloat(c)) / std::sqrt(var.getFloat(c) + a.epsilon);
    if (a.scale) v *= gamma.getFloat(c);
    if (a.center) v += beta.getFloat(c);
    out.setFloat(i, v);
  }
  // Inference leaves the moving statistics untouched; training-time updates are out of scope.
  return Value::tuple({out, mean, var});
}

// TVM's LayerNormRel: one axis, gamma and beta sized by it.
std::optional<Type> layerNormRel(const TypeReporter& r) {
  const TensorTypeNode* data = r.tensorArg(0);
  if (!data) return std::nullopt;
  const int axis = normalizeAxisOf(r.attrs<LayerNormAttrs>().axis, *data, r, "layer_norm_c1");
  assignVector(r, 1, "gamma", data->shape[axis], data->dtype, *data, axis, "layer_norm_c2");
  assignVector(r, 2, "beta", data->shape[axis], data->dtype, *data, axis, "layer_norm_c2");
  return r.arg(0);
}

// Each line along `axis` is normalised by its own mean and (population) variance.
Value layerNormKernel(const std::vector<Value>& args, const AttrsNode* attrs, const Type& outType) {
  const LayerNormAttrs& a = *attrsAs<LayerNormAttrs>(attrs);
  const NDArray& x = tensorAt(args, 0);
  const NDArray& gamma = tensorAt(args, 1);
  const NDArray& beta = tensorAt(args, 2);
  NDArray out = allocTensor(outType);
  const AxisSplit s = splitAt(x.shape(), kernelAxis(a.axis, x.ndim()));
  for (int64_t o = 0; o < s.outer; ++o)
    for (int64_t in = 0; in < s.inner; ++in) {
      auto flat = [&](int64_t c) { return (o * s.extent + c) * s.inner + in; };
      double sum = 0;
      for (int64_t c = 0; c < s.extent; ++c) sum += x.getFloat(flat(c));
      const double mean = sum / static_cast<double>(s.extent);
      double squares = 0;
      for (int64_t c = 0; c < s.extent; ++c)
        squares += (x.getFloat(flat(c)) - mean) * (x.getFloat(flat(c)) - mean);
      const double var = squares / static_cast<double>(s.extent);
      for (int64_t c = 0; c < s.extent; ++c) {
        double v = (x.getFloat(flat(c)) - mean) / std::sqrt(var + a.epsilon);
        if (a.scale) v *= gamma.getFloat(c);
        if (a.center) v += beta.getFloat(c);
        out.setFloat(flat(c), v);
      }
    }
  return out;
}

std::optional<Type> biasAddRel(const TypeReporter& r) {
  const TensorTypeNode* data = r.tensorArg(0);
  if (!data) return std::nullopt;
  const int axis = normalizeAxisOf(r.attrs<BiasAddAttrs>().axis, *data, r, "bias_add_c1");
  assignVector(r, 1, "bias", data->shape[axis], data->dtype, *data, axis, "bias_add_c2");
  return r.arg(0);
}

// out = x + bias[c], in the data's dtype (integers wrap).
Value biasAddKernel(const std::vector<Value>& args, const AttrsNode* attrs, const Type& outType) {
  const BiasAddAttrs& a = *attrsAs<BiasAddAttrs>(attrs);
  const NDArray& x = tensorAt(args, 0);
  const NDArray& bias = tensorAt(args, 1);
  NDArray out = allocTensor(outType);
  const AxisSplit split = splitAt(x.shape(), kernelAxis(a.axis, x.ndim()));
  for (int64_t i = 0; i < x.numel(); ++i) {
    // An accumulator of two terms gives exact, wrapping integer addition for free.
    nn::detail::Accumulator acc(x.dtype());
    acc.add(x, i);
    acc.add(bias, split.channelOf(i));
    acc.store(out, i);
  }
  return out;
}

std::optional<Type> dropoutRel(const TypeReporter& r) {
  if (!r.tensorArg(0)) return std::nullopt;
  return tupleType({r.arg(0), r.arg(0)});
}

// Inference meaning: nothing is dropped, so output 0 is the input and output 1 (the keep mask,
// 1 where an element is kept) is all ones.
Value dropoutKernel(const std::vector<Value>& args, const AttrsNode* attrs, const Type& outType) {
  (void)attrs;
  const NDArray& x = tensorAt(args, 0);
  NDArray mask = allocTensor(outType->as<TupleTypeNode>()->fields[1]);
  for (int64_t i = 0; i < mask.numel(); ++i) mask.setInt(i, 1);
  // Sharing the input buffer is safe: values are immutable once produced.
  return Value::tuple({x, mask});
}

}  // namespace

void registerNormOps(OpRegistry& r) {
  r.add(OpDef{.name = "nn.batch_norm",
              .args = {"data", "gamma", "beta", "moving_mean", "moving_var"},
              .summary = "batch normalisation with moving statistics (inference meaning)",
              .attrs = attrsType<BatchNormAttrs>(),
              .typeRelation = batchNormRel,
              .pattern = OpPattern::kOutEWiseFusable,
              .kernel = batchNormKernel,
              .supportLevel = 1});
  // TVM registers no TOpPattern for layer_norm, which makes it opaque.
  r.add(OpDef{.name = "nn.layer_norm",
              .args = {"data", "gamma", "beta"},
              .summary = "layer normalisation along one axis",
              .attrs = attrsType<LayerNormAttrs>(),
              .typeRelation = layerNormRel,
              .pattern = OpPattern::kOpaque,
              .kernel = layerNormKernel,
              .supportLevel = 1});
  r.add(OpDef{.name = "nn.bias_add",
              .args = {"data", "bias"},
              .summary = "adds a 1-D bias along one axis",
              .attrs = attrsType<BiasAddAttrs>(),
              .typeRelation = biasAddRel,
              .pattern = OpPattern::kBroadcast,
              .kernel = biasAddKernel,
              .supportLevel = 1});
  r.add(OpDef{.name = "nn.dropout",
              .args = {"data"},
              .summary = "dropout; identity with an all-ones mask at inference",
              .attrs = attrsType<DropoutAttrs>(),
              .typeRelation = dropoutRel,
              .pattern = OpPattern::kOpaque,
              .kernel = dropoutKernel,
              .stateful = true,
              .supportLevel = 1});
}

}  // namespace tessera::relay
