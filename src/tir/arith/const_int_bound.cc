#include "tir/arith/const_int_bound.h"

#include <algorithm>

#include "tir/arith/int_math.h"

namespace tessera::tir::arith {

ConstIntBound boundOfType(DataType dtype) {
  if (dtype.isBool()) return {0, 1};
  if (!dtype.isInteger()) return {};
  if (dtype.bits() >= 64) {
    if (dtype.isUInt()) return {0, ConstIntBound::kPosInf};
    return {};
  }
  if (dtype.isUInt()) return {0, (int64_t{1} << dtype.bits()) - 1};
  return {-(int64_t{1} << (dtype.bits() - 1)), (int64_t{1} << (dtype.bits() - 1)) - 1};
}

namespace {

int64_t min4(int64_t a, int64_t b, int64_t c, int64_t d) {
  return std::min({a, b, c, d});
}
int64_t max4(int64_t a, int64_t b, int64_t c, int64_t d) {
  return std::max({a, b, c, d});
}

ConstIntBound mulBounds(ConstIntBound a, ConstIntBound b) {
  int64_t p1 = boundMul(a.min, b.min), p2 = boundMul(a.min, b.max);
  int64_t p3 = boundMul(a.max, b.min), p4 = boundMul(a.max, b.max);
  return {min4(p1, p2, p3, p4), max4(p1, p2, p3, p4)};
}

// The divisor's range with zero removed (division by zero is undefined, so a divisor in [0, n]
// is taken to lie in [1, n]); nullopt-like {1, 0} when its sign is unknown.
bool divisorSign(ConstIntBound& b) {
  if (b.min >= 0) {
    b.min = std::max<int64_t>(b.min, 1);
    return b.min <= b.max;
  }
  if (b.max <= 0) {
    b.max = std::min<int64_t>(b.max, -1);
    return b.min <= b.max;
  }
  return false;
}

template <typename Div>
ConstIntBound divBounds(ConstIntBound a, ConstIntBound b, Div div) {
  if (!divisorSign(b)) {
    // Sign unknown: |a / b| <= |a|.
    int64_t m = std::max(boundNeg(a.min), a.max);
    return {boundNeg(m), m};
  }
  int64_t p1 = div(a.min, b.min), p2 = div(a.min, b.max);
  int64_t p3 = div(a.max, b.min), p4 = div(a.max, b.max);
  return {min4(p1, p2, p3, p4), max4(p1, p2, p3, p4)};
}

ConstIntBound floorModBounds(ConstIntBound a, ConstIntBound b) {
  if (b.min > 0) {
    // A dividend already inside [0, divisor) is its own remainder.
    if (a.min >= 0 && a.max < b.min) return a;
    int64_t top = b.max == ConstIntBound::kPosInf ? b.max : b.max - 1;
    if (a.min >= 0) return {0, std::min(a.max, top)};
    return {0, top};
  }
  if (b.max < 0) {
    int64_t bottom = b.min == ConstIntBound::kNegInf ? b.min : b.min + 1;
    return {bottom, 0};
  }
  return {std::min<int64_t>(boundNeg(std::max(boundNeg(b.min), b.max)), 0),
          std::max(boundNeg(b.min), b.max)};
}

ConstIntBound truncModBounds(ConstIntBound a, ConstIntBound b) {
  // |a % b| < |b| and |a % b| <= |a|; the sign follows the dividend.
  int64_t mb = std::max(boundNeg(b.min), b.max);
  int64_t limit = isInf(mb) ? mb : mb - 1;
  if (a.min >= 0) return {0, std::min(a.max, limit)};
  if (a.max <= 0) return {std::max(a.min, boundNeg(limit)), 0};
  return {std::max(a.min, boundNeg(limit)), std::min(a.max, limit)};
}

class BoundEvaluator {
 public:
  explicit BoundEvaluator(const ArithState& state) : state_(state) {}

  ConstIntBound eval(const PrimExpr& e) {
    ConstIntBound b = structural(e);
    for (const BoundFact& f : state_.facts)
      if (deepEqual(f.expr, e)) b = intersectBounds(b, f.bound);
    return b;
  }

