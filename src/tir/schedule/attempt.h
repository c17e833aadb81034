// Trying a sequence of schedule steps as a whole: on a copy, kept only when every step succeeds.
#pragma once

#include <functional>

#include "support/applicability.h"
#include "tir/schedule/schedule.h"

namespace tessera::tir {

/// Runs `steps` on a copy of `sch` and keeps the result when they return yes. When they return
/// no, or a primitive refuses (its DiagnosticError: the primitive's own error channel), `sch` is
/// left as it was and the answer says why.
Applicability attempt(Schedule& sch, const std::function<Applicability(Schedule&)>& steps);

}  // namespace tessera::tir
