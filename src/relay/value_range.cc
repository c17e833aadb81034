// RangeAnalyzer (relay/value_range.h): interval arithmetic over the ops relay.quantize's realize
// emits, and identity for the ops that only move or select elements.
#include "relay/value_range.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <string>

#include "relay/op/op_common.h"
#include "relay/op/tensor.h"

namespace tessera::relay {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Ops whose every output element is one of the input's (or, for a max pool, the largest of some
// of them: padding never wins a window that holds a real element).
const std::set<std::string>& selectingOps() {
  static const std::set<std::string> ops{"annotation.stop_fusion",
                                         "copy",
                                         "reshape",
                                         "nn.batch_flatten",
                                         "squeeze",
                                         "expand_dims",
                                         "transpose",
                                         "layout_transform",
                                         "nn.max_pool2d",
                                         "strided_slice",
                                         "broadcast_to",
                                         "nn.global_max_pool2d",
                                         "nn.adaptive_max_pool2d",
                                         "max"};
  return ops;
}

const TensorTypeNode* tensorTypeOfExpr(const Expr& e) {
  return e->checkedType ? e->checkedType->as<TensorTypeNode>() : nullptr;
}

// `r` as a value of `dtype`: an integer range the dtype cannot hold may wrap anywhere in it.
ValueRange fit(const ValueRange& r, DataType dtype) {
  const ValueRange whole = rangeOfDtype(dtype);
  return r.within(whole.lo, whole.hi) ? r : whole;
}

// The range of a constant's elements (only small ones are scanned: the weights of a layer never
// decide a range that matters).
ValueRange constantRange(const ConstantNode& c, DataType dtype) {
  constexpr int64_t kMaxScanned = 4096;
  if (!c.hasData() || c.data.numel() == 0 || c.data.numel() > kMaxScanned)
    return rangeOfDtype(dtype);
  ValueRange r{kInf, -kInf};
  for (int64_t i = 0; i < c.data.numel(); ++i) {
    const double v = dtype.isFloat() ? c.data.getFloat(i) : static_cast<double>(c.data.getInt(i));
    if (std::isnan(v)) return rangeOfDtype(dtype);
    r = {std::min(r.lo, v), std::max(r.hi, v)};
  }
  return r;
}

// TVM's fixed_point_multiply: round(x * multiplier * 2^(shift - 31)), monotone in x for a
// non-negative multiplier. The bounds are widened by one for the rounding.
std::optional<ValueRange> fixedPointMultiply(const ValueRange& x,
                                             const FixedPointMultiplyAttrs& a) {
  if (a.multiplier < 0 || !std::isfinite(x.lo) || !std::isfinite(x.hi)) return std::nullopt;
  const double scale = a.multiplier * std::ldexp(1.0, a.shift - 31);
  // Rounding keeps the sign: a non-negative input stays non-negative, a non-positive one
  // non-positive.
  double lo = std::floor(x.lo * scale) - 1, hi = std::ceil(x.hi * scale) + 1;
  if (x.lo >= 0) lo = std::max(lo, 0.0);
  if (x.hi <= 0) hi = std::min(hi, 0.0);
  return ValueRange{lo, hi};
}

ValueRange binary(const std::string& op, const ValueRange& a, const ValueRange& b) {
  if (op == "add") return {a.lo + b.lo, a.hi + b.hi};
  if (op == "subtract") return {a.lo - b.hi, a.hi - b.lo};
  if (op == "maximum") return {std::max(a.lo, b.lo), std::max(a.hi, b.hi)};
  if (op == "minimum") return {std::min(a.lo, b.lo), std::min(a.hi, b.hi)};
  // multiply: the extreme products (an infinite bound times 0 is unknown)
  const double p[] = {a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi};
  ValueRange r{kInf, -kInf};
  for (double v : p) {
    if (std::isnan(v)) return {-kInf, kInf};
    r = {std::min(r.lo, v), std::max(r.hi, v)};
  }
  return r;
}

}  // namespace

ValueRange rangeOfDtype(DataType dtype) {
  if (dtype.isBool()) return {0, 1};
  if (dtype.isInt())
    return {-std::ldexp(1.0, dtype.bits() - 1), std::ldexp(1.0, dtype.bits() - 1) - 1};
  if (dtype.isUInt()) return {0, std::ldexp(1.0, dtype.bits()) - 1};
  return {-kInf, kInf};
}

std::optional<ValueRange> RangeAnalyzer::memoized(const Expr& e) const {
  auto it = memo_.find(e.get());
  return it == memo_.end() ? std::nullopt : it->second;
}

