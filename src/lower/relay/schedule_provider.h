// The schedule seam: where tuned schedules enter a build. A provider (the tuner's database, as
// TVM's ApplyHistoryBest) is consulted for every kernel before the target's default schedule,
// keyed by the kernel's workload key (the name-free structural hash of tuning tasks) and the
// target. A trace it returns is replayed on the unscheduled kernel; one that no longer applies is
// reported, and the default schedule is used instead.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "support/applicability.h"
#include "target/target.h"
#include "tir/function.h"
#include "tir/schedule/trace.h"

namespace tessera::lower {

/// The workload key of a kernel: the structural hash (tir/structural_equal.h, versioned) of the
/// unscheduled kernel with its name and global symbol removed, so that the same computation at
/// two places of a model, or in two models, has one key.
uint64_t workloadKey(const tir::PrimFunc& kernel);

/// A source of tuned schedules.
class ScheduleProvider {
 public:
  virtual ~ScheduleProvider() = default;
  /// The trace to replay on `kernel` (unscheduled, weights packed as the strategy chose) whose
  /// workload key is `key`, when compiled for `target`; nullopt for the default schedule.
  virtual std::optional<tir::Trace> scheduleFor(uint64_t key, const tir::PrimFunc& kernel,
                                                const target::Target& target) const = 0;
};

/// Replays `trace` on `kernel` and checks the result: every primitive of the trace applies and
/// the function keeps its parameters and buffers (what the graph calls it with). The scheduled
/// function (named as `kernel`), or the reason it does not apply.
struct TracedSchedule {
  std::optional<tir::PrimFunc> func;
  Applicability answer;
};
TracedSchedule applyTunedTrace(const tir::PrimFunc& kernel, const tir::Trace& trace);

}  // namespace tessera::lower
