// Helpers shared by the loop primitives: the loop-variable domains of a statement's ancestors and
// re-simplifying block bindings and predicates after loop variables were substituted.
#pragma once

#include <vector>

#include "tir/arith/analyzer.h"
#include "tir/schedule/schedule_state.h"

namespace tessera::tir {

/// Binds the domain of every loop in `loops` to `analyzer`; with `preserveUnitIters`, extent-1
/// loops stay unbound so their variables survive simplification.
void bindLoopDomains(arith::Analyzer& analyzer, const std::vector<For>& loops,
                     bool preserveUnitIters);
/// `body` with the bindings and predicates of the block realizes directly under it (not inside
/// nested blocks) simplified by `analyzer` (inner loops are bound as they are entered, extent-1
/// ones only without `preserveUnitIters`); `extraPredicate` (if set) is conjoined to each
/// predicate first.
Stmt simplifyBindings(const Stmt& body, arith::Analyzer& analyzer, bool preserveUnitIters,
                      const PrimExpr& extraPredicate = nullptr);

}  // namespace tessera::tir
