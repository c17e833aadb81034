// Integer helpers shared by the arithmetic analyses: floor division with Python semantics and
// saturating bound arithmetic in which ConstIntBound's kNegInf/kPosInf act as infinities.
#pragma once

#include <cstdint>

#include "tir/arith/analyzer.h"

namespace tessera::tir::arith {

/// Floor division (rounds toward negative infinity); `b` must be non-zero.
inline int64_t floorDivInt(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
/// Floor modulo: the result has the sign of `b`.
inline int64_t floorModInt(int64_t a, int64_t b) {
  return a - floorDivInt(a, b) * b;
}

inline int64_t gcdInt(int64_t a, int64_t b) {
  a = a < 0 ? -a : a;
  b = b < 0 ? -b : b;
  while (b != 0) {
    int64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

/// Two's-complement wrap-around arithmetic: what int64 index code computes, without the undefined
/// behaviour of signed overflow in the analyzer itself.
inline int64_t wrapAdd(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}
inline int64_t wrapMul(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}

inline bool isNegInf(int64_t v) {
  return v == ConstIntBound::kNegInf;
}
inline bool isPosInf(int64_t v) {
  return v == ConstIntBound::kPosInf;
}
inline bool isInf(int64_t v) {
  return isNegInf(v) || isPosInf(v);
}

/// Clamps a wide value back to int64, mapping overflow to the infinities.
inline int64_t clampToBound(__int128 v) {
  if (v >= static_cast<__int128>(ConstIntBound::kPosInf)) return ConstIntBound::kPosInf;
  if (v <= static_cast<__int128>(ConstIntBound::kNegInf)) return ConstIntBound::kNegInf;
  return static_cast<int64_t>(v);
}

/// a + b where an infinite operand wins (callers never add opposite infinities: both operands
/// are lower ends or both are upper ends).
inline int64_t boundAdd(int64_t a, int64_t b) {
  if (isInf(a)) return a;
  if (isInf(b)) return b;
  return clampToBound(static_cast<__int128>(a) + b);
}

inline int64_t boundNeg(int64_t a) {
  if (isNegInf(a)) return ConstIntBound::kPosInf;
  if (isPosInf(a)) return ConstIntBound::kNegInf;
  return -a;
}

/// a * b with infinities (inf * 0 = 0: a zero factor pins the product however large the other).
inline int64_t boundMul(int64_t a, int64_t b) {
  if (a == 0 || b == 0) return 0;
  if (isInf(a) || isInf(b)) {
    bool negative = (a < 0) != (b < 0);
    return negative ? ConstIntBound::kNegInf : ConstIntBound::kPosInf;
  }
  return clampToBound(static_cast<__int128>(a) * b);
}

/// floor(a / b) for b != 0 with infinite `a`.
inline int64_t boundFloorDiv(int64_t a, int64_t b) {
  if (isInf(a)) return (a < 0) != (b < 0) ? ConstIntBound::kNegInf : ConstIntBound::kPosInf;
  if (b == -1) return boundNeg(a);
  return floorDivInt(a, b);
}

/// trunc(a / b) for b != 0 with infinite `a`.
inline int64_t boundTruncDiv(int64_t a, int64_t b) {
  if (isInf(a)) return (a < 0) != (b < 0) ? ConstIntBound::kNegInf : ConstIntBound::kPosInf;
  if (b == -1) return boundNeg(a);
  return a / b;
}

inline ConstIntBound intersectBounds(ConstIntBound a, ConstIntBound b) {
  return {a.min > b.min ? a.min : b.min, a.max < b.max ? a.max : b.max};
}
inline ConstIntBound unionBounds(ConstIntBound a, ConstIntBound b) {
  return {a.min < b.min ? a.min : b.min, a.max > b.max ? a.max : b.max};
}

}  // namespace tessera::tir::arith
