// EliminateCommonSubexpr (TVM's eliminate_common_subexpr.cc): reuses an earlier op call when a
// later one calls the same op with equal attrs on equivalent arguments, and merges projections of
// the same tuple. Stateful ops and calls an optional `fskip` selects are never merged.
#include <unordered_map>

#include "relay/op_registry.h"
#include "relay/transform/passes.h"
#include "relay/visit.h"
#include "support/hash.h"

namespace tessera::relay {
namespace {

bool isScalarConstant(const Expr& e) {
  const auto* c = e->as<ConstantNode>();
  return c && c->hasData() && c->data.ndim() == 0;
}

/// TVM's IsEquivalent: the same node, equal scalar constants, or tuples of equivalent fields.
/// Iterative over tuple nesting (an explicit stack of pairs still to compare).
bool equivalent(const Expr& a, const Expr& b) {
  std::vector<std::pair<const Expr*, const Expr*>> pending{{&a, &b}};
  while (!pending.empty()) {
    auto [x, y] = pending.back();
    pending.pop_back();
    if (*x == *y) continue;
    if (isScalarConstant(*x) && isScalarConstant(*y)) {
      if (!(*x)->as<ConstantNode>()->data.bitwiseEqual((*y)->as<ConstantNode>()->data))
        return false;
      continue;
    }
    const auto* tx = (*x)->as<TupleNode>();
    const auto* ty = (*y)->as<TupleNode>();
    if (!tx || !ty || tx->fields.size() != ty->fields.size()) return false;
    for (size_t i = 0; i < tx->fields.size(); ++i)
      pending.emplace_back(&tx->fields[i], &ty->fields[i]);
  }
  return true;
}

/// A hash consistent with `equivalent`: node identity, scalar constant bytes, or tuple structure.
uint64_t argumentKey(const Expr& root) {
  uint64_t h = 0x51ed;
  std::vector<const Expr*> pending{&root};
  while (!pending.empty()) {
    const Expr& e = *pending.back();
    pending.pop_back();
    if (isScalarConstant(e)) {
      const NDArray& d = e->as<ConstantNode>()->data;
      h = hashCombine(h, hashBytes(d.data(), d.nbytes()));
    } else if (const auto* t = e->as<TupleNode>()) {
      h = hashCombine(h, 0x7u + t->fields.size());
      for (const Expr& f : t->fields) pending.push_back(&f);
    } else {
      h = hashCombine(h, reinterpret_cast<uintptr_t>(e.get()));
    }
  }
  return h;
}

bool sameAttrs(const Attrs& a, const Attrs& b) {
  if (!a || !b) return a == b;
  return a->equals(*b);
}

bool sameCall(const CallNode& a, const CallNode& b) {
  if (a.args.size() != b.args.size() || !sameAttrs(a.attrs, b.attrs)) return false;
  for (size_t i = 0; i < a.args.size(); ++i)
    if (!equivalent(a.args[i], b.args[i])) return false;
  return true;
}

class Eliminator {
 public:
  explicit Eliminator(SkipFn skip) : skip_(std::move(skip)) {}

  Expr rewrite(const Expr& node, const std::vector<Expr>& children) {
    Expr rebuilt = withChildren(node, children);
    if (const auto* call = rebuilt->as<CallNode>()) return mergeCall(rebuilt, *call);
    if (const auto* get = rebuilt->as<TupleGetItemNode>()) {
      // Projections are keyed by (tuple node, index): equal keys mean the same value.
      auto& slot = projections_[{get->tuple.get(), get->index}];
      if (!slot) slot = rebuilt;
      return slot;
    }
    return rebuilt;
  }

 private:
  Expr mergeCall(const Expr& rebuilt, const CallNode& call) {
    const auto* op = call.op->as<OpNode>();
    if (!op || call.args.empty() || op->def->stateful || (skip_ && skip_(rebuilt))) return rebuilt;
    // Candidates are bucketed by op, attrs and argument identity, so the search is linear overall
    // (TVM compares against every earlier call of the op, which is quadratic on long graphs).
    uint64_t key =
        hashCombine(reinterpret_cast<uintptr_t>(op), call.attrs ? call.attrs->hash() : 0);
    for (const Expr& a : call.args) key = hashCombine(key, argumentKey(a));
    std::vector<Expr>& earlier = buckets_[key];
    for (const Expr& candidate : earlier)
      if (sameCall(*candidate->as<CallNode>(), call)) return candidate;
    earlier.push_back(rebuilt);
    return rebuilt;
  }

  struct PairHash {
    size_t operator()(const std::pair<const ExprNode*, int>& p) const {
      return std::hash<const void*>()(p.first) * 31 + static_cast<size_t>(p.second);
    }
  };
  SkipFn skip_;
  std::unordered_map<uint64_t, std::vector<Expr>> buckets_;
  std::unordered_map<std::pair<const ExprNode*, int>, Expr, PairHash> projections_;
};

}  // namespace

Expr eliminateCommonSubexpr(const Expr& e, SkipFn skip) {
  Eliminator eliminator(std::move(skip));
  return rewriteBottomUp(e, [&](const Expr& node, const std::vector<Expr>& children) {
    return eliminator.rewrite(node, children);
  });
}

Pass eliminateCommonSubexprPass(SkipFn skip) {
  return makeFunctionPass(PassInfo{"EliminateCommonSubexpr", 3, {"InferType"}},
                          [skip](const Function& fn, const IRModule&, PassContext&) {
                            return exprAs<FunctionNode>(eliminateCommonSubexpr(fn, skip));
                          });
}

Pass eliminateCommonSubexprPass() {
  return eliminateCommonSubexprPass(nullptr);
}

}  // namespace tessera::relay
