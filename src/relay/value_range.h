// Value ranges of integer tensors in the graph IR: every element of an expression's value lies in
// [lo, hi], derived from the ops that make it (relu, clip, casts, fixed_point_multiply, adds) and
// from what is known of the free variables. Lowering asks it whether a quantized kernel's data is
// a small non-negative integer (every value in [0, 127]), which lets AVX2 kernels multiply it as
// unsigned bytes (topi/nn_int8.h's byte form) without the products' int16 pair sums saturating.
#pragma once

#include <optional>
#include <unordered_map>

#include "relay/expr.h"

namespace tessera::relay {

/// Every element of a tensor lies in [lo, hi] (doubles: exact for the integers of the dtypes
/// tracked here, and infinite for unknown bounds of floats).
struct ValueRange {
  double lo, hi;
  bool within(double low, double high) const { return lo >= low && hi <= high; }
  bool operator==(const ValueRange&) const = default;
};

/// The whole range of `dtype` (integers and bool); infinite for floats.
ValueRange rangeOfDtype(DataType dtype);

/// Whether every value of a tensor with this range is a byte in [0, 127].
inline bool smallNonNegative(const ValueRange& r) {
  return r.within(0, 127);
}

/// Ranges of the expressions of one function body (type-checked), memoized. Known ranges of
/// variables (a fused function's parameters) are given; other free variables and parameters span
/// their dtype. A let-bound variable has its value's range; a call of a function literal (a fused
/// primitive function) has its body's range for its arguments' ranges. Iterative: a graph of any
/// depth is analysed without recursion.
class RangeAnalyzer {
 public:
  explicit RangeAnalyzer(std::unordered_map<const VarNode*, ValueRange> known = {})
      : known_(std::move(known)) {}
  /// The range of a tensor-typed `e` (a tuple-typed one: nullopt).
  std::optional<ValueRange> rangeOf(const Expr& e);
  /// Whether `e` is an int8 or uint8 tensor whose every value lies in [0, 127]. Other dtypes are
  /// not analysed (no kernel asks this of them), so float graphs cost nothing.
  bool smallNonNegativeBytes(const Expr& e);

 private:
  std::vector<Expr> dependencies(const Expr& e);
  std::optional<ValueRange> transfer(const Expr& e);
  std::optional<ValueRange> memoized(const Expr& e) const;

  std::unordered_map<const VarNode*, ValueRange> known_;
  std::unordered_map<const VarNode*, Expr> letValues_;
  std::unordered_map<const ExprNode*, std::optional<ValueRange>> memo_;
};

}  // namespace tessera::relay
