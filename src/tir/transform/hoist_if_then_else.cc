// HoistIfThenElse: a loop whose whole body is an `if` on a condition that does not change inside
// the loop tests it once per iteration for nothing; `for i: if c: A else: B` becomes
// `if c: for i: A else: for i: B`. Conditions that read memory stay inside (the loop may write it).
// Applied bottom-up, so an invariant condition rises through every loop it does not depend on.
#include "tir/functor.h"
#include "tir/transform/pass_util.h"
#include "tir/transform/transform.h"

namespace tessera::tir::transform {

namespace {

bool readsMemory(const PrimExpr& e) {
  bool reads = false;
  postOrderVisitExpr(e, [&](const PrimExpr& x) {
    if (x->kind == ExprKind::kBufferLoad || x->kind == ExprKind::kCall) reads = true;
  });
  return reads;
}

class IfHoister : public IRMutator {
 protected:
  Stmt visitFor(const ForNode* op, const Stmt& self) override {
    Stmt visited = IRMutator::visitFor(op, self);
    const auto* loop = visited->as<ForNode>();
    const auto* branch = loop->body->as<IfThenElseNode>();
    if (!branch || usesVar(branch->condition, loop->loopVar.get()) ||
        readsMemory(branch->condition))
      return visited;
    auto thenLoop = std::make_shared<ForNode>(*loop);
    thenLoop->body = branch->thenCase;
    Stmt elseLoop;
    if (branch->elseCase) {
      // The else copy gets its own loop variable: every variable is bound by one loop.
      auto n = std::make_shared<ForNode>(*loop);
      n->loopVar = makeVar(loop->loopVar->name, loop->loopVar->dtype);
      n->body = substitute(branch->elseCase, {{loop->loopVar.get(), PrimExpr(n->loopVar)}});
      elseLoop = n;
    }
    return ifThenElse(branch->condition, thenLoop, elseLoop);
  }
};

}  // namespace

PrimFunc hoistIfThenElse(const PrimFunc& func) {
  IfHoister hoister;
  return withBody(func, hoister.visitStmt(func->body));
}

}  // namespace tessera::tir::transform
