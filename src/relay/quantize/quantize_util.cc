#include "relay/quantize/quantize_util.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "relay/builder.h"
#include "relay/op/op_common.h"
#include "relay/op/tensor.h"
#include "relay/visit.h"
#include "support/check.h"

namespace tessera::relay::quantize {

bool isConstantExpr(const Expr& e) {
  bool constant = true;
  postOrderVisit(e, [&](const Expr& node) {
    if (node->as<VarNode>()) constant = false;
  });
  return constant;
}

namespace {

// cannotBeNegative with a memo (a DAG of shared sums is not walked once per path) and a depth
// limit (an unproven value is taken as possibly negative).
bool nonNegative(const Expr& e, std::unordered_map<const ExprNode*, bool>& memo, int depth) {
  if (auto it = memo.find(e.get()); it != memo.end()) return it->second;
  if (depth > 256) return false;
  auto all = [&](const std::vector<Expr>& v) {
    for (const Expr& x : v)
      if (!nonNegative(x, memo, depth + 1)) return false;
    return true;
  };
  bool result = false;
  const auto* call = e->as<CallNode>();
  const auto* op = call ? call->op->as<OpNode>() : nullptr;
  if (const auto* c = e->as<ConstantNode>()) {
    result = c->hasData();
    for (int64_t i = 0; result && i < c->data.numel(); ++i) result = c->data.getFloat(i) >= 0;
  } else if (const auto* t = e->as<TupleNode>()) {
    result = all(t->fields);
  } else if (op && !call->args.empty()) {
    // Ops whose values are some of (or averages of, or quantized) values of their first input.
    static const char* const kKeepSign[] = {"relay.op.annotation.simulated_quantize",
                                            "annotation.stop_fusion",
                                            "annotation.cast_hint",
                                            "cast",
                                            "nn.max_pool2d",
                                            "nn.avg_pool2d",
                                            "nn.global_avg_pool2d",
                                            "nn.global_max_pool2d",
                                            "nn.adaptive_avg_pool2d",
                                            "reshape",
                                            "transpose",
                                            "nn.batch_flatten",
                                            "strided_slice",
                                            "squeeze",
                                            "expand_dims",
                                            "concatenate"};
    const std::string& name = op->name;
    if (name == "nn.relu")
      result = true;
    else if (name == "clip")
      result = attrsOrDefault<ClipAttrs>(call->attrs.get()).aMin >= 0;
    else if (std::find(std::begin(kKeepSign), std::end(kKeepSign), name) != std::end(kKeepSign))
      result = nonNegative(call->args[0], memo, depth + 1);
    else if (name == "add" || name == "multiply" || name == "maximum")
      result = all(call->args);
  }
  memo[e.get()] = result;
  return result;
}

}  // namespace

bool cannotBeNegative(const Expr& e) {
  std::unordered_map<const ExprNode*, bool> memo;
  return nonNegative(e, memo, 0);
}

Expr scalarConstant(double value, DataType dtype) {
  if (dtype.isFloat()) return scalar(value, dtype);
  // Saturate (NaN: 0): shift amounts and rounding terms computed from extreme scales must not
  // overflow the conversion to an integer.
  const double limit = 9.2e18;
  return makeConstant(NDArray::scalarInt(
      std::isnan(value) ? 0 : static_cast<int64_t>(std::clamp(value, -limit, limit)), dtype));
}

double scalarValue(const Expr& e) {
  const auto* c = e->as<ConstantNode>();
  TS_CHECK(c && c->hasData() && c->data.numel() == 1) << "expected a scalar constant";
  return c->data.getFloat(0);
}

}  // namespace tessera::relay::quantize
