// RewriteReductionBlock: every reduction block that still has an init gets it split off with
// decompose_reduction at its outermost non-spatial loop, so the init runs once per output
// element ahead of the reduction loops instead of as a condition inside them.
#include "tir/functor.h"
#include "tir/schedule/block_analysis.h"
#include "tune/postproc/postproc.h"
#include "tune/rules/rule_analysis.h"

namespace tessera::tune::postproc {

namespace {

std::vector<std::string> blocksWithInit(const tir::PrimFunc& func) {
  std::vector<std::string> out;
  tir::preOrderVisit(func->body, [&](const tir::Stmt& st) {
    if (const auto* b = st->as<tir::BlockNode>(); b && b->init && tir::isReductionBlock(b))
      out.push_back(b->name);
    return true;
  });
  return out;
}

Applicability apply(tir::Schedule& sch) {
  for (const std::string& name : blocksWithInit(sch.func())) {
    tir::BlockRV block = sch.getBlock(name);
    const std::vector<rules::LoopKind> kinds = rules::loopKinds(sch, block);
    size_t at = 0;
    while (at < kinds.size() && kinds[at] == rules::LoopKind::kSpatial) ++at;
    if (at == kinds.size()) continue;  // no reduction loop inside its scope: init stays
    std::vector<tir::LoopRV> loops = sch.getLoops(block);
    sch.decomposeReduction(block, loops[at]);
  }
  return Applicability::yes();
}

}  // namespace

Postproc rewriteReductionBlock() {
  return {.name = "RewriteReductionBlock", .apply = apply};
}

}  // namespace tessera::tune::postproc
