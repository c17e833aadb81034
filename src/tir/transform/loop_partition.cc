// LoopPartition: a split with a factor that does not divide the extent leaves a condition
// (`if i_0 * 8 + i_1 < 60`) in every iteration although only the last outer iteration needs it.
// For a loop of constant bounds, the values of its variable for which such a condition provably
// holds (for every value of the loops inside) form the main loop, where the `if` is dropped; the
// values before and after form boundary loops that keep it. Non-aggressive: only `if` statements
// on bounds are considered, and only serial or parallel loops of at most kMaxScan iterations are
// examined value by value.
#include <optional>

#include "tir/functor.h"
#include "tir/transform/pass_util.h"
#include "tir/transform/transform.h"

namespace tessera::tir::transform {

namespace {

constexpr int64_t kMaxScan = 256;

PrimExpr unwrapLikely(const PrimExpr& e) {
  const auto* c = e->as<CallNode>();
  return c && c->op == "tir.likely" && c->args.size() == 1 ? c->args[0] : e;
}

// Bounds (`<`, `<=`, `>`, `>=`, possibly under `likely`) are what splits leave; an equality such as
// a reduction's `k == 0` init guard holds on one iteration only and is not worth a partition.
bool isBoundCondition(const PrimExpr& cond) {
  const auto* b = unwrapLikely(cond)->as<BinaryNode>();
  return b && (b->op == BinaryOp::kLT || b->op == BinaryOp::kLE || b->op == BinaryOp::kGT ||
               b->op == BinaryOp::kGE);
}

// The conjuncts of `a and b and ...` (the condition itself when it is not a conjunction).
void conjunctsOf(const PrimExpr& cond, std::vector<PrimExpr>& out) {
  std::vector<PrimExpr> stack{cond};  // right operands first out: conjuncts in source order
  while (!stack.empty()) {
    PrimExpr e = stack.back();
    stack.pop_back();
    const auto* b = e->as<BinaryNode>();
    if (!b || b->op != BinaryOp::kAnd) {
      out.push_back(e);
      continue;
    }
    stack.push_back(b->b);
    stack.push_back(b->a);
  }
}

// A bound that a partition may prove: the whole condition of an `if`, or one conjunct of it
// (the predicate of a block split on two axes: `i < 197 and j < 197`).
struct Candidate {
  PrimExpr bound, whole;
};

// Drops the proven bound from the `if` statements whose condition is `whole`: the then-branch
// when it was the whole condition, else an `if` on the other conjuncts.
class ConditionRemover : public IRMutator {
 public:
  explicit ConditionRemover(Candidate c) : c_(std::move(c)) {}

 protected:
  Stmt visitOtherStmt(const Stmt& s) override {
    const auto* op = s->as<IfThenElseNode>();
    if (!op || !deepEqual(op->condition, c_.whole)) return IRMutator::visitOtherStmt(s);
    std::vector<PrimExpr> conjuncts;
    conjunctsOf(c_.whole, conjuncts);
    PrimExpr rest;
    for (const PrimExpr& x : conjuncts)
      if (!deepEqual(x, c_.bound)) rest = rest ? logicalAnd(rest, x) : x;
    if (!rest) return visitStmt(op->thenCase);
    return ifThenElse(rest, visitStmt(op->thenCase),
                      op->elseCase ? visitStmt(op->elseCase) : Stmt());
  }

 private:
  Candidate c_;
};

class Partitioner : public IRMutator {
 protected:
  Stmt visitFor(const ForNode* op, const Stmt& self) override {
    analyzer_.bind(op->loopVar, Range{op->min, op->extent});
    const int64_t* min = asConstInt(op->min);
    const int64_t* extent = asConstInt(op->extent);
    bool kindOk = op->forKind == ForKind::kSerial || op->forKind == ForKind::kParallel;
    if (!kindOk || !min || !extent || *extent > kMaxScan || *extent < 2)
      return IRMutator::visitFor(op, self);
    bindInnerLoops(op->body);
    for (const Candidate& cond : candidateConditions(op->body)) {
      std::optional<std::pair<int64_t, int64_t>> range = provenRange(op, *min, *extent, cond.bound);
      if (range) return partition(op, *min, *min + *extent, *range, cond);
    }
    return IRMutator::visitFor(op, self);
  }

