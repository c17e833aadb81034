// AutoInline (TVM's defaults for llvm: into_consumer, inline_const_tensor, disallow_if_then_else,
// require_injective, require_ordered, disallow_op = [tir.exp]): a block that writes one buffer is
// inlined into its consumers when compute_inline's preconditions hold. Tessera also folds an
// elementwise epilogue into its single producer (reverse_compute_inline, TVM's into_producer),
// so chains of elementwise blocks become one loop nest; a reduction producer refuses, and the
// epilogue is then left to MultiLevelTiling's write reuse.
#include "tir/functor.h"
#include "tir/schedule/attempt.h"
#include "tir/schedule/block_analysis.h"
#include "tune/rules/rule_analysis.h"
#include "tune/rules/schedule_rule.h"

namespace tessera::tune::rules {

namespace {

// The body selects between values or calls a disallowed op (exp: inlining it would recompute it
// in every consumer iteration of a reduction).
bool hasDisallowedExpr(const tir::BlockNode* block) {
  bool bad = false;
  tir::preOrderVisit(block->body, [&](const tir::Stmt& st) {
    if (st->kind == tir::StmtKind::kIfThenElse) bad = true;
    return !bad;
  });
  tir::postOrderVisitExprs(block->body, [&](const tir::PrimExpr& e) {
    if (e->kind == tir::ExprKind::kSelect) bad = true;
    if (const auto* call = e->as<tir::CallNode>())
      if (call->op == "tir.if_then_else" || call->op == "tir.exp") bad = true;
  });
  return bad;
}

// Every read's indices use the block's iter vars each at most once and in the order of the iter
// vars (require_injective and require_ordered, on the index expressions).
bool readsAreInjectiveAndOrdered(const tir::BlockNode* block) {
  for (const tir::BufferRegion& read : block->reads) {
    int last = -1;
    for (const tir::Range& r : read.region) {
      const auto vars = tir::varsOf(r.min);
      for (size_t i = 0; i < block->iterVars.size(); ++i) {
        if (!vars.count(block->iterVars[i].var.get())) continue;
        if (static_cast<int>(i) <= last) return false;
        last = static_cast<int>(i);
      }
    }
  }
  return true;
}

std::vector<tir::Schedule> apply(tir::Schedule sch, const tir::BlockRV& block, const RuleContext&) {
  const tir::BlockNode* b = sch.get(block);
  if (isRootBlock(sch, block) || b->writes.size() != 1) return unchanged(std::move(sch));
  if (const AttrValue* rule = b->annotations.find(kInlineRule);
      rule && rule->kind() == AttrValue::Kind::kString && rule->asString() == "disable")
    return unchanged(std::move(sch));
  const bool constTensor = b->reads.empty();
  if (!constTensor && !isSpatialPrimFunc(sch.func()) &&
      (hasDisallowedExpr(b) || !readsAreInjectiveAndOrdered(b)))
    return unchanged(std::move(sch));
  // A producer read many times by its consumers would be copied into every read: past the size
  // bound it stays a stage (as in the default schedule).
  if (tir::inliningStaysSmall(sch, block) && hasConsumers(sch, block) &&
      tir::attempt(sch, [&](tir::Schedule& s) {
        s.computeInline(block);
        return Applicability::yes();
      }))
    return unchanged(std::move(sch));
  // An elementwise epilogue folded into a complete producer (the primitive judges legality).
  if (!constTensor && tir::isCompleteBlock(b))
    tir::attempt(sch, [&](tir::Schedule& s) {
      s.reverseComputeInline(block);
      return Applicability::yes();
    });
  return unchanged(std::move(sch));
}

}  // namespace

ScheduleRule autoInline() {
  return {.name = "AutoInline", .apply = apply};
}

}  // namespace tessera::tune::rules
