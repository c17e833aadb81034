// Division and modulo rules. For a positive constant divisor c, a linear sum splits into the
// terms whose coefficients c divides (they leave the division whole) and a remainder; when the
// remainder's bounds fit one block [k*c, (k+1)*c) the division is exact: `(i*16 + j) // 16 -> i`
// and `(i*16 + j) % 16 -> j` for 0 <= j < 16.
#include <algorithm>
#include <functional>

#include "tir/arith/canonical_simplify.h"
#include "tir/arith/const_int_bound.h"
#include "tir/arith/int_math.h"

namespace tessera::tir::arith {

namespace {

struct DivSplit {
  LinearSum quotient;   ///< terms (and constant) that c divides, already divided by c
  LinearSum remainder;  ///< the rest
};

DivSplit splitByDivisor(const LinearSum& sum, int64_t c) {
  DivSplit s;
  s.quotient.dtype = s.remainder.dtype = sum.dtype;
  for (const LinearTerm& t : sum.terms) {
    if (t.coeff % c == 0)
      s.quotient.addTerm(t.atom, t.coeff / c);
    else
      s.remainder.addTerm(t.atom, t.coeff);
  }
  s.remainder.base = sum.base;
  return s;
}

// The gcd of `c` and every coefficient: floordiv(g*A + b, g*c') = floordiv(A + b//g, c').
int64_t commonFactor(const LinearSum& sum, int64_t c) {
  int64_t g = c;
  for (const LinearTerm& t : sum.terms) g = gcdInt(g, t.coeff);
  return g;
}

// The block index k when every value of `b` lies in [k*c, (k+1)*c).
bool sameBlock(ConstIntBound b, int64_t c, int64_t* k) {
  if (isInf(b.min) || isInf(b.max)) return false;
  int64_t lo = floorDivInt(b.min, c);
  if (floorDivInt(b.max, c) != lo) return false;
  *k = lo;
  return true;
}

// A split of `sum` at a stride m that divides c: high = m * H (every coefficient a multiple of
// m) and low (the rest, with the constant) with 0 <= low < m. Then
//   floordiv(m*H + low, m*c') = floordiv(H, c')  and  floormod(m*H + low, m*c') = floormod(H, c')*m
//   + low,
// which is how a fused index `i_0 * 32 + i_1` splits again (`// 128 -> i_0 // 4`).
struct StrideSplit {
  int64_t m = 0;
  LinearSum high;  ///< H, already divided by m
  LinearSum low;
};

bool splitAtStride(const LinearSum& sum, int64_t c, const ArithState& state, StrideSplit* out) {
  std::vector<int64_t> candidates;
  for (const LinearTerm& t : sum.terms)
    if (t.coeff > 1 && t.coeff < c && c % t.coeff == 0) candidates.push_back(t.coeff);
  std::sort(candidates.begin(), candidates.end(), std::greater<>());
  for (int64_t m : candidates) {
    StrideSplit s;
    s.m = m;
    s.high.dtype = s.low.dtype = sum.dtype;
    for (const LinearTerm& t : sum.terms) {
      if (t.coeff % m == 0)
        s.high.addTerm(t.atom, t.coeff / m);
      else
        s.low.addTerm(t.atom, t.coeff);
    }
    s.low.base = sum.base;
    ConstIntBound b = boundOfLinear(s.low, state);
    if (b.min >= 0 && b.max < m) {
      *out = std::move(s);
      return true;
    }
  }
  return false;
}

PrimExpr makeFloorDiv(const PrimExpr& x, int64_t c) {
  // floordiv(floordiv(y, c1), c) = floordiv(y, c1 * c) for positive c1, c.
  if (const auto* inner = x->as<BinaryNode>(); inner && inner->op == BinaryOp::kFloorDiv) {
    const int64_t* c1 = asConstInt(inner->b);
    if (c1 && *c1 > 0) return floordiv(inner->a, intImm(*c1 * c, x->dtype));
  }
  return floordiv(x, intImm(c, x->dtype));
}

PrimExpr makeFloorMod(const PrimExpr& x, int64_t c) {
  // floormod(floormod(y, c1), c) = floormod(y, c) when c divides c1.
  if (const auto* inner = x->as<BinaryNode>(); inner && inner->op == BinaryOp::kFloorMod) {
    const int64_t* c1 = asConstInt(inner->b);
    if (c1 && *c1 > 0 && *c1 % c == 0) return floormod(inner->a, intImm(c, x->dtype));
  }
  return floormod(x, intImm(c, x->dtype));
}

}  // namespace

PrimExpr CanonicalSimplifier::rewriteFloorDiv(const LinearSum& input, int64_t c) {
  LinearSum sum = input;
  if (int64_t g = commonFactor(sum, c); g > 1) {
    for (LinearTerm& t : sum.terms) t.coeff /= g;
    sum.base = floorDivInt(sum.base, g);
    c /= g;
  }
  DivSplit s = splitByDivisor(sum, c);
  int64_t k = 0;
  if (sameBlock(boundOfLinear(s.remainder, state_), c, &k)) {
    s.quotient.base += k;
    return s.quotient.toExpr();
  }
  // Moving whole multiples of c out of the constant may put the rest in one block.
  LinearSum rest = s.remainder;
  rest.base = floorModInt(s.remainder.base, c);
  if (sameBlock(boundOfLinear(rest, state_), c, &k)) {
    s.quotient.base += floorDivInt(s.remainder.base, c) + k;
    return s.quotient.toExpr();
  }
  if (s.remainder.isConst()) {
    s.quotient.base += floorDivInt(s.remainder.base, c);
    return s.quotient.toExpr();
  }
  if (StrideSplit split; splitAtStride(s.remainder, c, state_, &split)) {
    s.quotient.addScaled(toLinear(rewriteFloorDiv(split.high, c / split.m)), 1);
    return s.quotient.toExpr();
  }
  s.quotient.addTerm(makeFloorDiv(s.remainder.toExpr(), c), 1);
  return s.quotient.toExpr();
}

PrimExpr CanonicalSimplifier::rewriteFloorMod(const LinearSum& input, int64_t c) {
  LinearSum sum = input;
  // floormod(g*A + b, g*c') = g * floormod(A + b//g, c') + b%g.
  int64_t g = commonFactor(sum, c);
  int64_t low = 0;
  if (g > 1) {
    for (LinearTerm& t : sum.terms) t.coeff /= g;
    low = floorModInt(sum.base, g);
    sum.base = floorDivInt(sum.base, g);
    c /= g;
  }
  LinearSum rest;
  rest.dtype = sum.dtype;
  for (const LinearTerm& t : sum.terms) {
    // Whole multiples of c vanish; a positive coefficient above c keeps only its residue.
    int64_t coeff = t.coeff > 0 ? t.coeff % c : t.coeff;
    if (t.coeff % c == 0) continue;
    rest.addTerm(t.atom, coeff);
  }
  rest.base = floorModInt(sum.base, c);
  LinearSum out;
  out.dtype = sum.dtype;
  int64_t k = 0;
  if (sameBlock(boundOfLinear(rest, state_), c, &k)) {
    rest.base -= k * c;
    out.addScaled(rest, g);
  } else if (StrideSplit split; splitAtStride(rest, c, state_, &split)) {
    LinearSum inner = toLinear(rewriteFloorMod(split.high, c / split.m));
    out.addScaled(inner, split.m * g);
    out.addScaled(split.low, g);
  } else {
    out.addTerm(makeFloorMod(rest.toExpr(), c), g);
  }
  out.base += low;
  return out.toExpr();
}

PrimExpr CanonicalSimplifier::rewriteDivMod(BinaryOp op, const PrimExpr& a, const PrimExpr& b) {
  if (!isIndexType(a) || !isIndexType(b) || a->dtype != b->dtype) return binary(op, a, b);
  const int64_t* c = asConstInt(b);
  if (!c || *c == 0) {
    if (deepEqual(a, b) && !isZero(a)) {
      // x // x = 1 and x % x = 0 for any non-zero x (a zero divisor is undefined anyway).
      bool isDiv = op == BinaryOp::kDiv || op == BinaryOp::kFloorDiv;
      return intImm(isDiv ? 1 : 0, a->dtype);
    }
    return binary(op, a, b);
  }
  if (*c < 0) return binary(op, a, b);
  bool floorLike = op == BinaryOp::kFloorDiv || op == BinaryOp::kFloorMod;
  // Truncating and flooring division agree for a non-negative dividend and positive divisor.
  if (!floorLike && boundOf(a).min < 0) return binary(op, a, b);
  bool isDiv = op == BinaryOp::kDiv || op == BinaryOp::kFloorDiv;
  LinearSum la = toLinear(a);
  if (isDiv) return rewriteFloorDiv(la, *c);
  return rewriteFloorMod(la, *c);
}

}  // namespace tessera::tir::arith
