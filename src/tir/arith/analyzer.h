// Arithmetic analysis of index expressions: constant integer bounds, interval evaluation over
// variable domains, proving (in)equalities, and canonical simplification. Schedules use it for
// split predicates and region inference; lowering uses it for index simplification.
#pragma once

#include <cstdint>
#include <limits>
#include <unordered_map>
#include <vector>

#include "tir/expr.h"

namespace tessera::tir::arith {

/// Inclusive integer bounds [min, max]; kNegInf/kPosInf mean unbounded.
struct ConstIntBound {
  static constexpr int64_t kNegInf = std::numeric_limits<int64_t>::min();
  static constexpr int64_t kPosInf = std::numeric_limits<int64_t>::max();
  int64_t min = kNegInf;
  int64_t max = kPosInf;
  bool isConst() const { return min == max && min != kNegInf; }
};

/// The closed interval of values an expression takes, as expressions: [min, max]. Either end may
/// be null (unbounded).
struct IntervalSet {
  PrimExpr min;
  PrimExpr max;
  bool bounded() const { return min && max; }
};

/// Variable -> domain; the key is the variable node.
using DomainMap = std::unordered_map<const VarNode*, Range>;

class Analyzer {
 public:
  Analyzer();
  ~Analyzer();
  Analyzer(const Analyzer&) = delete;
  Analyzer& operator=(const Analyzer&) = delete;

  /// Records that `v` lies in [r.min, r.min + r.extent). Rebinding replaces the old domain.
  void bind(const Var& v, const Range& r);
  /// Records that `v` equals `value` (simplify substitutes it).
  void bindValue(const Var& v, const PrimExpr& value);
  /// Adds a fact (e.g. a predicate `i * 10 + j < 128`) until the returned scope ends.
  class ConstraintScope;

  /// Canonical simplification: constant folding, collecting linear terms, floordiv/floormod of
  /// affine expressions with known bounds, min/max with known order, comparison folding.
  PrimExpr simplify(const PrimExpr& e);
  /// True only when `cond` (a bool expression) holds for every value in the bound domains.
  bool canProve(const PrimExpr& cond);
  bool canProveEqual(const PrimExpr& a, const PrimExpr& b);
  bool canProveLess(const PrimExpr& a, int64_t bound);          ///< a < bound
  bool canProveGreaterEqual(const PrimExpr& a, int64_t bound);  ///< a >= bound
  ConstIntBound constIntBound(const PrimExpr& e);
  /// The interval `e` covers when each variable in `dom` ranges over its domain (variables not
  /// in `dom` stay symbolic; bound variables of the analyzer keep their value).
  IntervalSet evalSet(const PrimExpr& e, const DomainMap& dom);

 private:
  struct Impl;
  Impl* impl_;
  friend class ConstraintScope;
};

class Analyzer::ConstraintScope {
 public:
  ConstraintScope(Analyzer& analyzer, const PrimExpr& constraint);
  ~ConstraintScope();
  ConstraintScope(const ConstraintScope&) = delete;
  ConstraintScope& operator=(const ConstraintScope&) = delete;

 private:
  Analyzer& analyzer_;
};

/// Shorthand: simplify with no variable information.
PrimExpr simplify(const PrimExpr& e);

}  // namespace tessera::tir::arith
