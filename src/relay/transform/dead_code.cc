// DeadCodeElimination (TVM's dead_code.cc): removes `let` bindings whose variable is never used and
// whose value is pure. Pure dataflow nodes need no pass: unreferenced nodes vanish with the graph.
#include <unordered_map>

#include "relay/op_registry.h"
#include "relay/transform/passes.h"
#include "relay/type_infer.h"
#include "relay/visit.h"

namespace tessera::relay {
namespace {

/// A value is impure when evaluating it may call a stateful op or a callee we cannot see into.
/// Function literals are values, so their bodies do not count.
bool isPure(const Expr& value) {
  bool pure = true;
  postOrderVisit(value, [&](const Expr& e) {
    const auto* call = e->as<CallNode>();
    if (!call) return;
    const auto* op = call->op->as<OpNode>();
    if (!op || op->def->stateful) pure = false;
  });
  return pure;
}

/// Number of references to each variable in `root`.
std::unordered_map<const ExprNode*, int> varUses(const Expr& root) {
  std::unordered_map<const ExprNode*, int> uses;
  postOrderVisit(root, [&](const Expr& e) {
    const std::vector<Expr> children = exprChildren(e);
    // A let's first child is the variable it binds: a definition, not a use.
    const size_t first = e->as<LetNode>() ? 1 : 0;
    for (size_t i = first; i < children.size(); ++i)
      if (children[i]->as<VarNode>()) ++uses[children[i].get()];
  });
  return uses;
}

/// One sweep; `changed` reports whether a binding was dropped (its value's uses then go away, so
/// the caller sweeps again).
Expr sweep(const Expr& root, bool ignoreImpurity, bool& changed) {
  const auto uses = varUses(root);
  return rewriteBottomUp(root, [&](const Expr& node, const std::vector<Expr>& children) {
    Expr rebuilt = withChildren(node, children);
    const auto* let = rebuilt->as<LetNode>();
    if (!let || uses.count(let->var.get())) return rebuilt;
    if (!ignoreImpurity && !isPure(let->value)) return rebuilt;
    changed = true;
    return let->body;
  });
}

}  // namespace

Expr eliminateDeadCode(const Expr& e, bool ignoreImpurity) {
  Expr result = e;
  for (bool changed = true; changed;) {
    changed = false;
    result = sweep(result, ignoreImpurity, changed);
  }
  return result;
}

Pass deadCodeEliminationPass() {
  return makeModulePass(PassInfo{"DeadCodeElimination", 1, {}},
                        [](const IRModule& m, PassContext&) {
                          IRModule result = m;
                          for (const auto& [name, fn] : m.functions())
                            result.add(name, exprAs<FunctionNode>(eliminateDeadCode(fn, false)));
                          return inferTypes(result);
                        });
}

}  // namespace tessera::relay
