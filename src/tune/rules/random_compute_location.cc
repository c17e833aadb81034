// RandomComputeLocation: a block directly under the root, with loops whose outermost has it as
// its only block, not tiled, and with consumers, is computed at a sampled location
// (sample_compute_location: inline, root, or a loop of its first consumer; the
// MutateComputeLocation knob). The producers of a block annotated
// meta_schedule.random_compute_producer (AddRFactor's rf-blocks) are placed the same way, and
// the annotation is removed.
#include "tir/schedule/attempt.h"
#include "tir/schedule/schedule_state.h"
#include "tune/rules/rule_analysis.h"
#include "tune/rules/schedule_rule.h"

namespace tessera::tune::rules {

namespace {

bool qualifies(const tir::Schedule& sch, const tir::BlockRV& block) {
  if (isRootBlock(sch, block) || !isUnderRoot(sch, block)) return false;
  if (hasAnnotation(sch.get(block), kTilingStructure)) return false;
  const std::vector<tir::For> loops = loopsOf(sch, block);
  if (loops.empty() || tir::childBlocks(loops[0]->body).size() != 1) return false;
  return hasConsumers(sch, block);
}

void place(tir::Schedule& sch, const tir::BlockRV& block) {
  tir::attempt(sch, [&](tir::Schedule& s) {
    tir::LoopRV at = s.sampleComputeLocation(block);
    s.computeAt(block, at);
    return Applicability::yes();
  });
}

std::vector<tir::Schedule> apply(tir::Schedule sch, const tir::BlockRV& block, const RuleContext&) {
  // Read first: placing the block may inline it.
  const bool placesProducers = hasAnnotation(sch.get(block), kRandomComputeProducer);
  if (qualifies(sch, block)) place(sch, block);
  if (placesProducers) {
    std::vector<tir::BlockRV> producers = sch.getProducers(block);
    for (const tir::BlockRV& p : producers)
      if (qualifies(sch, p)) place(sch, p);
    sch.unannotate(block, kRandomComputeProducer);
  }
  return unchanged(std::move(sch));
}

}  // namespace

ScheduleRule randomComputeLocation() {
  return {.name = "RandomComputeLocation", .apply = apply};
}

}  // namespace tessera::tune::rules
