// LoopPartition: a split with a factor that does not divide the extent leaves a condition
// (`if i_0 * 8 + i_1 < 60`) in every iteration although only the last outer iteration needs it.
// For a loop of constant bounds, the values of its variable for which such a condition provably
// holds (for every value of the loops inside) form the main loop, where the `if` is dropped; the
// values before and after form boundary loops that keep it. Non-aggressive: only `if` statements
// on bounds are considered, and only serial or parallel loops of at most kMaxScan iterations are
// examined value by value.
#include <optional>
#include <unordered_map>

#include "tir/functor.h"
#include "tir/transform/pass_util.h"
#include "tir/transform/transform.h"

namespace tessera::tir::transform {

namespace {

constexpr int64_t kMaxScan = 256;

// Bounds (`<`, `<=`, `>`, `>=`, possibly under `likely`) are what splits leave; an equality such as
// a reduction's `k == 0` init guard holds on one iteration only and is not worth a partition.
bool isBoundCondition(const PrimExpr& cond) {
  const auto* b = unwrapLikely(cond)->as<BinaryNode>();
  return b && (b->op == BinaryOp::kLT || b->op == BinaryOp::kLE || b->op == BinaryOp::kGT ||
               b->op == BinaryOp::kGE);
}

// Drops the proven bound from every `if` below the loop that tests it: the then-branch when it
// was the whole condition, else an `if` on the other conjuncts. Every `if` testing the same
// expression (same variables) holds with it: the init and the update of a decomposed reduction,
// the epilogue of the same tile.
class ConditionRemover : public IRMutator {
 public:
  explicit ConditionRemover(PrimExpr bound) : bound_(std::move(bound)) {}

 protected:
  Stmt visitOtherStmt(const Stmt& s) override {
    const auto* op = s->as<IfThenElseNode>();
    if (!op) return IRMutator::visitOtherStmt(s);
    std::vector<PrimExpr> conjuncts;
    conjunctsOf(op->condition, conjuncts);
    PrimExpr rest;
    bool found = false;
    for (const PrimExpr& x : conjuncts) {
      if (deepEqual(x, bound_))
        found = true;
      else
        rest = rest ? logicalAnd(rest, x) : x;
    }
    if (!found) return IRMutator::visitOtherStmt(s);
    if (!rest) return visitStmt(op->thenCase);
    return ifThenElse(rest, visitStmt(op->thenCase),
                      op->elseCase ? visitStmt(op->elseCase) : Stmt());
  }

 private:
  PrimExpr bound_;
};

// Gives every allocation in a boundary copy of a loop body its own buffer variable (and the
// buffers declared on it new buffers): the copies then own their allocations. Sharing them,
// StorageRewrite hoisted one variable's allocations to nested scopes (the main part's into its
// parallel loop, a boundary's around that loop), binding the variable twice.
class FreshAllocations : public IRMutator {
 protected:
  Buffer visitBuffer(const Buffer& b) override {
    if (auto it = buffers_.find(b.get()); it != buffers_.end()) return it->second;
    auto v = vars_.find(b->data.get());
    if (v == vars_.end()) return b;
    auto n = std::make_shared<BufferNode>(*b);
    n->data = v->second;
    Buffer fresh(n);
    buffers_[b.get()] = fresh;
    return fresh;
  }

  PrimExpr visitVar(const VarNode* op, const PrimExpr& self) override {
    auto it = vars_.find(op);
    return it == vars_.end() ? self : PrimExpr(it->second);
  }

  Stmt visitOtherStmt(const Stmt& s) override {
    if (const auto* a = s->as<AllocateNode>()) {
      Var fresh = makeVar(a->bufferVar->name, a->bufferVar->dtype);
      vars_.emplace(a->bufferVar.get(), fresh);
      std::vector<PrimExpr> extents;
      for (const PrimExpr& e : a->extents) extents.push_back(visitExpr(e));
      return allocate(fresh, a->dtype, std::move(extents), a->scope, visitStmt(a->body));
    }
    if (const auto* d = s->as<DeclBufferNode>())
      return declBuffer(visitBuffer(d->buffer), visitStmt(d->body));
    return IRMutator::visitOtherStmt(s);
  }

 private:
  std::unordered_map<const VarNode*, Var> vars_;
  std::unordered_map<const BufferNode*, Buffer> buffers_;
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
    for (const PrimExpr& bound : candidateBounds(op->body)) {
      std::optional<std::pair<int64_t, int64_t>> range = provenRange(op, *min, *extent, bound);
      if (range) return partition(op, *min, *min + *extent, *range, bound);
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

  // The bounds a partition may prove: the whole condition of an `if`, or one conjunct of it (the
  // predicate of a block split on two axes: `i < 197 and j < 197`).
  static std::vector<PrimExpr> candidateBounds(const Stmt& body) {
    std::vector<PrimExpr> conds;
    preOrderVisit(body, [&](const Stmt& s) {
      const auto* i = s->as<IfThenElseNode>();
      if (!i) return true;
      std::vector<PrimExpr> conjuncts;
      conjunctsOf(i->condition, conjuncts);
      for (const PrimExpr& c : conjuncts)
        if (isBoundCondition(c)) conds.push_back(c);
      return true;
    });
    return conds;
  }

  // The sub-range [lo, hi) of loop values where `cond` provably holds, when it is one contiguous,
  // non-empty range. The whole loop is a range too: a bound that an outer partition made true
  // everywhere (the main tiles of a split on two axes) is dropped here, before VectorizeLoop,
  // which would otherwise see a per-lane condition and give up.
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
    if (lo < 0) return std::nullopt;
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
                 const PrimExpr& bound) {
    std::vector<Stmt> parts;
    if (range.first > begin) parts.push_back(visitBoundary(op, begin, range.first));
    ConditionRemover remover(bound);
    Stmt main = subLoop(op, range.first, range.second, remover.visitStmt(op->body));
    parts.push_back(visitStmt(main));
    if (range.second < end) parts.push_back(visitBoundary(op, range.second, end));
    return seq(std::move(parts));
  }

  // A boundary range keeps the condition; its inner loops may still partition. A range of one
  // value needs no loop: the body with the variable replaced.
  Stmt visitBoundary(const ForNode* op, int64_t begin, int64_t end) {
    const Stmt body = FreshAllocations().visitStmt(op->body);
    if (end - begin == 1)
      return visitStmt(
          simplifyStmt(substitute(body, {{op->loopVar.get(), intImm(begin, op->loopVar->dtype)}})));
    Stmt loop = subLoop(op, begin, end, body);
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