 private:
  void bindInnerLoops(const Stmt& body) {
    preOrderVisit(body, [&](const Stmt& s) {
      if (const auto* f = s->as<ForNode>()) analyzer_.bind(f->loopVar, Range{f->min, f->extent});
      return true;
    });
  }

  static std::vector<Candidate> candidateConditions(const Stmt& body) {
    std::vector<Candidate> conds;
    preOrderVisit(body, [&](const Stmt& s) {
      const auto* i = s->as<IfThenElseNode>();
      if (!i) return true;
      std::vector<PrimExpr> conjuncts;
      conjunctsOf(i->condition, conjuncts);
      for (const PrimExpr& c : conjuncts)
        if (isBoundCondition(c)) conds.push_back({c, i->condition});
      return true;
    });
    return conds;
  }

  // The sub-range [lo, hi) of loop values where `cond` provably holds, when it is one contiguous,
  // non-empty range that is not the whole loop (Simplify handles always-true conditions).
  std::optional<std::pair<int64_t, int64_t>> provenRange(const ForNode* op, int64_t min,
                                                         int64_t extent, const PrimExpr& cond) {
    PrimExpr test = unwrapLikely(cond);
    if (!usesVar(test, op->loopVar.get())) return std::nullopt;
    int64_t lo = -1, hi = -1;
    for (int64_t k = min; k < min + extent; ++k) {
      bool proven = analyzer_.canProve(
          substitute(test, {{op->loopVar.get(), intImm(k, op->loopVar->dtype)}}));
      if (proven && lo < 0) lo = k;
      if (proven) {
        if (hi >= 0 && hi != k) return std::nullopt;  // two separate ranges
        hi = k + 1;
      }
    }
    if (lo < 0 || (lo == min && hi == min + extent)) return std::nullopt;
    return std::make_pair(lo, hi);
  }

  // A copy of `op` over [begin, end) with a fresh loop variable.
  static Stmt subLoop(const ForNode* op, int64_t begin, int64_t end, Stmt body) {
    Var v = makeVar(op->loopVar->name, op->loopVar->dtype);
    auto n = std::make_shared<ForNode>(*op);
    n->loopVar = v;
    n->min = intImm(begin, op->min->dtype);
    n->extent = intImm(end - begin, op->extent->dtype);
    n->body = substitute(body, {{op->loopVar.get(), PrimExpr(v)}});
    return n;
  }

  Stmt partition(const ForNode* op, int64_t begin, int64_t end, std::pair<int64_t, int64_t> range,
                 const Candidate& cond) {
    std::vector<Stmt> parts;
    if (range.first > begin) parts.push_back(visitBoundary(op, begin, range.first));
    ConditionRemover remover(cond);
    Stmt main = subLoop(op, range.first, range.second, remover.visitStmt(op->body));
    parts.push_back(visitStmt(main));
    if (range.second < end) parts.push_back(visitBoundary(op, range.second, end));
    return seq(std::move(parts));
  }

  // A boundary range keeps the condition; its inner loops may still partition. A range of one
  // value needs no loop: the body with the variable replaced.
  Stmt visitBoundary(const ForNode* op, int64_t begin, int64_t end) {
    if (end - begin == 1)
      return visitStmt(simplifyStmt(
          substitute(op->body, {{op->loopVar.get(), intImm(begin, op->loopVar->dtype)}})));
    Stmt loop = subLoop(op, begin, end, op->body);
    const auto* f = loop->as<ForNode>();
    analyzer_.bind(f->loopVar, Range{f->min, f->extent});
    auto n = std::make_shared<ForNode>(*f);
    n->body = visitStmt(f->body);
    return n;
  }

  arith::Analyzer analyzer_;
};

}  // namespace

PrimFunc loopPartition(const PrimFunc& func) {
  Partitioner partitioner;
  return withBody(func, partitioner.visitStmt(func->body));
}

}  // namespace tessera::tir::transform
