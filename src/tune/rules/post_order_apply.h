// PostOrderApply (specs/tir_relax.md §6.3): the design spaces of a kernel made by schedule
// rules. The blocks are collected in post-order; each rule in turn is applied to every schedule
// made so far, visiting the blocks from the last collected to the first (the root, then
// consumers before producers); a rule's variants each continue with the remaining blocks. Blocks
// that no longer exist (inlined) or carry a `schedule_rule` annotation are skipped.
#pragma once

#include <cstdint>
#include <vector>

#include "target/target.h"
#include "tir/function.h"
#include "tir/schedule/schedule.h"
#include "tune/rules/schedule_rule.h"
#include "tune/space.h"

namespace tessera::tune::rules {

/// The traced schedules `rules` make of `func`, their samples drawn with `seed`.
std::vector<tir::Schedule> postOrderApply(const tir::PrimFunc& func,
                                          const std::vector<ScheduleRule>& rules,
                                          const RuleContext& ctx, int64_t seed = 0);

/// The design spaces of the default rules for `target` (each postprocessed when realized);
/// named "post-order-apply #i".
std::vector<DesignSpace> ruleSpaces(const tir::PrimFunc& func, const target::Target& target,
                                    int64_t seed = 0);

}  // namespace tessera::tune::rules
