// Comparison, min/max, logical and select rules. Integer comparisons and min/max are decided by
// the bounds of the difference of their operands (a linear sum, so facts such as
// `i * 10 + j < 128` apply); what stays undecided is rebuilt from the simplified operands.
#include "tir/arith/canonical_simplify.h"
#include "tir/arith/const_int_bound.h"
#include "tir/arith/int_math.h"

namespace tessera::tir::arith {

namespace {

// 1 when `op` holds for every difference a - b in `d`, 0 when for none, -1 otherwise.
int decideByDifference(BinaryOp op, ConstIntBound d) {
  switch (op) {
    case BinaryOp::kEQ:
      if (d.min == 0 && d.max == 0) return 1;
      if (d.min > 0 || d.max < 0) return 0;
      return -1;
    case BinaryOp::kNE:
      if (d.min == 0 && d.max == 0) return 0;
      if (d.min > 0 || d.max < 0) return 1;
      return -1;
    case BinaryOp::kLT:
      return d.max < 0 ? 1 : (d.min >= 0 ? 0 : -1);
    case BinaryOp::kLE:
      return d.max <= 0 ? 1 : (d.min > 0 ? 0 : -1);
    case BinaryOp::kGT:
      return d.min > 0 ? 1 : (d.max <= 0 ? 0 : -1);
    case BinaryOp::kGE:
      return d.min >= 0 ? 1 : (d.max < 0 ? 0 : -1);
    default:
      return -1;
  }
}

BinaryOp negateComparison(BinaryOp op) {
  switch (op) {
    case BinaryOp::kEQ:
      return BinaryOp::kNE;
    case BinaryOp::kNE:
      return BinaryOp::kEQ;
    case BinaryOp::kLT:
      return BinaryOp::kGE;
    case BinaryOp::kLE:
      return BinaryOp::kGT;
    case BinaryOp::kGT:
      return BinaryOp::kLE;
    case BinaryOp::kGE:
      return BinaryOp::kLT;
    default:
      return op;
  }
}

}  // namespace

int CanonicalSimplifier::lookupCondition(const PrimExpr& cond) {
  for (const PrimExpr& known : state_.trueConditions) {
    if (deepEqual(known, cond)) return 1;
    if (const auto* n = cond->as<NotNode>(); n && deepEqual(known, n->a)) return 0;
    if (const auto* n = known->as<NotNode>(); n && deepEqual(n->a, cond)) return 0;
  }
  return -1;
}

PrimExpr CanonicalSimplifier::rewriteCompare(BinaryOp op, const PrimExpr& a, const PrimExpr& b) {
  if (!isIndexType(a) || !isIndexType(b) || a->dtype != b->dtype) {
    if (deepEqual(a, b) && (a->dtype.isInteger() || a->dtype.isBool()))
      return boolImm(op == BinaryOp::kEQ || op == BinaryOp::kLE || op == BinaryOp::kGE);
    return binary(op, a, b);
  }
  LinearSum diff = toLinear(a);
  LinearSum lb = toLinear(b);
  diff.addScaled(lb, -1);
  int decided = decideByDifference(op, boundOfLinear(diff, state_));
  if (decided >= 0) return boolImm(decided == 1);
  PrimExpr out;
  LinearSum la = toLinear(a);
  if (diff.terms.size() < la.terms.size() + lb.terms.size()) {
    // Terms common to both sides cancel: `i * 10 + j < i * 10 + 5` reads as `j < 5`.
    LinearSum left, right;
    left.dtype = right.dtype = a->dtype;
    for (const LinearTerm& t : diff.terms) {
      if (t.coeff > 0)
        left.addTerm(t.atom, t.coeff);
      else
        right.addTerm(t.atom, -t.coeff);
    }
    right.base = -diff.base;
    if (left.isConst()) {
      left.base = -right.base;
      right.base = 0;
    }
    out = binary(op, left.toExpr(), right.toExpr());
  } else if (la.base != 0 && (lb.isConst() || lb.base != 0)) {
    // Constants gather on the right: `x + 3 < 10` reads as `x < 7`, `x + 1 < n + 1` as `x < n`.
    LinearSum right = lb;
    right.base = lb.base - la.base;
    la.base = 0;
    out = binary(op, la.toExpr(), right.toExpr());
  } else {
    out = binary(op, a, b);
  }
  int known = lookupCondition(out);
  if (known >= 0) return boolImm(known == 1);
  return out;
}

PrimExpr CanonicalSimplifier::rewriteMinMax(BinaryOp op, const PrimExpr& a, const PrimExpr& b) {
  if (deepEqual(a, b)) return a;
  if (!isIndexType(a) || !isIndexType(b) || a->dtype != b->dtype) return binary(op, a, b);
  LinearSum diff = toLinear(a);
  diff.addScaled(toLinear(b), -1);
  ConstIntBound d = boundOfLinear(diff, state_);
  bool isMin = op == BinaryOp::kMin;
  if (d.max <= 0) return isMin ? a : b;  // a <= b
  if (d.min >= 0) return isMin ? b : a;  // a >= b
  return binary(op, a, b);
}

PrimExpr CanonicalSimplifier::rewriteLogic(BinaryOp op, const PrimExpr& a, const PrimExpr& b) {
  const int64_t* ca = asConstInt(a);
  const int64_t* cb = asConstInt(b);
  if (op == BinaryOp::kAnd) {
    if ((ca && *ca == 0) || (cb && *cb == 0)) return boolImm(false);
    if (ca) return b;
    if (cb) return a;
  } else {
    if ((ca && *ca != 0) || (cb && *cb != 0)) return boolImm(true);
    if (ca) return b;
    if (cb) return a;
  }
  if (deepEqual(a, b)) return a;
  // x && !x is false, x || !x is true (`!(x < y)` is already `x >= y` here).
  auto negates = [](const PrimExpr& x, const PrimExpr& y) {
    if (const auto* n = y->as<NotNode>(); n && deepEqual(n->a, x)) return true;
    const auto* bx = x->as<BinaryNode>();
    const auto* by = y->as<BinaryNode>();
    return bx && by && isComparison(bx->op) && bx->a->dtype.isInteger() &&
           by->op == negateComparison(bx->op) && deepEqual(bx->a, by->a) && deepEqual(bx->b, by->b);
  };
  if (negates(a, b) || negates(b, a)) return boolImm(op == BinaryOp::kOr);
  return binary(op, a, b);
}

PrimExpr CanonicalSimplifier::rewriteNot(const PrimExpr& a) {
  if (const int64_t* c = asConstInt(a)) return boolImm(*c == 0);
  if (const auto* n = a->as<NotNode>()) return n->a;
  if (const auto* b = a->as<BinaryNode>()) {
    // Only integer comparisons negate exactly (a NaN makes both `x < y` and `x >= y` false).
    if (isComparison(b->op) && b->a->dtype.isInteger())
      return binary(negateComparison(b->op), b->a, b->b);
  }
  int known = lookupCondition(a);
  if (known >= 0) return boolImm(known == 0);
  return logicalNot(a);
}

PrimExpr CanonicalSimplifier::rewriteSelect(const PrimExpr& cond, const PrimExpr& t,
                                            const PrimExpr& f) {
  if (const int64_t* c = asConstInt(cond)) return *c ? t : f;
  if (deepEqual(t, f)) return t;
  int known = lookupCondition(cond);
  if (known >= 0) return known ? t : f;
  return std::make_shared<SelectNode>(cond, t, f);
}

}  // namespace tessera::tir::arith
