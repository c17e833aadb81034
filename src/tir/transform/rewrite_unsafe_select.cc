// RewriteUnsafeSelect: `Select` evaluates both branches, which is wrong when the branch not taken
// would read out of bounds (`select(i < n, A[i], 0)`). A Select whose branches read memory or call
// something becomes the lazy `tir.if_then_else`, which evaluates only the taken branch.
#include "tir/functor.h"
#include "tir/transform/pass_util.h"
#include "tir/transform/transform.h"

namespace tessera::tir::transform {

namespace {

bool mayFault(const PrimExpr& e) {
  bool unsafe = false;
  postOrderVisitExpr(e, [&](const PrimExpr& x) {
    if (x->kind == ExprKind::kBufferLoad) unsafe = true;
    if (const auto* c = x->as<CallNode>(); c && c->op == "tir.call_extern") unsafe = true;
  });
  return unsafe;
}

class SelectRewriter : public IRMutator {
 protected:
  PrimExpr visitOtherExpr(const PrimExpr& e) override {
    PrimExpr v = IRMutator::visitOtherExpr(e);
    const auto* s = v->as<SelectNode>();
    // A vector condition has no lazy form; it stays a Select.
    if (!s || s->cond->dtype.lanes() != 1 || (!mayFault(s->t) && !mayFault(s->f))) return v;
    return call(s->dtype, "tir.if_then_else", {s->cond, s->t, s->f});
  }
};

}  // namespace

PrimFunc rewriteUnsafeSelect(const PrimFunc& func) {
  SelectRewriter rewriter;
  return withBody(func, rewriter.visitStmt(func->body));
}

}  // namespace tessera::tir::transform
