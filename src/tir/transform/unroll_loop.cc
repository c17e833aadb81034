// UnrollLoop (config `tir.UnrollLoop`): loops marked `unrolled` are always unrolled; a serial loop
// of constant extent is unrolled automatically when nothing inside it stays a loop, the nest of
// unrolled loops is at most autoMaxDepth deep, and extent * steps <= the auto_max_step in scope
// (`pragma_auto_unroll_max_step` overrides it) or extent <= autoMaxExtent. Explicit unrolling
// copies the body with the loop variable replaced by each value; otherwise the loop is only marked.
#include "tir/functor.h"
#include "tir/transform/pass_util.h"
#include "tir/transform/transform.h"

namespace tessera::tir::transform {

namespace {

class Unroller : public IRMutator {
 public:
  explicit Unroller(const UnrollOptions& options)
      : maxStep_(options.autoMaxStep), explicit_(options.explicitUnroll), options_(options) {}

  Stmt visitStmt(const Stmt& s) override {
    if (!s) return s;
    Stmt out = IRMutator::visitStmt(s);
    // Leaves count one step each; loops and sequences set their own counts below.
    if (s->kind == StmtKind::kBufferStore || s->kind == StmtKind::kEvaluate) ++steps_;
    return out;
  }

 protected:
  Stmt visitOtherStmt(const Stmt& s) override {
    const auto* op = s->as<AttrStmtNode>();
    if (!op || (op->key != "pragma_auto_unroll_max_step" && op->key != "pragma_unroll_explicit"))
      return IRMutator::visitOtherStmt(s);
    // The pragma configures this pass for its body and is consumed here.
    const int64_t* value = asConstInt(op->value);
    int64_t savedStep = maxStep_;
    bool savedExplicit = explicit_;
    if (value && op->key == "pragma_auto_unroll_max_step") maxStep_ = *value;
    if (value && op->key == "pragma_unroll_explicit") explicit_ = *value != 0;
    Stmt body = visitStmt(op->body);
    maxStep_ = savedStep;
    explicit_ = savedExplicit;
    return body;
  }

  // steps_, depth_ and loopInside_ describe the statements visited so far at the current level;
  // a loop saves them, measures its body from zero, decides, and folds its own count back in.
  Stmt visitFor(const ForNode* op, const Stmt& self) override {
    int64_t outerSteps = steps_;
    int outerDepth = depth_;
    bool outerLoopInside = loopInside_;
    steps_ = 0;
    depth_ = 0;
    loopInside_ = false;
    Stmt visited = IRMutator::visitFor(op, self);
    const auto* loop = visited->as<ForNode>();
    const int64_t* extent = asConstInt(loop->extent);
    int64_t bodySteps = steps_;
    bool unroll = false;
    if (extent && loop->forKind == ForKind::kUnrolled) {
      unroll = true;
    } else if (extent && loop->forKind == ForKind::kSerial && !loopInside_ &&
               depth_ + 1 <= options_.autoMaxDepth) {
      unroll = (*extent) * bodySteps <= maxStep_ || *extent <= options_.autoMaxExtent;
    }
    Stmt result = visited;
    if (unroll) {
      result = explicit_ ? unrollExplicitly(loop, *extent) : markUnrolled(loop);
      steps_ = outerSteps + (*extent) * bodySteps;
      depth_ = std::max(outerDepth, depth_ + 1);
      loopInside_ = outerLoopInside;
    } else {
      steps_ = outerSteps + bodySteps;
      depth_ = outerDepth;
      loopInside_ = true;  // the enclosing loops keep a loop inside them
    }
    return result;
  }

 private:
  static Stmt markUnrolled(const ForNode* loop) {
    auto n = std::make_shared<ForNode>(*loop);
    n->forKind = ForKind::kUnrolled;
    return n;
  }

  static Stmt unrollExplicitly(const ForNode* loop, int64_t extent) {
    std::vector<Stmt> copies;
    for (int64_t k = 0; k < extent; ++k) {
      PrimExpr value = add(loop->min, intImm(k, loop->min->dtype));
      copies.push_back(substitute(loop->body, {{loop->loopVar.get(), value}}));
    }
    if (copies.empty()) return evaluate(intImm(0));
    return seq(std::move(copies));
  }

  int64_t maxStep_;
  bool explicit_;
  const UnrollOptions& options_;
  int64_t steps_ = 0;
  int depth_ = 0;
  bool loopInside_ = false;
};

}  // namespace

PrimFunc unrollLoop(const PrimFunc& func, const UnrollOptions& options) {
  Unroller unroller(options);
  return withBody(func, unroller.visitStmt(func->body));
}

}  // namespace tessera::tir::transform
