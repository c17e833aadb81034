// Scheduling a kernel lowered with a target: the anchor schedule of the implementation named in
// its kImplementationAttr, then the target's generic steps.
#pragma once

#include <string>

#include "support/applicability.h"
#include "target/target.h"
#include "tir/function.h"
#include "tir/schedule/trace.h"

namespace tessera::relay::strategy {

/// What happened to a kernel's anchor schedule.
struct AnchorReport {
  std::string implementation;  ///< the kernel's kImplementationAttr; empty when it has none
  Applicability answer;        ///< whether its schedule applied, and why not
  /// A schedule provider's outcome (driver BuildOptions::scheduleProvider): empty when none was
  /// consulted or it had no trace, "applied" when its trace scheduled the kernel, else why the
  /// trace did not apply (the default schedule was used).
  std::string tuned;
};

/// The kernel scheduled for `target` (resolved). Every step preserves its meaning: an anchor
/// schedule that does not apply is dropped whole (the reason goes to `report`). `trace` receives
/// the schedule's trace (what replays it: the tuner's starting point).
tir::PrimFunc scheduleKernel(const tir::PrimFunc& kernel, const target::Target& target,
                             AnchorReport* report = nullptr, tir::Trace* trace = nullptr);

}  // namespace tessera::relay::strategy