// What transfer(e) reads: a call's arguments, a let's value (bound to its variable before its
// body is analysed) and body, an if's branches, a let-bound variable's value.
std::vector<Expr> RangeAnalyzer::dependencies(const Expr& e) {
  if (const auto* call = e->as<CallNode>()) return call->args;
  if (const auto* let = e->as<LetNode>()) {
    letValues_[let->var.get()] = let->value;
    return {let->value, let->body};
  }
  if (const auto* branch = e->as<IfNode>()) return {branch->thenBranch, branch->elseBranch};
  if (const auto* var = e->as<VarNode>()) {
    auto it = letValues_.find(var);
    if (it != letValues_.end()) return {it->second};
  }
  return {};
}

std::optional<ValueRange> RangeAnalyzer::rangeOf(const Expr& root) {
  // Explicit stack: a node is transferred once everything it depends on has a range.
  std::vector<std::pair<Expr, bool>> stack{{root, false}};
  while (!stack.empty()) {
    auto [e, expanded] = stack.back();
    stack.pop_back();
    if (memo_.count(e.get())) continue;
    if (expanded) {
      memo_[e.get()] = transfer(e);
      continue;
    }
    stack.push_back({e, true});
    for (const Expr& d : dependencies(e))
      if (!memo_.count(d.get())) stack.push_back({d, false});
  }
  return memoized(root);
}

bool RangeAnalyzer::smallNonNegativeBytes(const Expr& e) {
  const TensorTypeNode* type = tensorTypeOfExpr(e);
  if (!type || (type->dtype != DataType::int8() && type->dtype != DataType::uint8())) return false;
  const std::optional<ValueRange> r = rangeOf(e);
  return r && smallNonNegative(*r);
}

std::optional<ValueRange> RangeAnalyzer::transfer(const Expr& e) {
  const TensorTypeNode* type = tensorTypeOfExpr(e);
  if (!type) return std::nullopt;
  const DataType dtype = type->dtype;
  const ValueRange whole = rangeOfDtype(dtype);
  if (const auto* var = e->as<VarNode>()) {
    if (auto it = known_.find(var); it != known_.end()) return fit(it->second, dtype);
    if (auto it = letValues_.find(var); it != letValues_.end())
      return memoized(it->second).value_or(whole);
    return whole;
  }
  if (const auto* c = e->as<ConstantNode>()) return constantRange(*c, dtype);
  if (const auto* let = e->as<LetNode>()) return memoized(let->body).value_or(whole);
  if (const auto* branch = e->as<IfNode>()) {
    const std::optional<ValueRange> a = memoized(branch->thenBranch),
                                    b = memoized(branch->elseBranch);
    if (!a || !b) return whole;
    return ValueRange{std::min(a->lo, b->lo), std::max(a->hi, b->hi)};
  }
  const auto* call = e->as<CallNode>();
  if (!call) return whole;
  std::vector<ValueRange> args;
  for (const Expr& a : call->args) {
    const std::optional<ValueRange> r = memoized(a);
    if (!r) return whole;  // a tuple argument
    args.push_back(*r);
  }
  if (const auto* fn = call->op->as<FunctionNode>()) {
    if (fn->params.size() != args.size()) return whole;
    std::unordered_map<const VarNode*, ValueRange> params;
    for (size_t i = 0; i < args.size(); ++i) params[fn->params[i].get()] = args[i];
    return fit(RangeAnalyzer(std::move(params)).rangeOf(fn->body).value_or(whole), dtype);
  }
  const auto* op = call->op->as<OpNode>();
  if (!op || args.empty()) return whole;
  const std::string& name = op->name;
  const ValueRange& x = args[0];
  if (selectingOps().count(name)) return fit(x, dtype);
  if (name == "nn.relu") return fit({std::max(x.lo, 0.0), std::max(x.hi, 0.0)}, dtype);
  if (name == "clip") {
    const auto& a = attrsOrDefault<ClipAttrs>(call->attrs.get());
    return fit({std::clamp(x.lo, a.aMin, std::max(a.aMin, a.aMax)),
                std::clamp(x.hi, a.aMin, std::max(a.aMin, a.aMax))},
               dtype);
  }
  if (name == "cast") {
    // A float rounds toward zero into an integer dtype; out of its range the cast is undefined.
    if (dtype.isFloat()) return x;
    return fit({std::trunc(x.lo), std::trunc(x.hi)}, dtype);
  }
  if (name == "round" || name == "floor" || name == "ceil")
    return ValueRange{std::floor(x.lo), std::ceil(x.hi)};
  if (name == "fixed_point_multiply") {
    const std::optional<ValueRange> r =
        fixedPointMultiply(x, attrsOrDefault<FixedPointMultiplyAttrs>(call->attrs.get()));
    return r ? fit(*r, dtype) : whole;
  }
  if (args.size() == 2 && (name == "add" || name == "subtract" || name == "multiply" ||
                           name == "maximum" || name == "minimum"))
    return fit(binary(name, x, args[1]), dtype);
  return whole;
}

}  // namespace tessera::relay
