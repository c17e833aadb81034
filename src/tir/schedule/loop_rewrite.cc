// Binding simplification after split/fuse: TVM re-derives bindings through iterator-map analysis
// so that `(i_0 * 10 + i_1)` prints without redundant terms; the arith Analyzer's canonical
// simplification over the loop domains gives the same printed forms for affine bindings.
#include "tir/schedule/loop_rewrite.h"

#include "tir/functor.h"

namespace tessera::tir {

void bindLoopDomains(arith::Analyzer& analyzer, const std::vector<For>& loops,
                     bool preserveUnitIters) {
  for (const For& f : loops) {
    if (preserveUnitIters && isOne(f->extent)) continue;
    analyzer.bind(f->loopVar, Range{f->min, f->extent});
  }
}

namespace {

// Rewrites only realizes outside nested blocks: a nested block's bindings cannot mention the
// outer loops (block isolation), so they never change.
class BindingSimplifier : public IRMutator {
 public:
  BindingSimplifier(arith::Analyzer& analyzer, PrimExpr extra, bool preserveUnitIters)
      : analyzer_(analyzer), extra_(std::move(extra)), preserveUnitIters_(preserveUnitIters) {}

 protected:
  Stmt visitFor(const ForNode* op, const Stmt& self) override {
    if (!preserveUnitIters_ || !isOne(op->extent)) {
      analyzer_.bind(op->loopVar, Range{op->min, op->extent});
    }
    return IRMutator::visitFor(op, self);
  }
  Stmt visitBlockRealize(const BlockRealizeNode* op, const Stmt& self) override {
    std::vector<PrimExpr> values;
    for (const PrimExpr& v : op->iterValues) values.push_back(analyzer_.simplify(v));
    PrimExpr pred = op->predicate;
    if (extra_) pred = isOne(pred) ? extra_ : logicalAnd(extra_, pred);
    pred = analyzer_.simplify(pred);
    return blockRealize(std::move(values), pred, op->block);
  }

 private:
  arith::Analyzer& analyzer_;
  PrimExpr extra_;
  bool preserveUnitIters_;
};

}  // namespace

Stmt simplifyBindings(const Stmt& body, arith::Analyzer& analyzer, bool preserveUnitIters,
                      const PrimExpr& extraPredicate) {
  return BindingSimplifier(analyzer, extraPredicate, preserveUnitIters).visitStmt(body);
}

}  // namespace tessera::tir
