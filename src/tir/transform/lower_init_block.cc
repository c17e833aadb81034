// LowerInitBlock: a reduction block's `init` runs when every reduce iter var is at the minimum of
// its domain (specs/tir_relax.md §2.5), which is exactly an `if` in front of the body.
#include "tir/functor.h"
#include "tir/transform/pass_util.h"
#include "tir/transform/transform.h"

namespace tessera::tir::transform {

namespace {

class InitLowerer : public IRMutator {
 protected:
  Stmt visitBlock(const BlockNode* op, const Stmt& self) override {
    Stmt visited = IRMutator::visitBlock(op, self);
    const auto* block = visited->as<BlockNode>();
    if (!block->init) return visited;
    PrimExpr cond;
    for (const IterVar& iv : block->iterVars) {
      if (iv.type != IterVarType::kCommReduce) continue;
      PrimExpr atMin = eq(iv.var, iv.dom.min);
      cond = cond ? logicalAnd(cond, atMin) : atMin;
    }
    auto n = copyBlock(*block);
    // Without reduce iter vars the init runs unconditionally, once per block instance.
    Stmt init = cond ? ifThenElse(cond, block->init) : block->init;
    n->body = seq({init, block->body});
    n->init = nullptr;
    return n;
  }
};

}  // namespace

PrimFunc lowerInitBlock(const PrimFunc& func) {
  InitLowerer lowerer;
  return withBody(func, lowerer.visitStmt(func->body));
}

}  // namespace tessera::tir::transform
