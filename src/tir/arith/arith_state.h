// What the analyzer knows about variables: domains from bind(), values from bindValue(), and the
// facts added by ConstraintScope. Every analysis (bounds, simplification, intervals) reads it.
#pragma once

#include <unordered_map>
#include <vector>

#include "tir/arith/analyzer.h"
#include "tir/arith/linear_sum.h"

namespace tessera::tir::arith {

/// A known bound on a linear combination of atoms (`i * 10 + j` in [-inf, 127]); `sum` has no
/// constant part.
struct BoundFact {
  LinearSum sum;
  PrimExpr expr;  ///< sum.toExpr(), matched structurally by the bound evaluator
  ConstIntBound bound;
};

struct ArithState {
  std::unordered_map<const VarNode*, ConstIntBound> varBounds;
  std::unordered_map<const VarNode*, PrimExpr> varValues;
  std::vector<BoundFact> facts;
  /// Simplified conditions known to hold (kept for those that give no bound, e.g. `x != y`).
  std::vector<PrimExpr> trueConditions;
};

}  // namespace tessera::tir::arith
