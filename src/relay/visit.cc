#include "relay/visit.h"

#include "support/check.h"

namespace tessera::relay {

namespace {
// Explicit-stack post-order walk. A frame remembers how many of its children were pushed already.
struct Frame {
  Expr node;
  std::vector<Expr> children;
  size_t next = 0;
};
}  // namespace

void postOrderVisit(const Expr& root, const std::function<void(const Expr&)>& fn) {
  if (!root) return;
  std::unordered_set<const ExprNode*> visited;
  std::vector<Frame> stack;
  visited.insert(root.get());
  stack.push_back(Frame{root, exprChildren(root), 0});
  while (!stack.empty()) {
    Frame& top = stack.back();
    if (top.next < top.children.size()) {
      Expr child = top.children[top.next++];
      if (child && visited.insert(child.get()).second) {
        std::vector<Expr> grandChildren = exprChildren(child);
        stack.push_back(Frame{std::move(child), std::move(grandChildren), 0});
      }
      continue;
    }
    Expr done = std::move(top.node);
    stack.pop_back();
    fn(done);
  }
}

std::vector<Expr> postOrder(const Expr& root) {
  std::vector<Expr> out;
  postOrderVisit(root, [&](const Expr& e) { out.push_back(e); });
  return out;
}

Expr withChildren(const Expr& node, const std::vector<Expr>& children) {
  const std::vector<Expr> old = exprChildren(node);
  TS_CHECK(old.size() == children.size());
  bool same = true;
  for (size_t i = 0; i < old.size(); ++i) same = same && old[i] == children[i];
  if (same) return node;
  const Span& span = node->span;
  switch (node->kind) {
    case ExprKind::kVar:
    case ExprKind::kGlobalVar:
    case ExprKind::kConstant:
    case ExprKind::kOp:
      return node;
    case ExprKind::kCall: {
      const auto* c = node->as<CallNode>();
      return makeCall(children[0], std::vector<Expr>(children.begin() + 1, children.end()),
                      c->attrs, span);
    }
    case ExprKind::kTuple:
      return makeTuple(children, span);
    case ExprKind::kTupleGetItem:
      return makeTupleGetItem(children[0], node->as<TupleGetItemNode>()->index, span);
    case ExprKind::kLet: {
      auto var = exprAs<VarNode>(children[0]);
      TS_CHECK(var) << "let variable rewritten to a non-variable";
      return makeLet(var, children[1], children[2], span);
    }
    case ExprKind::kIf:
      return makeIf(children[0], children[1], children[2], span);
    case ExprKind::kFunction: {
      const auto* f = node->as<FunctionNode>();
      std::vector<Var> params;
      for (size_t i = 0; i + 1 < children.size(); ++i) {
        auto p = exprAs<VarNode>(children[i]);
        TS_CHECK(p) << "function parameter rewritten to a non-variable";
        params.push_back(p);
      }
      return makeFunction(std::move(params), children.back(), f->retType, f->attrs, span);
    }
  }
  return node;
}

Expr rewriteBottomUp(const Expr& root, const RewriteFn& rewrite) {
  std::unordered_map<const ExprNode*, Expr> memo;
  postOrderVisit(root, [&](const Expr& node) {
    std::vector<Expr> kids = exprChildren(node);
    for (Expr& k : kids) {
      if (!k) continue;
      auto it = memo.find(k.get());
      TS_CHECK(it != memo.end());
      k = it->second;
    }
    memo[node.get()] = rewrite(node, kids);
  });
  return memo.at(root.get());
}

Expr replaceNodes(const Expr& root, const std::unordered_map<const ExprNode*, Expr>& by) {
  return rewriteBottomUp(root, [&](const Expr& node, const std::vector<Expr>& children) {
    auto it = by.find(node.get());
    return it != by.end() ? it->second : withChildren(node, children);
  });
}

}  // namespace tessera::relay
