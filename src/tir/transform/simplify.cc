// Simplify: statement-level driver of arith::Analyzer. Descending into a loop binds its variable to
// the loop range, into a block binds its iter vars to their domains, and into a branch adds the
// branch condition as a fact, so that index expressions fold (`(a*8 + b) // 8 -> a` when
// `0 <= b < 8`) and conditions that are provably true or false disappear.
#include "tir/functor.h"
#include "tir/transform/pass_util.h"
#include "tir/transform/transform.h"

namespace tessera::tir::transform {

namespace {

class StmtSimplifier : public IRMutator {
 public:
  PrimExpr visitExpr(const PrimExpr& e) override {
    if (!e) return e;
    // Vectors and non-integer values go through the analyzer only for their integer parts.
    PrimExpr inner = IRMutator::visitExpr(e);
    if (!isIndexLike(inner)) return inner;
    return analyzer_.simplify(inner);
  }

 protected:
  Stmt visitFor(const ForNode* op, const Stmt& self) override {
    PrimExpr min = visitExpr(op->min);
    PrimExpr extent = visitExpr(op->extent);
    // An empty loop runs nothing; binding an empty range would confuse the analyzer.
    if (const int64_t* e = asConstInt(extent); e && *e <= 0) return evaluate(intImm(0));
    analyzer_.bind(op->loopVar, Range{min, extent});
    Stmt body = visitStmt(op->body);
    if (min == op->min && extent == op->extent && body == op->body) return self;
    auto n = std::make_shared<ForNode>(*op);
    n->min = min;
    n->extent = extent;
    n->body = body;
    return n;
  }

  Stmt visitBlockRealize(const BlockRealizeNode* op, const Stmt& self) override {
    for (const IterVar& iv : op->block->iterVars) analyzer_.bind(iv.var, iv.dom);
    PrimExpr predicate = visitExpr(op->predicate);
    if (isConstFalse(predicate)) return evaluate(intImm(0));
    bool changed = false;
    std::vector<PrimExpr> values = visitExprs(op->iterValues, &changed);
    Stmt block;
    if (isConstTrue(predicate)) {
      block = visitStmt(op->block);
    } else {
      arith::Analyzer::ConstraintScope scope(analyzer_, predicate);
      block = visitStmt(op->block);
    }
    if (!changed && predicate == op->predicate && block == op->block) return self;
    return blockRealize(std::move(values), predicate,
                        std::static_pointer_cast<const BlockNode>(block));
  }

  // A branch proven dead leaves `Evaluate(0)`; inside a sequence it is simply dropped.
  Stmt visitSeqStmt(const SeqStmtNode* op, const Stmt& self) override {
    Stmt visited = IRMutator::visitSeqStmt(op, self);
    const auto* sq = visited->as<SeqStmtNode>();
    if (!sq) return visited;
    std::vector<Stmt> kept;
    for (const Stmt& x : sq->seq)
      if (!isNoOpEvaluate(x)) kept.push_back(x);
    if (kept.size() == sq->seq.size()) return visited;
    return kept.empty() ? evaluate(intImm(0)) : seq(std::move(kept));
  }

  Stmt visitOtherStmt(const Stmt& s) override {
    const auto* op = s->as<IfThenElseNode>();
    if (!op) return IRMutator::visitOtherStmt(s);
    PrimExpr cond = visitExpr(op->condition);
    if (isConstTrue(cond)) return visitStmt(op->thenCase);
    if (isConstFalse(cond)) return op->elseCase ? visitStmt(op->elseCase) : evaluate(intImm(0));
    Stmt thenCase, elseCase;
    {
      arith::Analyzer::ConstraintScope scope(analyzer_, cond);
      thenCase = visitStmt(op->thenCase);
    }
    if (op->elseCase) {
      arith::Analyzer::ConstraintScope scope(analyzer_, logicalNot(cond));
      elseCase = visitStmt(op->elseCase);
    }
    if (cond == op->condition && thenCase == op->thenCase && elseCase == op->elseCase) return s;
    return ifThenElse(cond, thenCase, elseCase);
  }

 private:
  // The analyzer's domain: scalar integer and boolean expressions.
  static bool isNoOpEvaluate(const Stmt& s) {
    const auto* e = s->as<EvaluateNode>();
    return e && e->value->kind == ExprKind::kIntImm;
  }

  static bool isIndexLike(const PrimExpr& e) {
    return e->dtype.lanes() == 1 && (e->dtype.isInteger() || e->dtype.isBool());
  }

  arith::Analyzer analyzer_;
};

}  // namespace

Stmt simplifyStmt(const Stmt& s) {
  StmtSimplifier simplifier;
  return simplifier.visitStmt(s);
}

PrimFunc simplify(const PrimFunc& func) {
  return withBody(func, simplifyStmt(func->body));
}

}  // namespace tessera::tir::transform
