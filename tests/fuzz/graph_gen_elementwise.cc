// Op generators for elementwise ops, reductions, casts and creation. Values are kept tame by
// guards written into the graph itself (log of |x| + 0.5, exp of a clipped x, integer divisors
// made odd), so the interpreter never reports a domain error and results stay comparable.
#include <string>
#include <vector>

#include "graph_gen.h"
#include "relay/builder.h"

namespace tessera::fuzz {
namespace {

using relay::callOp;
using relay::Expr;

template <size_t N>
const char* oneOf(GraphGen& g, const char* const (&names)[N]) {
  return names[g.rng().below(N)];
}

bool isExactFloat(const GenValue& v) {
  return isFloat(v) && v.exact;
}

// rhs for `lhs`: an existing value of the same dtype that broadcasts against it, or a new tensor
// of a broadcast-compatible shape; either side may come first.
Expr peerOf(GraphGen& g, const GenValue& lhs, bool needExact, bool* exact) {
  const std::optional<GenValue> other = g.pick([&](const GenValue& v) {
    return v.dtype == lhs.dtype && broadcastable(v.shape, lhs.shape) && (!needExact || v.exact);
  });
  if (other && !g.rng().chance(30)) {
    *exact = other->exact;
    return other->expr;
  }
  *exact = true;
  const double bound = lhs.dtype.isFloat() ? 1.0 : 64.0;
  return g.weight(g.broadcastPeer(lhs.shape), lhs.dtype, -bound, bound);
}

bool unaryFloat(GraphGen& g) {
  static const char* const kSmooth[] = {"negative", "tanh", "sigmoid", "erf",    "sin",
                                        "cos",      "atan", "abs",     "nn.relu"};
  static const char* const kExactKeeping[] = {"negative", "abs", "nn.relu", "copy",
                                              "annotation.stop_fusion"};
  static const char* const kRounding[] = {"round", "floor", "ceil", "trunc", "sign"};
  static const char* const kLogLike[] = {"log", "log2", "log10", "sqrt", "rsqrt"};
  static const char* const kPredicates[] = {"isnan", "isinf", "isfinite"};
  const std::optional<GenValue> x = g.pick(isFloat);
  if (!x) return false;
  const Expr e = x->expr;
  const DataType f32 = DataType::float32();
  switch (g.rng().below(7)) {
    case 0:
      g.push(callOp(oneOf(g, kSmooth), {e}), false);
      return true;
    case 1:
      g.push(callOp(oneOf(g, kExactKeeping), {e}), x->exact);
      return true;
    case 2: {
      const std::optional<GenValue> exact = g.pick(isExactFloat);
      if (!exact) return false;
      g.push(callOp(oneOf(g, kRounding), {exact->expr}), true);
      return true;
    }
    case 3:
      g.push(callOp(oneOf(g, kLogLike), {relay::add(relay::abs(e), g.scalar(0.5, f32))}), false);
      return true;
    case 4:
      g.push(relay::exp(relay::clip(e, -8, 8)), false);
      return true;
    case 5:
      g.push(callOp(g.rng().chance(50) ? "asin" : "acos", {relay::clip(e, -0.99, 0.99)}), false);
      return true;
    default:
      g.push(callOp(oneOf(g, kPredicates), {e}), true);
      return true;
  }
}

bool unaryIntOrBool(GraphGen& g) {
  static const char* const kInt[] = {"negative", "abs",   "bitwise_not", "copy",
                                     "sign",     "round", "floor",       "isfinite"};
  static const char* const kBool[] = {"logical_not", "bitwise_not", "copy", "isnan"};
  const std::optional<GenValue> x = g.pick([](const GenValue& v) { return isInt(v) || isBool(v); });
  if (!x) return false;
  g.push(callOp(isBool(*x) ? oneOf(g, kBool) : oneOf(g, kInt), {x->expr}), true);
  return true;
}

bool binaryArith(GraphGen& g) {
  static const char* const kPlain[] = {"add", "subtract", "multiply", "maximum", "minimum"};
  static const char* const kDivLike[] = {"divide", "floor_divide", "mod", "floor_mod"};
  const std::optional<GenValue> lhs =
      g.pick([](const GenValue& v) { return isFloat(v) || isInt(v); });
  if (!lhs) return false;
  const bool isF = isFloat(*lhs);
  const bool swap = g.rng().chance(30);
  const uint32_t kind = g.rng().below(4);
  // Float floor-division and remainders jump where lhs / rhs is an integer: exact operands only.
  const bool needExact = isF && kind == 1;
  if (needExact && !lhs->exact) return false;
  bool rhsExact = true;
  Expr rhs = peerOf(g, *lhs, needExact, &rhsExact);
  Expr a = lhs->expr;
  const DataType dt = lhs->dtype;
  if (kind == 0) {
    const char* op = oneOf(g, kPlain);
    const bool keepsExact = !isF || std::string(op) == "maximum" || std::string(op) == "minimum";
    if (swap) std::swap(a, rhs);
    g.push(callOp(op, {a, rhs}), keepsExact && lhs->exact && rhsExact);
    return true;
  }
  if (kind == 1) {
    // Nonzero divisors: |rhs| + 0.5 for floats, rhs | 1 for integers (odd, so never 0).
    rhs = isF ? relay::add(relay::abs(rhs), g.scalar(0.5, dt))
              : relay::bitwiseOr(rhs, g.scalar(1, dt));
    const char* op = oneOf(g, kDivLike);
    g.push(callOp(op, {a, rhs}), !isF || std::string(op) != "divide");
    return true;
  }
  if (kind == 2) {
    // power: a positive base and a small exponent (integers: repeated multiplication).
    if (isF) {
      a = relay::add(relay::abs(a), g.scalar(0.5, dt));
      rhs = relay::clip(rhs, -2, 2);
    } else {
      rhs = relay::clip(rhs, -3, 6);
    }
    g.push(relay::power(a, rhs), !isF);
    return true;
  }
  if (isF) return false;
  // Integer shifts by any amount: the spec defines amounts outside [0, bits).
  if (swap) std::swap(a, rhs);
  g.push(callOp(g.rng().chance(50) ? "left_shift" : "right_shift", {a, rhs}), true);
  return true;
}

bool bitwiseOrLogical(GraphGen& g) {
  static const char* const kBitwise[] = {"bitwise_and", "bitwise_or", "bitwise_xor"};
  const std::optional<GenValue> lhs =
      g.pick([](const GenValue& v) { return isInt(v) || isBool(v); });
  if (!lhs) return false;
  bool exact = true;
  const Expr rhs = peerOf(g, *lhs, false, &exact);
  const char* op = oneOf(g, kBitwise);
  if (isBool(*lhs) && g.rng().chance(50)) op = g.rng().chance(50) ? "logical_and" : "logical_or";
  g.push(callOp(op, {lhs->expr, rhs}), true);
  return true;
}

bool compare(GraphGen& g) {
  static const char* const kOps[] = {"equal",      "not_equal", "less",
                                     "less_equal", "greater",   "greater_equal"};
  const std::optional<GenValue> lhs = g.pick([](const GenValue& v) { return v.exact; });
  if (!lhs) return false;
  bool exact = true;
  const Expr rhs = peerOf(g, *lhs, true, &exact);
  g.push(callOp(oneOf(g, kOps), {lhs->expr, rhs}), true);
  return true;
}

bool where(GraphGen& g) {
  const std::optional<GenValue> x = g.pick([](const GenValue& v) { return !isBool(v); });
  if (!x) return false;
  // Condition and y are "peers" of x (each dim equal or 1, rank not larger), so all three
  // broadcast together to x's shape.
  auto isPeer = [&](const GenValue& v) {
    if (v.shape.size() > x->shape.size()) return false;
    for (size_t i = 1; i <= v.shape.size(); ++i) {
      const int64_t d = v.shape[v.shape.size() - i];
      if (d != 1 && d != x->shape[x->shape.size() - i]) return false;
    }
    return true;
  };
  const std::optional<GenValue> cond =
      g.pick([&](const GenValue& v) { return isBool(v) && isPeer(v); });
  const Expr c = cond ? cond->expr : g.weight(g.broadcastPeer(x->shape), DataType::boolType());
  const std::optional<GenValue> y =
      g.pick([&](const GenValue& v) { return v.dtype == x->dtype && isPeer(v); });
  const double bound = isFloat(*x) ? 1.0 : 64.0;
  const Expr ye = y ? y->expr : g.weight(g.broadcastPeer(x->shape), x->dtype, -bound, bound);
  g.push(relay::where(c, x->expr, ye), x->exact && (!y || y->exact));
  return true;
}

bool clip(GraphGen& g) {
  const std::optional<GenValue> x =
      g.pick([](const GenValue& v) { return isFloat(v) || isInt(v); });
  if (!x) return false;
  const double scale = isFloat(*x) ? 0.25 : 8.0;
  const double lo = static_cast<double>(g.rng().range(-8, 4)) * scale;
  const double hi = lo + static_cast<double>(g.rng().range(0, 8)) * scale;
  g.push(relay::clip(x->expr, lo, hi), x->exact);
  return true;
}

bool cast(GraphGen& g) {
  const std::optional<GenValue> x = g.pick([](const GenValue& v) { return v.exact; });
  if (!x) return false;
  static const DataType kTargets[] = {DataType::float32(), DataType::int32(), DataType::int8(),
                                      DataType::int64(), DataType::boolType()};
  DataType to = kTargets[g.rng().below(5)];
  if (to == x->dtype) to = DataType::float32();
  if (to == x->dtype) to = DataType::int32();
  Expr e = x->expr;
  // Floats in [-1, 1) scaled by a power of two (exactly) so integer casts see varied values.
  if (isFloat(*x) && !to.isFloat() && !to.isBool())
    e = relay::multiply(e, g.scalar(16, DataType::float32()));
  g.push(relay::cast(e, to), true);
  return true;
}

// A random subset of the axes (each maybe written negatively); nullopt or {} means all.
std::optional<std::vector<int64_t>> randomAxes(GraphGen& g, size_t rank) {
  if (rank == 0 || g.rng().chance(15)) return std::nullopt;
  std::vector<int64_t> axes;
  for (size_t i = 0; i < rank; ++i) {
    if (!g.rng().chance(45)) continue;
    const auto a = static_cast<int64_t>(i);
    axes.push_back(g.rng().chance(30) ? a - static_cast<int64_t>(rank) : a);
  }
  if (axes.empty())
    axes.push_back(static_cast<int64_t>(g.rng().below(static_cast<uint32_t>(rank))));
  return axes;
}

bool reduce(GraphGen& g) {
  using Reducer = Expr (*)(Expr, relay::ReduceAttrs);
  static const Reducer kOps[] = {relay::sum, relay::mean, relay::max, relay::min, relay::prod};
  const std::optional<GenValue> x =
      g.pick([](const GenValue& v) { return isFloat(v) || isInt(v); });
  if (!x) return false;
  if (g.rng().chance(25)) {
    // argmax/argmin jump between near-equal elements: exact operands only.
    if (!x->exact) return false;
    relay::ArgReduceAttrs attrs;
    attrs.axis = randomAxes(g, x->shape.size());
    attrs.keepdims = g.rng().chance(40);
    attrs.selectLastIndex = g.rng().chance(30);
    attrs.exclude = g.rng().chance(15);
    g.push(g.rng().chance(50) ? relay::argmax(x->expr, attrs) : relay::argmin(x->expr, attrs),
           true);
    return true;
  }
  relay::ReduceAttrs attrs;
  attrs.axis = randomAxes(g, x->shape.size());
  attrs.keepdims = g.rng().chance(40);
  attrs.exclude = g.rng().chance(15);
  const uint32_t op = g.rng().below(5);
  // Float sums, means and products round in evaluation order; max and min do not (indices 2, 3).
  const bool exact = x->exact && (!isFloat(*x) || op == 2 || op == 3);
  g.push(kOps[op](x->expr, attrs), exact);
  return true;
}

// zeros/ones/full (constant subgraphs for FoldConstant) and the *_like ops.
bool creation(GraphGen& g) {
  const std::optional<GenValue> x = g.pick([](const GenValue&) { return true; });
  if (!x) return false;
  const DataType dt = x->dtype;
  switch (g.rng().below(4)) {
    case 0:
      g.push(g.rng().chance(50) ? relay::zeros(x->shape, dt) : relay::ones(x->shape, dt), true);
      return true;
    case 1:
      g.push(relay::full(g.scalar(static_cast<double>(g.rng().range(-3, 3)), DataType::float32()),
                         x->shape, dt),
             true);
      return true;
    case 2:
      g.push(g.rng().chance(50) ? relay::zerosLike(x->expr) : relay::onesLike(x->expr), true);
      return true;
    default:
      g.push(relay::fullLike(x->expr, g.scalar(static_cast<double>(g.rng().range(-3, 3)), dt)),
             true);
      return true;
  }
}

bool fixedPointMultiply(GraphGen& g) {
  const std::optional<GenValue> x =
      g.pick([](const GenValue& v) { return v.dtype == DataType::int32(); });
  if (!x) return false;
  const auto multiplier = static_cast<int32_t>(g.rng().range(1 << 30, (1LL << 31) - 1));
  g.push(relay::fixedPointMultiply(x->expr, multiplier, static_cast<int32_t>(g.rng().range(-6, 4))),
         true);
  return true;
}

const OpGenerator kGenerators[] = {
    {"unary_float", unaryFloat},
    {"unary_int_bool", unaryIntOrBool},
    {"binary_arith", binaryArith},
    {"binary_arith", binaryArith},
    {"bitwise_logical", bitwiseOrLogical},
    {"compare", compare},
    {"where", where},
    {"clip", clip},
    {"cast", cast},
    {"reduce", reduce},
    {"creation", creation},
    {"fixed_point_multiply", fixedPointMultiply},
};

}  // namespace

std::span<const OpGenerator> elementwiseGenerators() {
  return kGenerators;
}

}  // namespace tessera::fuzz