 private:
  ConstIntBound structural(const PrimExpr& e) {
    switch (e->kind) {
      case ExprKind::kIntImm: {
        int64_t v = e->as<IntImmNode>()->value;
        return {v, v};
      }
      case ExprKind::kVar:
        return varBound(e->as<VarNode>());
      case ExprKind::kCast:
        return castBound(e->as<CastNode>());
      case ExprKind::kBinary:
        return binaryBound(e->as<BinaryNode>());
      case ExprKind::kNot:
        return {0, 1};
      case ExprKind::kSelect: {
        const auto* s = e->as<SelectNode>();
        return unionBounds(eval(s->t), eval(s->f));
      }
      case ExprKind::kRamp: {
        const auto* r = e->as<RampNode>();
        ConstIntBound base = eval(r->base);
        ConstIntBound last = mulBounds(eval(r->stride), {r->lanes - 1, r->lanes - 1});
        return unionBounds(base, {boundAdd(base.min, last.min), boundAdd(base.max, last.max)});
      }
      case ExprKind::kBroadcast:
        return eval(e->as<BroadcastNode>()->value);
      case ExprKind::kLet: {
        const auto* l = e->as<LetNode>();
        letBounds_[l->var.get()] = eval(l->value);
        ConstIntBound body = eval(l->body);
        letBounds_.erase(l->var.get());
        return body;
      }
      case ExprKind::kCall: {
        const auto* c = e->as<CallNode>();
        if ((c->op == "tir.if_then_else") && c->args.size() == 3)
          return unionBounds(eval(c->args[1]), eval(c->args[2]));
        if (c->op == "tir.likely" && c->args.size() == 1) return eval(c->args[0]);
        return boundOfType(e->dtype);
      }
      case ExprKind::kFloatImm:
      case ExprKind::kStringImm:
      case ExprKind::kBufferLoad:
      case ExprKind::kReduce:
        return boundOfType(e->dtype);
    }
    return {};
  }

  ConstIntBound varBound(const VarNode* v) {
    if (auto it = letBounds_.find(v); it != letBounds_.end()) return it->second;
    if (auto it = state_.varBounds.find(v); it != state_.varBounds.end()) return it->second;
    if (auto it = state_.varValues.find(v); it != state_.varValues.end()) return eval(it->second);
    ConstIntBound b = boundOfType(v->dtype);
    if (v->sizeVar) b.min = std::max<int64_t>(b.min, 0);
    return b;
  }

  ConstIntBound castBound(const CastNode* c) {
    ConstIntBound target = boundOfType(c->dtype);
    if (!c->value->dtype.isInteger() && !c->value->dtype.isBool()) return target;
    ConstIntBound v = eval(c->value);
    // A value that fits the target type survives the cast unchanged; otherwise it may wrap.
    if (v.min >= target.min && v.max <= target.max) return v;
    return target;
  }

  ConstIntBound binaryBound(const BinaryNode* b) {
    if (isComparison(b->op) || b->op == BinaryOp::kAnd || b->op == BinaryOp::kOr) return {0, 1};
    if (!b->dtype.isInteger()) return boundOfType(b->dtype);
    ConstIntBound x = eval(b->a);
    ConstIntBound y = eval(b->b);
    ConstIntBound r;
    switch (b->op) {
      case BinaryOp::kAdd:
        r = {boundAdd(x.min, y.min), boundAdd(x.max, y.max)};
        break;
      case BinaryOp::kSub:
        r = {boundAdd(x.min, boundNeg(y.max)), boundAdd(x.max, boundNeg(y.min))};
        break;
      case BinaryOp::kMul:
        r = mulBounds(x, y);
        break;
      case BinaryOp::kFloorDiv:
        r = divBounds(x, y, boundFloorDiv);
        break;
      case BinaryOp::kDiv:
        r = divBounds(x, y, boundTruncDiv);
        break;
      case BinaryOp::kFloorMod:
        r = floorModBounds(x, y);
        break;
      case BinaryOp::kMod:
        r = truncModBounds(x, y);
        break;
      case BinaryOp::kMin:
        r = {std::min(x.min, y.min), std::min(x.max, y.max)};
        break;
      case BinaryOp::kMax:
        r = {std::max(x.min, y.min), std::max(x.max, y.max)};
        break;
      default:
        return {0, 1};
    }
    // Signed index arithmetic is assumed not to overflow its type, so the type's range still
    // applies. Unsigned arithmetic wraps: a result that may leave the range may be anywhere in it
    // (uint64's range is open above, so an unbounded maximum may have wrapped).
    const ConstIntBound type = boundOfType(b->dtype);
    if (b->dtype.isUInt() &&
        (r.min < type.min || r.max > type.max || r.max == ConstIntBound::kPosInf))
      return type;
    return intersectBounds(r, type);
  }

  const ArithState& state_;
  std::unordered_map<const VarNode*, ConstIntBound> letBounds_;
};

}  // namespace

ConstIntBound computeConstIntBound(const PrimExpr& e, const ArithState& state) {
  return BoundEvaluator(state).eval(e);
}

ConstIntBound boundOfLinear(const LinearSum& sum, const ArithState& state) {
  ConstIntBound total{0, 0};
  BoundEvaluator eval(state);
  for (const LinearTerm& t : sum.terms) {
    ConstIntBound tb = mulBounds(eval.eval(t.atom), {t.coeff, t.coeff});
    total = {boundAdd(total.min, tb.min), boundAdd(total.max, tb.max)};
  }
  for (const BoundFact& f : state.facts) {
    if (!f.sum.sameTerms(sum.withoutBase())) continue;
    total = intersectBounds(total, f.bound);
  }
  ConstIntBound withBase{boundAdd(total.min, sum.base), boundAdd(total.max, sum.base)};
  return intersectBounds(withBase, boundOfType(sum.dtype));
}

}  // namespace tessera::tir::arith
