#include "tir/arith/interval.h"

#include <unordered_set>

#include "tir/arith/int_math.h"
#include "tir/functor.h"

namespace tessera::tir::arith {

namespace {

PrimExpr minOrNull(const PrimExpr& a, const PrimExpr& b) {
  return a && b ? tir::min(a, b) : nullptr;
}
PrimExpr maxOrNull(const PrimExpr& a, const PrimExpr& b) {
  return a && b ? tir::max(a, b) : nullptr;
}

class IntervalEvaluator {
 public:
  IntervalEvaluator(const DomainMap& dom, CanonicalSimplifier& simplifier)
      : dom_(dom), simplifier_(simplifier) {}

  IntervalSet eval(const PrimExpr& e) {
    if (!dependsOnDomain(e)) return {e, e};
    switch (e->kind) {
      case ExprKind::kVar:
        return evalVar(e->as<VarNode>());
      case ExprKind::kBinary:
        return evalBinary(e->as<BinaryNode>());
      case ExprKind::kCast: {
        const auto* c = e->as<CastNode>();
        IntervalSet v = eval(c->value);
        // Only a widening integer cast preserves the order of the end points.
        bool widening = c->dtype.isInteger() && c->value->dtype.isInteger() &&
                        c->dtype.bits() >= c->value->dtype.bits();
        if (!widening) return {};
        return {v.min ? cast(c->dtype, v.min) : nullptr, v.max ? cast(c->dtype, v.max) : nullptr};
      }
      case ExprKind::kSelect: {
        const auto* s = e->as<SelectNode>();
        IntervalSet t = eval(s->t);
        IntervalSet f = eval(s->f);
        return {minOrNull(t.min, f.min), maxOrNull(t.max, f.max)};
      }
      case ExprKind::kBroadcast:
        return eval(e->as<BroadcastNode>()->value);
      case ExprKind::kRamp: {
        const auto* r = e->as<RampNode>();
        PrimExpr last = add(r->base, mul(r->stride, intImm(r->lanes - 1, r->stride->dtype)));
        IntervalSet first = eval(r->base);
        IntervalSet end = eval(last);
        return {minOrNull(first.min, end.min), maxOrNull(first.max, end.max)};
      }
      default:
        if (e->dtype.isBool()) return {boolImm(false), boolImm(true)};
        return {};
    }
  }

 private:
  // A domain may mention other relaxed variables (an inner loop starting at `j * 8`); its end
  // points are relaxed in turn. A cycle of domains has no answer and gives an unbounded set.
  IntervalSet evalVar(const VarNode* v) {
    const Range& r = dom_.at(v);
    PrimExpr last = sub(add(r.min, r.extent), intImm(1, r.extent->dtype));
    if (!expanding_.insert(v).second) return {};
    IntervalSet lo = eval(r.min);
    IntervalSet hi = eval(last);
    expanding_.erase(v);
    return {lo.min, hi.max};
  }

  bool dependsOnDomain(const PrimExpr& e) {
    bool found = false;
    postOrderVisitExpr(e, [&](const PrimExpr& x) {
      if (const auto* v = x->as<VarNode>(); v && dom_.count(v)) found = true;
    });
    return found;
  }

  ConstIntBound boundOf(const PrimExpr& e) { return simplifier_.boundOf(simplifier_.simplify(e)); }

  // The sign of an expression that does not depend on the domain: 1, -1, or 0 when unknown.
  int signOf(const PrimExpr& e) {
    ConstIntBound b = boundOf(e);
    if (b.min >= 0) return 1;
    if (b.max <= 0) return -1;
    return 0;
  }

  IntervalSet scale(const IntervalSet& a, const PrimExpr& factor) {
    int sign = signOf(factor);
    if (sign == 0) return {};
    PrimExpr lo = a.min ? mul(a.min, factor) : nullptr;
    PrimExpr hi = a.max ? mul(a.max, factor) : nullptr;
    return sign > 0 ? IntervalSet{lo, hi} : IntervalSet{hi, lo};
  }

