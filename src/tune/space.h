// Design spaces: a base trace whose free parameters ("knobs") the search chooses. A space comes
// from a traced schedule — the target's default schedule of a kernel (relay/strategy's
// scheduleKernel, whose trace records every primitive), or a user's space function such as seed
// 002's stochastic_schedule_mm — and its knobs are
//   * the decisions of its sampling instructions (SamplePerfectTile, SampleCategorical);
//   * the constant factors of its splits (the default schedules' fixed tile sizes), as perfect
//     tilings of the split loop, so the rules' tile sizes become sampled decisions;
//   * whether each Parallel and Unroll is applied;
//   * the decisions of sample_compute_location, and the meta_schedule.parallel limit of the
//     rule-made spaces (tune/rules/post_order_apply.h), which are postprocessed when realized.
// A choice of every knob is a Decision list; materialize() turns it into a trace that replays on
// the unscheduled kernel. The base trace's own choices are one point of the space, so the
// default schedule is always a candidate.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "target/target.h"
#include "tir/function.h"
#include "tir/schedule/schedule.h"
#include "tir/schedule/trace.h"

namespace tessera::tune {

struct Knob {
  enum class Kind { kTile, kCategorical, kSplit, kToggle, kComputeLocation, kParallel };
  Kind kind = Kind::kTile;
  size_t inst = 0;              ///< index of the instruction in the base trace
  int64_t extent = 0;           ///< kTile, kSplit: the loop's extent; kParallel: the rule's limit
  int maxInnermost = -1;        ///< kTile, kSplit: the innermost factor's limit (-1: none)
  int64_t choices = 0;          ///< kCategorical: the number of candidates
  std::vector<bool> inferred;   ///< kSplit: which factors were None (inferred) in the base trace
  std::vector<int64_t> values;  ///< kComputeLocation: the candidates at the base point
  std::string str() const;      ///< "Split #12 (extent 64)"
};

/// One value per knob: the tile factors, the categorical index, or 0/1 for a toggle.
using Decision = std::vector<int64_t>;
using Decisions = std::vector<Decision>;

struct DesignSpace {
  std::string name;  ///< "default" or the space function's name
  tir::Trace trace;  ///< the base trace
  std::vector<Knob> knobs;
  Decisions base;            ///< the base trace's own choices
  tir::PrimFunc func;        ///< the unscheduled kernel the trace applies to
  bool postprocess = false;  ///< realized with the postprocessors (rule-made spaces)

  /// The trace with `decisions` (one per knob) in place of the base's choices.
  tir::Trace materialize(const Decisions& decisions) const;
  /// The decisions of `trace` if it is a point of this space (a record made from it), else
  /// nullopt.
  std::optional<Decisions> decisionsOf(const tir::Trace& trace) const;
};

/// The candidates of the SampleComputeLocation at `index` of `trace` (a trace of `func`), found
/// by replaying the instructions before it; nullopt when they do not replay.
std::optional<std::vector<int64_t>> computeLocationsAt(const tir::PrimFunc& func,
                                                       const tir::Trace& trace, size_t index);

/// The space of `trace` (a traced schedule of `func`).
DesignSpace spaceFromTrace(const tir::PrimFunc& func, const tir::Trace& trace, std::string name);

/// A user's space function: transforms a schedule in place (seed 002's ScheduleFn).
using SpaceFunction = std::function<void(tir::Schedule&)>;
/// The space of `fn` applied to `func` (its sampling instructions drawn with `seed`).
DesignSpace spaceFromFunction(const tir::PrimFunc& func, const SpaceFunction& fn, std::string name,
                              int64_t seed = 0);

/// The space of the target's default schedule of `kernel` (a kernel of a model, unscheduled,
/// lowered with `target`).
DesignSpace defaultSpace(const tir::PrimFunc& kernel, const target::Target& target);

/// Seed 002's stochastic_schedule_mm: block "C", j split by sample_perfect_tile(n=2, limit 16),
/// reorder(i, j_0, k, j_1), decompose_reduction at k.
void stochasticScheduleMM(tir::Schedule& sch);

/// The space functions that can be chosen by name ("stochastic_schedule_mm"); null when unknown.
const SpaceFunction* findSpaceFunction(const std::string& name);

}  // namespace tessera::tune
