// RemoveNoOp: earlier passes leave statements that do nothing (a loop whose body became empty, a
// branch Simplify proved dead, `x[i] = x[i]`, an allocation nobody uses any more). They are
// removed bottom-up; a no-op is represented as `Evaluate(0)` and disappears from sequences.
#include <string>

#include "tir/functor.h"
#include "tir/transform/pass_util.h"
#include "tir/transform/transform.h"

namespace tessera::tir::transform {

namespace {

bool isNoOp(const Stmt& s) {
  if (!s) return true;
  if (const auto* e = s->as<EvaluateNode>())
    return e->value->kind == ExprKind::kIntImm || e->value->kind == ExprKind::kFloatImm;
  if (const auto* q = s->as<SeqStmtNode>()) return q->seq.empty();
  return false;
}

// Whether evaluating `e` can have an effect: extern and packed calls, runtime builtins
// (`tir.call_extern`, `tir.call_packed`, `tir.tvm_*`) and accelerator builtins (`vta.*`, which
// queue micro-ops and instructions) may; math intrinsics may not.
bool hasSideEffect(const PrimExpr& e) {
  bool effect = false;
  postOrderVisitExpr(e, [&](const PrimExpr& x) {
    const auto* c = x->as<CallNode>();
    if (c && (c->op.find("call") != std::string::npos || c->op.find("tvm_") != std::string::npos ||
              c->op.rfind("vta.", 0) == 0))
      effect = true;
  });
  return effect;
}

Stmt noOp() {
  return evaluate(intImm(0));
}

// Bottom-up: children are cleaned first, so a loop whose body only held no-ops is itself one.
class NoOpRemover : public IRMutator {
 protected:
  Stmt visitFor(const ForNode* op, const Stmt& self) override {
    if (const int64_t* e = asConstInt(op->extent); e && *e <= 0) return noOp();
    Stmt visited = IRMutator::visitFor(op, self);
    return isNoOp(visited->as<ForNode>()->body) ? noOp() : visited;
  }

  Stmt visitBufferStore(const BufferStoreNode* op, const Stmt& self) override {
    // Storing what was just loaded from the same place changes nothing.
    const auto* load = op->value->as<BufferLoadNode>();
    if (load && load->buffer == op->buffer && load->indices.size() == op->indices.size()) {
      bool same = true;
      for (size_t d = 0; same && d < op->indices.size(); ++d)
        same = deepEqual(load->indices[d], op->indices[d]);
      if (same) return noOp();
    }
    return IRMutator::visitBufferStore(op, self);
  }

  Stmt visitSeqStmt(const SeqStmtNode* op, const Stmt& self) override {
    std::vector<Stmt> kept;
    bool changed = false;
    for (const Stmt& s : op->seq) {
      Stmt v = visitStmt(s);
      changed = changed || v != s;
      if (isNoOp(v)) {
        changed = true;
        continue;
      }
      kept.push_back(v);
    }
    if (!changed) return self;
    return kept.empty() ? noOp() : seq(std::move(kept));
  }

  Stmt visitOtherStmt(const Stmt& s) override {
    Stmt v = IRMutator::visitOtherStmt(s);
    switch (v->kind) {
      case StmtKind::kIfThenElse: {
        const auto* op = v->as<IfThenElseNode>();
        bool thenEmpty = isNoOp(op->thenCase), elseEmpty = isNoOp(op->elseCase);
        if (thenEmpty && elseEmpty && !hasSideEffect(op->condition)) return noOp();
        if (!elseEmpty || !op->elseCase) return v;
        return ifThenElse(op->condition, op->thenCase);  // drop the empty else
      }
      case StmtKind::kLetStmt: {
        const auto* op = v->as<LetStmtNode>();
        return isNoOp(op->body) && !hasSideEffect(op->value) ? noOp() : v;
      }
      case StmtKind::kAttrStmt:
        return isNoOp(v->as<AttrStmtNode>()->body) ? noOp() : v;
      case StmtKind::kAllocate:
        return isNoOp(v->as<AllocateNode>()->body) ? noOp() : v;
      case StmtKind::kDeclBuffer:
        return isNoOp(v->as<DeclBufferNode>()->body) ? noOp() : v;
      case StmtKind::kEvaluate:
        return hasSideEffect(v->as<EvaluateNode>()->value) ? v : noOp();
      default:
        return v;
    }
  }
};

}  // namespace

PrimFunc removeNoOp(const PrimFunc& func) {
  NoOpRemover remover;
  return withBody(func, remover.visitStmt(func->body));
}

}  // namespace tessera::tir::transform
