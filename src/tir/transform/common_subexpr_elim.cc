// CommonSubexprElimTIR: within one store, an index computation that appears several times
// (`(i * 64 + j) * 4` in both a load and the store index) is computed once into a `cse_var_N`
// let variable around the store. Only scalar arithmetic without memory reads or calls is shared:
// such an expression has the same value wherever it appears in the statement and cannot fault.
#include <string>

#include "tir/functor.h"
#include "tir/transform/pass_util.h"
#include "tir/transform/transform.h"

namespace tessera::tir::transform {

namespace {

constexpr size_t kMaxCandidates = 512;

int exprSize(const PrimExpr& e) {
  int n = 0;
  postOrderVisitExpr(e, [&](const PrimExpr&) { ++n; });
  return n;
}

bool isEligible(const PrimExpr& e) {
  if (e->dtype.lanes() != 1) return false;
  if (e->kind != ExprKind::kBinary && e->kind != ExprKind::kCast) return false;
  bool ok = true;
  postOrderVisitExpr(e, [&](const PrimExpr& x) {
    if (x->kind == ExprKind::kBufferLoad || x->kind == ExprKind::kCall ||
        x->kind == ExprKind::kLet || x->kind == ExprKind::kReduce)
      ok = false;
  });
  return ok;
}

// Replaces every occurrence (structurally equal) of `target` by `replacement`.
class Replacer : public IRMutator {
 public:
  Replacer(PrimExpr target, PrimExpr replacement)
      : target_(std::move(target)), replacement_(std::move(replacement)) {}
  PrimExpr visitExpr(const PrimExpr& e) override {
    if (e && e->kind == target_->kind && deepEqual(e, target_)) return replacement_;
    return IRMutator::visitExpr(e);
  }

 private:
  PrimExpr target_;
  PrimExpr replacement_;
};

class Eliminator : public IRMutator {
 protected:
  Stmt visitBufferStore(const BufferStoreNode* op, const Stmt& self) override {
    Stmt store = self;
    std::vector<std::pair<Var, PrimExpr>> bindings;
    // Repeatedly share the largest repeated expression; sharing it removes its repeated parts.
    while (PrimExpr common = largestRepeated(store)) {
      Var v = makeVar("cse_var_" + std::to_string(++counter_), common->dtype);
      Replacer replacer(common, v);
      store = replacer.visitStmt(store);
      bindings.emplace_back(v, common);
    }
    // A later binding may use an earlier variable, never the reverse: bind in creation order.
    for (auto it = bindings.rbegin(); it != bindings.rend(); ++it)
      store = letStmt(it->first, it->second, store);
    return store;
  }

 private:
  static PrimExpr largestRepeated(const Stmt& store) {
    std::vector<PrimExpr> nodes;
    postOrderVisitExprs(store, [&](const PrimExpr& e) {
      if (isEligible(e)) nodes.push_back(e);
    });
    // The search is quadratic in the statement's size; huge generated statements are left alone.
    if (nodes.size() > kMaxCandidates) return nullptr;
    PrimExpr best;
    int bestSize = 0;
    for (size_t i = 0; i < nodes.size(); ++i) {
      int size = exprSize(nodes[i]);
      if (size <= bestSize) continue;
      for (size_t j = i + 1; j < nodes.size(); ++j) {
        if (nodes[j] != nodes[i] && !deepEqual(nodes[i], nodes[j])) continue;
        best = nodes[i];
        bestSize = size;
        break;
      }
    }
    return best;
  }

  int counter_ = 0;
};

}  // namespace

PrimFunc commonSubexprElim(const PrimFunc& func) {
  Eliminator eliminator;
  return withBody(func, eliminator.visitStmt(func->body));
}

}  // namespace tessera::tir::transform
