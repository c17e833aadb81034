// ParallelVectorizeUnroll (max_jobs_per_core 16, max_vectorize_extent 64, unroll_max_steps
// [0, 16, 64, 512], unroll_explicit): on the root block only, annotations the postprocessor
// RewriteParallelVectorizeUnroll turns into loops — meta_schedule.parallel = 16 x num-cores,
// meta_schedule.vectorize = 64 and, unless every block is spatial, meta_schedule.unroll_explicit
// from a sampled step (a categorical decision, the MutateUnroll knob).
#include "tune/rules/rule_analysis.h"
#include "tune/rules/schedule_rule.h"

namespace tessera::tune::rules {

namespace {

std::vector<tir::Schedule> apply(tir::Schedule sch, const tir::BlockRV& block,
                                 const RuleContext& ctx) {
  if (!isRootBlock(sch, block)) return unchanged(std::move(sch));
  sch.annotate(block, kParallelAnn, AttrValue::integer(ctx.maxParallelExtent(), DataType::int64()));
  sch.annotate(block, kVectorizeAnn, AttrValue::integer(ctx.maxVectorizeExtent, DataType::int64()));
  if (!isSpatialPrimFunc(sch.func())) {
    tir::ExprRV step = sch.sampleCategorical({0, 16, 64, 512}, {0.25, 0.25, 0.25, 0.25});
    sch.annotate(block, kUnrollExplicitAnn, step);
  }
  return unchanged(std::move(sch));
}

}  // namespace

ScheduleRule parallelVectorizeUnroll() {
  return {.name = "ParallelVectorizeUnroll", .apply = apply};
}

}  // namespace tessera::tune::rules
