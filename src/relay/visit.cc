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

namespace {
// Writes a new child into a slot of a copied node; a slot typed Var (a let variable, a parameter)
// takes only a variable.
void setChild(Expr& slot, const Expr& child) {
  slot = child;
}
void setChild(Var& slot, const Expr& child) {
  slot = exprAs<VarNode>(child);
  TS_CHECK(slot) << "a variable (let-bound or parameter) rewritten to a non-variable";
}
}  // namespace

Expr withChildren(const Expr& node, const std::vector<Expr>& children) {
  return withExprNode(*node, [&](const auto& n) -> Expr {
    using Node = std::decay_t<decltype(n)>;
    if constexpr (!HasChildren<Node>) {
      TS_CHECK(children.empty()) << "withChildren: a leaf given children";
      return node;
    } else {
      size_t count = 0;
      bool same = true;
      Node::children(n, [&](const auto& old) {
        same = same && count < children.size() && old == children[count];
        ++count;
      });
      TS_CHECK(count == children.size())
          << "withChildren: " << children.size() << " children for a node with " << count;
      if (same) return node;
      auto copy = std::make_shared<Node>(n);
      size_t next = 0;
      Node::children(*copy, [&](auto& slot) { setChild(slot, children[next++]); });
      return copy;
    }
  });
}

namespace {

// `node`'s children as rewritten so far (every child precedes its parents in post order).
std::vector<Expr> rewrittenChildren(const Expr& node,
                                    const std::unordered_map<const ExprNode*, Expr>& memo) {
  std::vector<Expr> kids = exprChildren(node);
  for (Expr& k : kids) {
    if (!k) continue;
    auto it = memo.find(k.get());
    TS_CHECK(it != memo.end());
    k = it->second;
  }
  return kids;
}

bool canReachConstants(const ExprNode& node) {
  return node.kind != ExprKind::kVar && node.kind != ExprKind::kGlobalVar &&
         node.kind != ExprKind::kOp;
}

}  // namespace

Expr rewriteBottomUp(const Expr& root, const RewriteFn& rewrite) {
  std::unordered_map<const ExprNode*, Expr> memo;
  postOrderVisit(root, [&](const Expr& node) {
    memo[node.get()] = rewrite(node, rewrittenChildren(node, memo));
  });
  return memo.at(root.get());
}

Expr rewriteBottomUpOwned(Expr root, const RewriteFn& rewrite,
                          const std::function<void(const ConstantNode&)>& released) {
  if (!root) return root;
  const std::vector<Expr> order = postOrder(root);  // one reference to every node
  std::unordered_map<const ExprNode*, size_t> position;
  std::unordered_map<const ExprNode*, long> parents;  // f(x, x) counts twice, as references do
  for (size_t i = 0; i < order.size(); ++i) {
    position[order[i].get()] = i;
    for (const Expr& child : exprChildren(order[i]))
      if (child) ++parents[child.get()];
  }
  // The DAG is ours when every node that can lead to a constant is referenced only by its parents
  // and `order` (and the root also by the argument). Variables, globals and ops are shared with
  // the module and the registry; they lead nowhere.
  bool owned = true;
  for (const Expr& node : order) {
    const long expected = parents[node.get()] + 1 + (node == root ? 1 : 0);
    if (canReachConstants(*node) && node.use_count() != expected) {
      owned = false;
      break;
    }
  }
  std::unordered_map<const ExprNode*, Expr> memo;
  std::unordered_map<const ExprNode*, long> unbuiltParents = parents;
  // Children of a node whose rewrite kept it: the result still reaches them through the old node,
  // which their reference count cannot tell.
  std::unordered_set<const ExprNode*> keptByOldParent;
  for (const Expr& node : order) {
    std::vector<const ExprNode*> children;
    for (const Expr& k : exprChildren(node)) children.push_back(k.get());
    Expr result = rewrite(node, rewrittenChildren(node, memo));
    const bool kept = result.get() == node.get();
    memo[node.get()] = std::move(result);
    for (const ExprNode* child : children) {
      if (!child) continue;
      if (kept) keptByOldParent.insert(child);
      if (--unbuiltParents[child] > 0) continue;
      memo.erase(child);
      if (!owned || child->kind != ExprKind::kConstant || keptByOldParent.count(child)) continue;
      // Its old parents and `order` hold it; any further reference is the result's.
      if (order[position[child]].use_count() == parents[child] + 1)
        released(*static_cast<const ConstantNode*>(child));
    }
  }
  return memo.at(root.get());
}

Expr replaceNodes(const Expr& root, const std::unordered_map<const ExprNode*, Expr>& by) {
  return rewriteBottomUp(root, [&](const Expr& node, const std::vector<Expr>& children) {
    auto it = by.find(node.get());
    return it != by.end() ? it->second : withChildren(node, children);
  });
}

}  // namespace tessera::relay
