// Helpers shared by the x86 rows of the strategy table (strategies.cc,
// int8_strategies.cc): the schedule options a target implies, an anchor schedule of
// topi/x86 as a KernelSchedule, and a call's argument types.
#pragma once

#include "relay/strategy/op_strategy.h"
#include "topi/x86/schedule.h"

namespace tessera::relay::strategy {

/// The options of the x86 schedules for `target`: its cores (the host's when unset) and its
/// vector width.
topi::x86::ScheduleOptions x86ScheduleOptions(const target::Target& target);
/// An anchor schedule of topi/x86 as a KernelSchedule.
KernelSchedule x86Schedule(Applicability (*rule)(tir::Schedule&,
                                                 const topi::x86::ScheduleOptions&));
/// The tensor type of argument `i` of a type-checked call (null for anything else).
const TensorTypeNode* argType(const CallNode& call, size_t i);

}  // namespace tessera::relay::strategy
