// Constant integer bounds of an expression from the bounds of its variables (interval
// arithmetic on int64 with infinities), refined by the facts of the enclosing constraints.
#pragma once

#include "tir/arith/arith_state.h"

namespace tessera::tir::arith {

/// Everything a value of `dtype` can hold ([0, 1] for bool; unbounded for floats and handles).
ConstIntBound boundOfType(DataType dtype);

/// Bounds of `e` given `state`. Unknown variables take their type's range (size variables are
/// non-negative); loads and calls take their type's range.
ConstIntBound computeConstIntBound(const PrimExpr& e, const ArithState& state);

/// Bounds of a linear sum: the sum of its terms' bounds, refined by any fact on the same terms.
ConstIntBound boundOfLinear(const LinearSum& sum, const ArithState& state);

}  // namespace tessera::tir::arith
