// AddRFactor (max_jobs_per_core 16, max_innermost_factor 64): a reduction whose spatial extent
// gives too little parallelism (below its reduction extent and at most 16 x num-cores when it
// would be tiled; any reduction of more than one iteration otherwise) gets its reduction loops
// moved innermost and fused, a sampled two-way split, and one variant per split loop factorised
// there with rfactor — the write-back block annotated so that RandomComputeLocation places the
// rf-block — plus the unchanged schedule (last, as TVM returns it).
#include "tir/schedule/attempt.h"
#include "tir/schedule/block_analysis.h"
#include "tune/rules/rule_analysis.h"
#include "tune/rules/schedule_rule.h"

namespace tessera::tune::rules {

namespace {

bool applies(const tir::Schedule& sch, const tir::BlockRV& block, const RuleContext& ctx) {
  const tir::BlockNode* b = sch.get(block);
  if (!tir::isReductionBlock(b) || hasAnnotation(b, kTilingStructure)) return false;
  if (!hasTrivialBinding(sch, block)) return false;
  const std::vector<LoopKind> kinds = loopKinds(sch, block);
  size_t reduce = 0;
  for (LoopKind k : kinds) {
    if (k == LoopKind::kOther) return false;
    reduce += k == LoopKind::kReduce;
  }
  if (reduce == 0) return false;
  const int64_t spatialExtent = iterExtent(b, false);
  const int64_t reduceExtent = iterExtent(b, true);
  if (needsMultiLevelTiling(sch, block))
    return spatialExtent < reduceExtent && spatialExtent <= ctx.maxParallelExtent();
  return reduceExtent > 1;
}

std::vector<tir::Schedule> apply(tir::Schedule sch, const tir::BlockRV& block,
                                 const RuleContext& ctx) {
  if (!applies(sch, block, ctx)) return unchanged(std::move(sch));
  const std::vector<LoopKind> kinds = loopKinds(sch, block);
  tir::Schedule base = sch.copy();
  std::vector<tir::LoopRV> parts;
  int numSpatial = 0;
  const Applicability prepared = tir::attempt(base, [&](tir::Schedule& s) {
    std::vector<tir::LoopRV> loops = s.getLoops(block);
    std::vector<tir::LoopRV> spatial, reduce;
    for (size_t l = 0; l < loops.size(); ++l)
      (kinds[l] == LoopKind::kSpatial ? spatial : reduce).push_back(loops[l]);
    numSpatial = static_cast<int>(spatial.size());
    std::vector<tir::LoopRV> order = spatial;
    order.insert(order.end(), reduce.begin(), reduce.end());
    if (loops.size() > 1) s.reorder(order);
    const tir::LoopRV fused = reduce.size() > 1 ? s.fuse(reduce) : reduce[0];
    std::vector<tir::ExprRV> f = s.samplePerfectTile(fused, 2, ctx.maxInnermostFactor);
    parts = s.split(fused, {f[0], f[1]});
    return Applicability::yes();
  });
  if (!prepared) return unchanged(std::move(sch));
  std::vector<tir::Schedule> out;
  for (const tir::LoopRV& at : parts) {
    tir::Schedule variant = base.copy();
    if (tir::attempt(variant, [&](tir::Schedule& s) {
          s.rfactor(at, numSpatial);
          s.annotate(block, kRandomComputeProducer, AttrValue::integer(1, DataType::int64()));
          return Applicability::yes();
        }))
      out.push_back(std::move(variant));
  }
  out.push_back(std::move(sch));
  return out;
}

}  // namespace

ScheduleRule addRFactor() {
  return {.name = "AddRFactor", .apply = apply};
}

}  // namespace tessera::tune::rules
