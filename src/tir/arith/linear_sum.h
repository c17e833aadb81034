// The canonical form of an integer expression: a sum of coefficient * atom terms plus a constant,
// where an atom is anything that is not itself an add, subtract or multiply by a constant (a
// variable, a floordiv, a load, a product of two variables, ...).
#pragma once

#include <cstdint>
#include <vector>

#include "tir/expr.h"

namespace tessera::tir::arith {

struct LinearTerm {
  PrimExpr atom;
  int64_t coeff;
};

struct LinearSum {
  DataType dtype = DataType::int32();
  std::vector<LinearTerm> terms;  ///< distinct atoms, non-zero coefficients, first-seen order
  int64_t base = 0;

  /// Adds coeff * atom, merging with a structurally equal atom.
  void addTerm(const PrimExpr& atom, int64_t coeff);
  /// this += other * scale.
  void addScaled(const LinearSum& other, int64_t scale);
  bool isConst() const { return terms.empty(); }
  /// The same sum without the constant.
  LinearSum withoutBase() const;
  /// Same terms with the same coefficients, in any order.
  bool sameTerms(const LinearSum& other) const;
  /// Readable expression: terms by decreasing |coefficient| (stable, so ties keep the order in
  /// which they appeared), a positive term first, then the constant (`i_0 * 10 + i_1 - 3`).
  PrimExpr toExpr() const;
};

/// Flattens add, sub and multiplication by constants of an (already simplified) integer scalar
/// expression; any other node becomes an atom.
LinearSum toLinear(const PrimExpr& e);

}  // namespace tessera::tir::arith
