// Iterative DAG traversals over expressions. Every pass and analysis builds on these instead of
// recursing, so input depth never decides stack depth.
#pragma once

#include <functional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "relay/expr.h"

namespace tessera::relay {

/// Calls `fn` once per distinct node reachable from `root`, children before parents, children in
/// exprChildren order (callee, then arguments left to right).
void postOrderVisit(const Expr& root, const std::function<void(const Expr&)>& fn);

/// The reachable nodes in post order (each once).
std::vector<Expr> postOrder(const Expr& root);

/// Rebuilds a DAG bottom-up: `rewrite(node, newChildren)` returns the replacement for `node` given
/// its already-rewritten children (in exprChildren order). Unchanged children keep sharing: pass
/// `withChildren(node, newChildren)` to rebuild only when a child changed.
using RewriteFn = std::function<Expr(const Expr& node, const std::vector<Expr>& newChildren)>;
Expr rewriteBottomUp(const Expr& root, const RewriteFn& rewrite);

/// rewriteBottomUp for an expression handed over by value, for passes that replace large constants
/// (FoldConstant). Each rewritten node leaves the memo once its last parent is rebuilt, so
/// intermediate results die early. And when no one but `root` holds any node of the DAG (each
/// node's references are exactly its parents'), `released(constant)` is called for every old
/// constant the result no longer uses, as soon as its last parent is rebuilt: the caller drops its
/// tensor, and a pass that rewrites every weight holds each one once instead of the old and the
/// new sets together. Contract on `rewrite`: build the result from `newChildren` and new nodes,
/// returning `node` itself only when nothing changed (as withChildren does), never an old child.
Expr rewriteBottomUpOwned(Expr root, const RewriteFn& rewrite,
                          const std::function<void(const ConstantNode&)>& released);

/// `node` with its children replaced (returns `node` itself when every child is identical).
Expr withChildren(const Expr& node, const std::vector<Expr>& children);

/// `root` with every node that is a key of `by` replaced by its value (variables by values,
/// subexpressions by variables); the rest rebuilt only where something below changed.
Expr replaceNodes(const Expr& root, const std::unordered_map<const ExprNode*, Expr>& by);

}  // namespace tessera::relay