  IntervalSet evalBinary(const BinaryNode* b) {
    if (isComparison(b->op) || b->op == BinaryOp::kAnd || b->op == BinaryOp::kOr)
      return {boolImm(false), boolImm(true)};
    IntervalSet x = eval(b->a);
    bool bFixed = !dependsOnDomain(b->b);
    bool aFixed = !dependsOnDomain(b->a);
    switch (b->op) {
      case BinaryOp::kAdd: {
        IntervalSet y = eval(b->b);
        return {x.min && y.min ? add(x.min, y.min) : nullptr,
                x.max && y.max ? add(x.max, y.max) : nullptr};
      }
      case BinaryOp::kSub: {
        IntervalSet y = eval(b->b);
        return {x.min && y.max ? sub(x.min, y.max) : nullptr,
                x.max && y.min ? sub(x.max, y.min) : nullptr};
      }
      case BinaryOp::kMul:
        if (bFixed) return scale(x, b->b);
        if (aFixed) return scale(eval(b->b), b->a);
        return {};
      case BinaryOp::kMin:
      case BinaryOp::kMax: {
        IntervalSet y = eval(b->b);
        if (b->op == BinaryOp::kMin)
          return {minOrNull(x.min, y.min),
                  x.max && y.max ? tir::min(x.max, y.max) : (x.max ? x.max : y.max)};
        return {x.min && y.min ? tir::max(x.min, y.min) : (x.min ? x.min : y.min),
                maxOrNull(x.max, y.max)};
      }
      case BinaryOp::kDiv:
      case BinaryOp::kMod:
        // Truncation agrees with flooring only for a non-negative dividend.
        if (!x.min || boundOf(x.min).min < 0) return {};
        [[fallthrough]];
      case BinaryOp::kFloorDiv:
      case BinaryOp::kFloorMod:
        return evalDivMod(b, x, bFixed);
      default:
        return {};
    }
  }

  IntervalSet evalDivMod(const BinaryNode* b, const IntervalSet& x, bool divisorFixed) {
    const int64_t* c = asConstInt(b->b);
    bool isDiv = b->op == BinaryOp::kFloorDiv || b->op == BinaryOp::kDiv;
    if (isDiv) {
      if (!divisorFixed) return {};
      int sign = c ? (*c > 0 ? 1 : (*c < 0 ? -1 : 0)) : signOf(b->b);
      if (sign == 0 || (!c && boundOf(b->b).min == 0)) return {};
      PrimExpr lo = x.min ? floordiv(x.min, b->b) : nullptr;
      PrimExpr hi = x.max ? floordiv(x.max, b->b) : nullptr;
      return sign > 0 ? IntervalSet{lo, hi} : IntervalSet{hi, lo};
    }
    if (!c || *c <= 0) {
      // floormod by a positive symbolic divisor n lies in [0, n - 1].
      if (divisorFixed && boundOf(b->b).min > 0)
        return {intImm(0, b->dtype), sub(b->b, intImm(1, b->dtype))};
      return {};
    }
    PrimExpr top = intImm(*c - 1, b->dtype);
    if (x.min && x.max) {
      // When the whole interval lies in one block of c the remainder is monotone on it.
      PrimExpr q = simplifier_.simplify(sub(floordiv(x.max, b->b), floordiv(x.min, b->b)));
      if (isZero(q)) return {floormod(x.min, b->b), floormod(x.max, b->b)};
    }
    return {intImm(0, b->dtype), top};
  }

  const DomainMap& dom_;
  CanonicalSimplifier& simplifier_;
  std::unordered_set<const VarNode*> expanding_;
};

}  // namespace

IntervalSet evalInterval(const PrimExpr& e, const DomainMap& dom, CanonicalSimplifier& simplifier) {
  IntervalSet raw = IntervalEvaluator(dom, simplifier).eval(e);
  IntervalSet out;
  if (raw.min) out.min = simplifier.simplify(simplifier.simplify(raw.min));
  if (raw.max) out.max = simplifier.simplify(simplifier.simplify(raw.max));
  return out;
}

}  // namespace tessera::tir::arith
