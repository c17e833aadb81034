// The partitioner: groups matches (outputs first, no overlap), outlines each into a function and
// rebuilds the graph with calls to them.
#include "relay/pattern/partition.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "relay/visit.h"

namespace tessera::relay {
namespace {

// Post order that does not enter nested functions: patterns partition one dataflow region, and
// the bodies of already-outlined composites must not be matched again.
std::vector<Expr> dataflowPostOrder(const Expr& root) {
  std::vector<Expr> order;
  std::unordered_set<const ExprNode*> seen;
  std::vector<std::pair<Expr, bool>> stack = {{root, false}};
  while (!stack.empty()) {
    auto [e, expanded] = stack.back();
    stack.pop_back();
    if (expanded) {
      order.push_back(e);
      continue;
    }
    if (!seen.insert(e.get()).second) continue;
    stack.push_back({e, true});
    if (e->kind == ExprKind::kFunction && e != root) continue;
    std::vector<Expr> children = exprChildren(e);
    for (auto it = children.rbegin(); it != children.rend(); ++it) {
      if (!seen.count(it->get())) stack.push_back({*it, false});
    }
  }
  return order;
}

bool isLeafPattern(PatternKind kind) {
  return kind == PatternKind::kWildcard || kind == PatternKind::kVar ||
         kind == PatternKind::kConstant || kind == PatternKind::kExpr;
}

bool isBodyPattern(PatternKind kind) {
  return kind == PatternKind::kCall || kind == PatternKind::kTuple ||
         kind == PatternKind::kTupleGetItem;
}

// The pattern's nodes in post order (children first), each once.
std::vector<const PatternNode*> patternPostOrder(const Pattern& pattern) {
  std::vector<const PatternNode*> order;
  std::unordered_set<const PatternNode*> seen;
  std::vector<std::pair<const PatternNode*, bool>> stack = {{pattern.node().get(), false}};
  while (!stack.empty()) {
    auto [p, expanded] = stack.back();
    stack.pop_back();
    if (expanded) {
      order.push_back(p);
      continue;
    }
    if (!seen.insert(p).second) continue;
    stack.push_back({p, true});
    for (auto it = p->children.rbegin(); it != p->children.rend(); ++it) {
      stack.push_back({it->get(), false});
    }
  }
  return order;
}

// Constants stay inside the function when the pattern asked for a constant (TVM's EmbedConst).
bool embedsConstant(const PatternNode* p, const Expr& e) {
  if (e->kind != ExprKind::kConstant) return false;
  return p->kind == PatternKind::kConstant || p->kind == PatternKind::kExpr;
}

std::string partitionName(const Expr& body) {
  std::string name;
  for (const Expr& e : dataflowPostOrder(body)) {
    if (const auto* call = e->as<CallNode>()) {
      const auto* op = call->op->as<OpNode>();
      name += op ? op->name + "_" : std::string("Call_");
    } else if (e->kind == ExprKind::kTuple) {
      name += "Tuple_";
    } else if (const auto* item = e->as<TupleGetItemNode>()) {
      name += "TupleGetItem" + std::to_string(item->index) + "_";
    }
  }
  return name;
}

struct Group {
  Function function;
  std::vector<Expr> args;  ///< original expressions, rewritten when the call is built
};

}  // namespace

Expr partition(const Pattern& pattern, const Expr& e, const DictAttrs& attrs,
               const PartitionCheck& check) {
  const std::vector<Expr> order = dataflowPostOrder(e);
  std::unordered_map<const ExprNode*, size_t> position;
  std::unordered_map<const ExprNode*, std::vector<const ExprNode*>> users;
  for (size_t i = 0; i < order.size(); ++i) {
    position[order[i].get()] = i;
    if (order[i]->kind == ExprKind::kFunction && order[i] != e) continue;
    for (const Expr& c : exprChildren(order[i])) users[c.get()].push_back(order[i].get());
  }
  const std::vector<const PatternNode*> patternOrder = patternPostOrder(pattern);
  PatternMatcher matcher(e);
  std::unordered_set<const ExprNode*> claimed;
  std::unordered_map<const ExprNode*, Group> groups;
  int groupNumber = 0;
  // Outputs first, as TVM's PatternGrouper walks the graph in reverse topological order.
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const Expr& root = *it;
    if (claimed.count(root.get()) || root->kind == ExprKind::kOp) continue;
    std::optional<PatternMatch> m = matcher.match(pattern, root);
    if (!m) continue;
    std::unordered_set<const ExprNode*> inside;
    for (const auto& [p, matched] : m->captures) {
      if (isBodyPattern(p->kind)) inside.insert(matched.get());
    }
    for (const Expr& n : m->pathNodes) inside.insert(n.get());
    auto overlapsOrEscapes = [&](const ExprNode* n) {
      if (claimed.count(n)) return true;
      if (n == root.get()) return false;
      const auto& us = users[n];
      return std::any_of(us.begin(), us.end(), [&](const ExprNode* u) { return !inside.count(u); });
    };
    if (std::any_of(inside.begin(), inside.end(), overlapsOrEscapes)) continue;
    // Parameters: leaf matches in pattern post order, each expression once.
    std::unordered_map<const ExprNode*, Expr> params;
    std::vector<Var> paramList;
    std::vector<Expr> args;
    for (const PatternNode* p : patternOrder) {
      auto found = m->captures.find(p);
      if (!isLeafPattern(p->kind) || found == m->captures.end()) continue;
      const Expr& leaf = found->second;
      if (inside.count(leaf.get()) || params.count(leaf.get()) || embedsConstant(p, leaf)) continue;
      Var v = makeVar(
          "FunctionVar_" + std::to_string(groupNumber) + "_" + std::to_string(paramList.size()),
          leaf->checkedType);
      params[leaf.get()] = v;
      paramList.push_back(v);
      args.push_back(leaf);
    }
    // The body: the inside nodes rebuilt in graph post order over the parameters.
    std::vector<Expr> insideNodes;
    for (const ExprNode* n : inside) insideNodes.push_back(order[position.at(n)]);
    std::sort(insideNodes.begin(), insideNodes.end(), [&](const Expr& a, const Expr& b) {
      return position.at(a.get()) < position.at(b.get());
    });
    std::unordered_map<const ExprNode*, Expr> rebuilt;
    for (const Expr& n : insideNodes) {
      std::vector<Expr> children = exprChildren(n);
      for (Expr& c : children) {
        if (auto p = params.find(c.get()); p != params.end()) c = p->second;
        if (auto r = rebuilt.find(c.get()); r != rebuilt.end()) c = r->second;
      }
      rebuilt[n.get()] = withChildren(n, children);
    }
    const Expr body = rebuilt.at(root.get());
    if (check && !check(body)) continue;
    DictAttrs fnAttrs;
    fnAttrs.set("PartitionedFromPattern", AttrValue::string(partitionName(body)));
    for (const auto& [key, value] : attrs.entries()) fnAttrs.set(key, value);
    for (const ExprNode* n : inside) claimed.insert(n);
    groups[root.get()] = {makeFunction(paramList, body, nullptr, fnAttrs), std::move(args)};
    ++groupNumber;
  }
  if (groups.empty()) return e;
  std::unordered_map<const ExprNode*, Expr> rewritten;
  return rewriteBottomUp(e, [&](const Expr& node, const std::vector<Expr>& children) {
    Expr out = withChildren(node, children);
    if (auto g = groups.find(node.get()); g != groups.end()) {
      std::vector<Expr> callArgs;
      for (const Expr& a : g->second.args) {
        auto r = rewritten.find(a.get());
        callArgs.push_back(r == rewritten.end() ? a : r->second);
      }
      out = makeCall(g->second.function, std::move(callArgs), nullptr, node->span);
    }
    rewritten[node.get()] = out;
    return out;
  });
}

}  // namespace tessera::relay
