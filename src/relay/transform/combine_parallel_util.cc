// The grouping and fixpoint driver of the CombineParallel* passes (see combine_parallel_util.h).
#include "relay/transform/combine_parallel_util.h"

#include <algorithm>
#include <unordered_set>

#include "relay/type_infer.h"
#include "relay/visit.h"

namespace tessera::relay {
namespace {

bool isCallOf(const Expr& e, const std::string& opName) {
  const auto* call = e->as<CallNode>();
  const auto* op = call ? call->op->as<OpNode>() : nullptr;
  return op && op->name == opName;
}

/// The first group (data nodes in post order, calls in post order) with `minBranches` members.
std::vector<const CallNode*> findGroup(const std::vector<Expr>& order, const std::string& opName,
                                       size_t minBranches, const CombineSupportedFn& supported,
                                       const CombineCompatibleFn& compatible) {
  std::unordered_map<const ExprNode*, std::vector<const CallNode*>> callsOf;
  std::vector<const ExprNode*> dataOrder;
  for (const Expr& e : order) {
    if (!isCallOf(e, opName) || !supported(*e->as<CallNode>())) continue;
    const auto* call = e->as<CallNode>();
    auto& list = callsOf[call->args[0].get()];
    if (list.empty()) dataOrder.push_back(call->args[0].get());
    list.push_back(call);
  }
  for (const ExprNode* data : dataOrder) {
    std::vector<const CallNode*> pending = callsOf[data];
    while (!pending.empty()) {
      std::vector<const CallNode*> group, rest;
      for (const CallNode* c : pending)
        (compatible(*pending.front(), *c) ? group : rest).push_back(c);
      if (group.size() >= minBranches) return group;
      pending = std::move(rest);
    }
  }
  return {};
}

/// An argument computed from one of the branches would make the rewrite cyclic.
bool argsIndependent(const std::vector<const CallNode*>& group) {
  std::unordered_set<const ExprNode*> branches(group.begin(), group.end());
  for (const CallNode* c : group)
    for (size_t i = 1; i < c->args.size(); ++i)
      for (const Expr& e : postOrder(c->args[i]))
        if (branches.count(e.get())) return false;
  return true;
}

}  // namespace

Function combineParallelOps(const Function& fn, const std::string& opName, int minNumBranches,
                            const CombineSupportedFn& supported,
                            const CombineCompatibleFn& compatible, const CombineGroupFn& combine) {
  // A group of one has nothing to combine, and combining it again and again would not terminate.
  const size_t minBranches = static_cast<size_t>(std::max(minNumBranches, 2));
  Function current = fn->body->checkedType ? fn : exprAs<FunctionNode>(inferExprTypes(fn));
  // One group per round, on a freshly typed function: each round removes at least one call.
  while (true) {
    const std::vector<const CallNode*> group =
        findGroup(postOrder(current->body), opName, minBranches, supported, compatible);
    if (group.empty() || !argsIndependent(group)) return current;
    std::vector<Expr> children(current->params.begin(), current->params.end());
    children.push_back(combine(current->body, group));
    current = exprAs<FunctionNode>(inferExprTypes(withChildren(current, children)));
  }
}

}  // namespace tessera::relay
