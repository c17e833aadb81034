// Interval evaluation: the range of values an expression covers when some variables sweep their
// domains, as symbolic end points (region inference for compute_at, buffer compaction).
#pragma once

#include "tir/arith/canonical_simplify.h"

namespace tessera::tir::arith {

/// [min, max] of `e` over `dom`; end points are simplified with `simplifier`. An end point is
/// null when it cannot be expressed (a load of a relaxed index, a product of two relaxed sums).
IntervalSet evalInterval(const PrimExpr& e, const DomainMap& dom, CanonicalSimplifier& simplifier);

}  // namespace tessera::tir::arith
