// Activation ops: nn.relu and nn.leaky_relu (elementwise, any dtype) and nn.softmax /
// nn.log_softmax along one axis. Float math is done in double and rounded once on store; integer
// inputs go through the same double formula and are truncated toward zero on store.
#include <algorithm>
#include <cmath>

#include "relay/op/nn.h"
#include "relay/op/op_common.h"
#include "relay/op/op_families.h"

namespace tessera::relay {

namespace nn {

Expr relu(Expr data) {
  return makeCall(opByName("nn.relu"), {std::move(data)});
}

Expr leakyRelu(Expr data, LeakyReluAttrs attrs) {
  return makeCall(opByName("nn.leaky_relu"), {std::move(data)}, makeAttrs(std::move(attrs)));
}

Expr softmax(Expr data, SoftmaxAttrs attrs) {
  return makeCall(opByName("nn.softmax"), {std::move(data)}, makeAttrs(std::move(attrs)));
}

Expr logSoftmax(Expr data, SoftmaxAttrs attrs) {
  return makeCall(opByName("nn.log_softmax"), {std::move(data)}, makeAttrs(std::move(attrs)));
}

}  // namespace nn

namespace {

using nn::LeakyReluAttrs;
using nn::SoftmaxAttrs;

// max(x, 0). Integers stay exact (unsigned values are never negative, so they are copied).
Value reluKernel(const std::vector<Value>& args, const AttrsNode* attrs, const Type& outType) {
  (void)attrs;
  const NDArray& x = tensorAt(args, 0);
  NDArray out = allocTensor(outType);
  const DataType t = x.dtype();
  for (int64_t i = 0; i < x.numel(); ++i) {
    if (t.isFloat())
      out.setFloat(i, std::max(x.getFloat(i), 0.0));
    else if (t.isInt())
      out.setInt(i, std::max<int64_t>(x.getInt(i), 0));
    else
      out.setUInt(i, x.getUInt(i));
  }
  return out;
}

// x > 0 ? x : alpha * x. For integers the product is computed in double and truncated (TVM would
// first cast alpha to the integer dtype, which makes 0 < alpha < 1 a zero slope).
Value leakyReluKernel(const std::vector<Value>& args, const AttrsNode* attrs, const Type& outType) {
  const double alpha = attrsAs<LeakyReluAttrs>(attrs)->alpha;
  const NDArray& x = tensorAt(args, 0);
  NDArray out = allocTensor(outType);
  const DataType t = x.dtype();
  for (int64_t i = 0; i < x.numel(); ++i) {
    if (!t.isFloat() && !t.isInt()) {
      out.setUInt(i, x.getUInt(i));  // unsigned: never negative
      continue;
    }
    if (t.isInt() && x.getInt(i) > 0) {
      out.setInt(i, x.getInt(i));  // exact, even for int64 beyond 2^53
      continue;
    }
    const double v = x.getFloat(i);
    out.setFloat(i, v > 0 ? v : alpha * v);
  }
  return out;
}

// One relation for both ops; the template argument only picks the constraint label.
template <const char* kCode>
std::optional<Type> softmaxRel(const TypeReporter& r) {
  const TensorTypeNode* data = r.tensorArg(0);
  if (!data) return std::nullopt;
  nn::detail::normalizeAxisOf(r.attrs<SoftmaxAttrs>().axis, *data, r, kCode);
  return r.arg(0);
}
constexpr char kSoftmaxC1[] = "softmax_c1";
constexpr char kLogSoftmaxC1[] = "log_softmax_c1";

// Along the axis: m = max x, s = sum exp(x - m); softmax = exp(x - m) / s,
// log_softmax = (x - m) - log s.
Value softmaxCompute(const std::vector<Value>& args, const AttrsNode* attrs, const Type& outType,
                     bool logarithm) {
  const NDArray& x = tensorAt(args, 0);
  NDArray out = allocTensor(outType);
  const std::vector<int64_t>& dims = x.shape();
  const int64_t rank = static_cast<int64_t>(dims.size());
  const int64_t axisAttr = attrsAs<SoftmaxAttrs>(attrs)->axis;
  const int64_t axis = axisAttr < 0 ? axisAttr + rank : axisAttr;
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= dims[d];
  for (int64_t d = axis + 1; d < rank; ++d) inner *= dims[d];
  const int64_t extent = dims[axis];
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t in = 0; in < inner; ++in) {
      auto flat = [&](int64_t c) { return (o * extent + c) * inner + in; };
      // Subtracting the maximum keeps exp() finite for large inputs without changing the result.
      double m = -INFINITY;
      for (int64_t c = 0; c < extent; ++c) m = std::max(m, x.getFloat(flat(c)));
      double s = 0;
      for (int64_t c = 0; c < extent; ++c) s += std::exp(x.getFloat(flat(c)) - m);
      for (int64_t c = 0; c < extent; ++c) {
        const double shifted = x.getFloat(flat(c)) - m;
        out.setFloat(flat(c), logarithm ? shifted - std::log(s) : std::exp(shifted) / s);
      }
    }
  return out;
}

}  // namespace

void registerActivationOps(OpRegistry& r) {
  // relu and leaky_relu keep shape and dtype (TVM's IdentityRel), hence kElemWise.
  r.add(OpDef{.name = "nn.relu",
              .args = {"data"},
              .summary = "rectified linear unit max(x, 0)",
              .typeRelation = identityRel,
              .pattern = OpPattern::kElemWise,
              .kernel = reluKernel,
              .supportLevel = 1});
  r.add(OpDef{.name = "nn.leaky_relu",
              .args = {"data"},
              .summary = "leaky rectified linear unit x > 0 ? x : alpha * x",
              .attrs = attrsType<LeakyReluAttrs>(),
              .typeRelation = identityRel,
              .pattern = OpPattern::kElemWise,
              .kernel = leakyReluKernel,
              .supportLevel = 3});
  r.add(OpDef{
      .name = "nn.softmax",
      .args = {"data"},
      .summary = "softmax along one axis",
      .attrs = attrsType<SoftmaxAttrs>(),
      .typeRelation = softmaxRel<kSoftmaxC1>,
      .pattern = OpPattern::kOutEWiseFusable,
      .kernel = [](const std::vector<Value>& args, const AttrsNode* attrs,
                   const Type& outType) { return softmaxCompute(args, attrs, outType, false); },
      .supportLevel = 1});
  r.add(OpDef{
      .name = "nn.log_softmax",
      .args = {"data"},
      .summary = "logarithm of softmax along one axis",
      .attrs = attrsType<SoftmaxAttrs>(),
      .typeRelation = softmaxRel<kLogSoftmaxC1>,
      .pattern = OpPattern::kOutEWiseFusable,
      .kernel = [](const std::vector<Value>& args, const AttrsNode* attrs,
                   const Type& outType) { return softmaxCompute(args, attrs, outType, true); },
      .supportLevel = 1});
}

}  // namespace tessera::relay
