// Schedule rules (MetaSchedule's defaults for llvm, specs/tir_relax.md §6.3): each rule looks at
// one block of a traced schedule and returns the schedules it makes of it — several variants,
// or the input unchanged when it does not apply. Rules try primitives through tir::attempt, so a
// refused primitive is an ordinary "does not apply", never an error. PostOrderApply
// (post_order_apply.h) runs them over every block; the sampling instructions they record
// (tile sizes, the unroll step, compute locations) are the free parameters of the design space.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "target/target.h"
#include "tir/schedule/schedule.h"

namespace tessera::tune::rules {

/// What the rules know of the target (TVM's max_jobs_per_core x num-cores, vector limits).
struct RuleContext {
  int numCores = 1;
  int maxJobsPerCore = 16;
  int maxVectorizeExtent = 64;
  int maxInnermostFactor = 64;
  int64_t maxParallelExtent() const { return int64_t{maxJobsPerCore} * numCores; }
  static RuleContext of(const target::Target& target);
};

struct ScheduleRule {
  std::string name;  ///< TVM's class name, "MultiLevelTiling"
  /// The schedules made of `sch` for `block` (at least one: `sch` itself when it does not apply).
  std::function<std::vector<tir::Schedule>(tir::Schedule sch, const tir::BlockRV& block,
                                           const RuleContext& ctx)>
      apply;
};

/// `sch` as a rule's only result (a Schedule is move-only; an initializer list would copy).
inline std::vector<tir::Schedule> unchanged(tir::Schedule sch) {
  std::vector<tir::Schedule> out;
  out.push_back(std::move(sch));
  return out;
}

/// AutoInline: inline a block into its consumers, or an elementwise epilogue into its producer.
ScheduleRule autoInline();
/// AddRFactor: factorise reductions whose spatial extent gives too little parallelism.
ScheduleRule addRFactor();
/// MultiLevelTiling "SSRSRS" with write reuse at tile levels 1 and 2.
ScheduleRule multiLevelTiling();
/// ParallelVectorizeUnroll: the root's meta_schedule.* annotations (postproc/ resolves them).
ScheduleRule parallelVectorizeUnroll();
/// RandomComputeLocation: compute a producer at a sampled loop of its consumer.
ScheduleRule randomComputeLocation();

/// The default rules for llvm, in TVM's order.
std::vector<ScheduleRule> defaultRules();

// Block annotations the rules and postprocessors share (TVM's names).
inline constexpr char kTilingStructure[] = "meta_schedule.tiling_structure";
inline constexpr char kParallelAnn[] = "meta_schedule.parallel";
inline constexpr char kVectorizeAnn[] = "meta_schedule.vectorize";
inline constexpr char kUnrollExplicitAnn[] = "meta_schedule.unroll_explicit";
inline constexpr char kRandomComputeProducer[] = "meta_schedule.random_compute_producer";
inline constexpr char kInlineRule[] = "meta_schedule.inline_rule";
inline constexpr char kScheduleRuleAnn[] = "schedule_rule";

}  // namespace tessera::tune::rules
