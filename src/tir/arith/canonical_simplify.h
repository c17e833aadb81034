// The canonical simplifier: rewrites integer index arithmetic into linear sums (merging like
// terms), folds floordiv/floormod of sums whose remainder has known bounds, and folds min/max,
// comparisons, logic, select and casts when the analyzer's facts decide them. Its rules live in
// one file per node family: canonical_simplify.cc (driver, + - *), simplify_div_mod.cc,
// simplify_logic.cc (comparisons, min/max, and/or/not, select) and simplify_vector.cc.
#pragma once

#include "tir/arith/arith_state.h"

namespace tessera::tir::arith {

class CanonicalSimplifier {
 public:
  explicit CanonicalSimplifier(ArithState& state) : state_(state) {}

  /// One bottom-up rewrite of `e`.
  PrimExpr simplify(const PrimExpr& e);

  /// Bounds of an already simplified integer expression (through its linear form, so facts
  /// about sums apply).
  ConstIntBound boundOf(const PrimExpr& e);

 private:
  PrimExpr visitBinary(const BinaryNode* op, const PrimExpr& self);
  /// A chain of + and -; null when its operands mix integer widths.
  PrimExpr visitSum(const PrimExpr& self);
  PrimExpr visitCast(const CastNode* op, const PrimExpr& self);
  PrimExpr visitLet(const LetNode* op, const PrimExpr& self);
  PrimExpr visitCall(const CallNode* op, const PrimExpr& self);
  PrimExpr visitBufferLoad(const BufferLoadNode* op, const PrimExpr& self);

  // Rules on simplified operands (one file each, see the header comment).
  PrimExpr rewriteArith(BinaryOp op, const PrimExpr& a, const PrimExpr& b);
  PrimExpr rewriteFloorDiv(const LinearSum& a, int64_t c);
  PrimExpr rewriteFloorMod(const LinearSum& a, int64_t c);
  PrimExpr rewriteDivMod(BinaryOp op, const PrimExpr& a, const PrimExpr& b);
  PrimExpr rewriteCompare(BinaryOp op, const PrimExpr& a, const PrimExpr& b);
  PrimExpr rewriteMinMax(BinaryOp op, const PrimExpr& a, const PrimExpr& b);
  PrimExpr rewriteLogic(BinaryOp op, const PrimExpr& a, const PrimExpr& b);
  PrimExpr rewriteNot(const PrimExpr& a);
  PrimExpr rewriteSelect(const PrimExpr& cond, const PrimExpr& t, const PrimExpr& f);
  PrimExpr rewriteVector(BinaryOp op, const PrimExpr& a, const PrimExpr& b);
  /// Whether a known condition decides `cond`: 1 true, 0 false, -1 unknown.
  int lookupCondition(const PrimExpr& cond);

  ArithState& state_;
};

/// Whether `e` is a scalar signed integer expression (the domain of the linear rules). The rules
/// order operands by the bounds of their difference, assuming no overflow; unsigned arithmetic
/// wraps (and a difference of unsigned values is not one of the type's values), so it stays out.
inline bool isIndexType(const PrimExpr& e) {
  return e->dtype.isInt() && e->dtype.lanes() == 1;
}

}  // namespace tessera::tir::arith
