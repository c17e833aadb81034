// ConvertBlocksToOpaque: after this pass a block is only a scope (allocations, predicate,
// annotations); its iter vars are replaced by their bindings, so later passes see plain loop
// arithmetic and no longer need block isolation.
#include "tir/functor.h"
#include "tir/transform/pass_util.h"
#include "tir/transform/transform.h"

namespace tessera::tir::transform {

namespace {

class OpaqueConverter : public IRMutator {
 protected:
  PrimExpr visitVar(const VarNode* op, const PrimExpr& self) override {
    auto it = bindings_.find(op);
    return it == bindings_.end() ? self : it->second;
  }

  Stmt visitBlockRealize(const BlockRealizeNode* op, const Stmt& self) override {
    const BlockNode* block = op->block.get();
    // Bindings are expressions of the enclosing loops, themselves possibly under outer blocks.
    for (size_t i = 0; i < block->iterVars.size(); ++i)
      bindings_[block->iterVars[i].var.get()] = visitExpr(op->iterValues[i]);
    PrimExpr predicate = visitExpr(op->predicate);
    Stmt visited = visitStmt(op->block);
    for (const IterVar& iv : block->iterVars) bindings_.erase(iv.var.get());
    auto n = copyBlock(*visited->as<BlockNode>());
    n->iterVars.clear();
    return blockRealize({}, predicate, n);
  }

 private:
  VarMap bindings_;
};

}  // namespace

PrimFunc convertBlocksToOpaque(const PrimFunc& func) {
  OpaqueConverter converter;
  return withBody(func, converter.visitStmt(func->body));
}

}  // namespace tessera::tir::transform
