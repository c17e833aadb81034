// EliminateCommonSubexpr (TVM's eliminate_common_subexpr.cc): reuses an earlier op call when a
// later one calls the same op with equal attrs on equivalent arguments, and merges projections of
// the same tuple. Stateful ops and calls an optional `fskip` selects are never merged.
#include <unordered_map>

#include "relay/op_registry.h"
#include "relay/transform/passes.h"
#include "relay/visit.h"

namespace tessera::relay {
namespace {

bool isScalarConstant(const Expr& e) {
  const auto* c = e->as<ConstantNode>();
  return c && c->hasData() && c->data.ndim() == 0;
}

/// TVM's IsEquivalent: the same node, equal scalar constants, or tuples of equivalent fields.
bool equivalent(const Expr& a, const Expr& b) {
  if (a == b) return true;
  if (isScalarConstant(a) && isScalarConstant(b))
    return a->as<ConstantNode>()->data.bitwiseEqual(b->as<ConstantNode>()->data);
  const auto* ta = a->as<TupleNode>();
  const auto* tb = b->as<TupleNode>();
  if (!ta || !tb || ta->fields.size() != tb->fields.size()) return false;
  for (size_t i = 0; i < ta->fields.size(); ++i)
    if (!equivalent(ta->fields[i], tb->fields[i])) return false;
  return true;
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
    std::vector<Expr>& earlier = byOp_[op];
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
  std::unordered_map<const OpNode*, std::vector<Expr>> byOp_;
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
