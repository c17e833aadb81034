// FuseOps' grouping (TVM's graph_partitioner, spec §4.11 steps 1-4): an indexed forward graph with
// edge patterns, its post-dominator tree, and three fusion phases over a union-find of groups. All
// graph walks are iterative.
#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "relay/op_registry.h"
#include "relay/transform/fuse_ops_internal.h"

namespace tessera::relay {
namespace {

using Kind = OpPattern;

Kind combine(Kind a, Kind b) {
  return std::max(a, b);
}

struct Edge {
  int node;
  Kind pattern;
};

struct Node {
  Expr ref;
  Kind pattern = Kind::kOpaque;
  bool externRef = false;
  std::vector<Edge> outputs;
  // Post-dominator tree.
  int domParent = -1;
  int depth = 0;
  Kind domPattern = Kind::kOpaque;
};

struct Group {
  int parent = -1;  ///< union-find link; -1 at a root
  Kind pattern;
  int rootRef;
  bool hasAnchor;
  int numNodes = 1;
};

bool isTensor(const Expr& e) {
  return e->checkedType && e->checkedType->as<TensorTypeNode>();
}

// Scalars that FuseOps inlines into fused bodies (int8 scalars become arguments, as in TVM).
bool isSimpleScalarConstant(const Expr& e) {
  const auto* c = e->as<ConstantNode>();
  const auto* t = c ? c->declaredType->as<TensorTypeNode>() : nullptr;
  if (!t || t->ndim() != 0) return false;
  const DataType d = t->dtype;
  return d == DataType::int32() || d == DataType::int64() || d == DataType::float32() ||
         d == DataType::float64() || d == DataType::boolType();
}

class Partitioner {
 public:
  Partitioner(const Expr& body, int maxDepth) : maxDepth_(maxDepth) { build(body); }

  std::vector<Node> nodes;
  std::unordered_map<const ExprNode*, int> index;
  std::vector<Group> groups;

  int findRoot(int g) {
    int root = g;
    while (groups[root].parent >= 0) root = groups[root].parent;
    while (groups[g].parent >= 0) {
      const int next = groups[g].parent;
      groups[g].parent = root;
      g = next;
    }
    return root;
  }

  void fuseAll() {
    for (int phase = 0; phase < 3; ++phase) runFuse(phase);
  }

 private:
  int maxDepth_;

  // Post-DFS order without entering nested functions: each function is fused on its own.
  void build(const Expr& body) {
    std::vector<std::pair<Expr, bool>> stack = {{body, false}};
    std::unordered_set<const ExprNode*> seen;
    while (!stack.empty()) {
      auto [e, expanded] = stack.back();
      stack.pop_back();
      if (expanded) {
        index[e.get()] = static_cast<int>(nodes.size());
        nodes.push_back({.ref = e});
        continue;
      }
      if (e->kind == ExprKind::kOp || !seen.insert(e.get()).second) continue;
      stack.push_back({e, true});
      if (e->kind == ExprKind::kFunction) continue;
      std::vector<Expr> kids = exprChildren(e);
      for (auto it = kids.rbegin(); it != kids.rend(); ++it) stack.push_back({*it, false});
    }
    for (Node& n : nodes) addEdges(n);
    nodes[index.at(body.get())].externRef = true;
    buildPostDominators();
    for (int i = 0; i < static_cast<int>(nodes.size()); ++i) {
      groups.push_back({.pattern = nodes[i].pattern,
                        .rootRef = i,
                        .hasAnchor = nodes[i].pattern == Kind::kOutEWiseFusable});
    }
  }

  void link(const Expr& input, int consumer, Kind pattern) {
    if (input->kind == ExprKind::kOp) return;
    nodes[index.at(input.get())].outputs.push_back({consumer, pattern});
  }

  void markExtern(const Expr& e) {
    if (e->kind != ExprKind::kOp) nodes[index.at(e.get())].externRef = true;
  }

  void addEdges(Node& n) {
    const int self = index.at(n.ref.get());
    const Expr& e = n.ref;
    if (const auto* call = e->as<CallNode>()) {
      const auto* op = call->op->as<OpNode>();
      n.pattern = op ? op->def->pattern : Kind::kOpaque;
      if (!op) link(call->op, self, Kind::kOpaque);
      for (const Expr& arg : call->args) {
        Kind edge = n.pattern;
        // A broadcast whose input already has the output's shape is elementwise on that edge.
        if (edge == Kind::kBroadcast && isTensor(arg) && isTensor(e) &&
            typeEqual(arg->checkedType, e->checkedType)) {
          edge = Kind::kElemWise;
        }
        link(arg, self, edge);
      }
      return;
    }
    switch (e->kind) {
      case ExprKind::kConstant:
        n.pattern = isSimpleScalarConstant(e) ? Kind::kElemWise : Kind::kOpaque;
        return;
      case ExprKind::kTuple:
        n.pattern = Kind::kTuple;
        for (const Expr& f : e->as<TupleNode>()->fields) {
          if (isTensor(f))
            link(f, self, Kind::kInjective);
          else
            markExtern(f);
        }
        return;
      case ExprKind::kTupleGetItem:
        n.pattern = Kind::kInjective;
        link(e->as<TupleGetItemNode>()->tuple, self, Kind::kInjective);
        return;
      default:
        // Vars, lets, ifs, functions: opaque, and nothing fuses across their children.
        n.pattern = Kind::kOpaque;
        if (e->kind != ExprKind::kFunction) {
          for (const Expr& c : exprChildren(e)) markExtern(c);
        }
        return;
    }
  }

  int leastCommonAncestor(int a, int b, Kind& edge) {
    while (a != b) {
      if (a < 0 || b < 0) return -1;
      if (nodes[a].depth < nodes[b].depth) {
        edge = combine(edge, nodes[b].domPattern);
        b = nodes[b].domParent;
      } else if (nodes[b].depth < nodes[a].depth) {
        edge = combine(edge, nodes[a].domPattern);
        a = nodes[a].domParent;
      } else {
        edge = combine(combine(edge, nodes[a].domPattern), nodes[b].domPattern);
        a = nodes[a].domParent;
        b = nodes[b].domParent;
      }
    }
    return a;
  }

  // Consumers come later in post-DFS order, so reverse order sees them first.
  void buildPostDominators() {
    for (int i = static_cast<int>(nodes.size()) - 1; i >= 0; --i) {
      Node& n = nodes[i];
      if (n.externRef || n.outputs.empty()) {
        n.depth = 1;
        n.domPattern = Kind::kOpaque;
        continue;
      }
      Kind edge = n.outputs[0].pattern;
      int parent = n.outputs[0].node;
      for (size_t k = 1; k < n.outputs.size(); ++k) {
        parent = leastCommonAncestor(parent, n.outputs[k].node, edge);
        edge = combine(edge, n.outputs[k].pattern);
      }
      n.domParent = parent;
      n.depth = parent >= 0 ? nodes[parent].depth + 1 : 1;
      n.domPattern = edge;
    }
  }

  // Every node on the paths from src's consumers to sink (sink included) satisfies `cond`.
  template <typename Cond>
  bool checkPath(int src, int sink, Cond cond) {
    std::unordered_set<int> visited;
    std::vector<int> stack;
    for (const Edge& e : nodes[src].outputs) stack.push_back(e.node);
    while (!stack.empty()) {
      const int n = stack.back();
      stack.pop_back();
      if (!visited.insert(n).second) continue;
      if (!cond(groups[findRoot(n)].pattern, n == sink)) return false;
      if (n == sink) continue;
      for (const Edge& e : nodes[n].outputs) stack.push_back(e.node);
    }
    return true;
  }

  void mergeInto(int child, int parent) {
    child = findRoot(child);
    parent = findRoot(parent);
    if (child == parent) return;
    groups[parent].numNodes += groups[child].numNodes;
    groups[child].parent = parent;
    if (groups[child].hasAnchor) {
      groups[parent].hasAnchor = true;
      groups[parent].pattern = combine(groups[child].pattern, groups[parent].pattern);
    }
  }

  void commitFuse(int src, int sink) {
    const int target = sink;
    std::unordered_set<int> visited;
    std::vector<int> stack = {src};
    while (!stack.empty()) {
      const int n = stack.back();
      stack.pop_back();
      if (n == sink || !visited.insert(n).second) continue;
      mergeInto(n, target);
      for (const Edge& e : nodes[n].outputs) stack.push_back(e.node);
    }
  }

  int countFusedNodes(int src, int sink) {
    int sum = groups[findRoot(sink)].numNodes;
    std::unordered_set<int> visited;
    std::vector<int> stack = {src};
    while (!stack.empty()) {
      const int n = stack.back();
      stack.pop_back();
      if (n == sink || !visited.insert(n).second) continue;
      sum += groups[n].numNodes;
      for (const Edge& e : nodes[n].outputs) stack.push_back(e.node);
    }
    return sum;
  }

  void runFuse(int phase) {
    auto atMostInjective = [](Kind k, bool) { return k <= Kind::kInjective; };
    for (int v = 0; v < static_cast<int>(nodes.size()); ++v) {
      const Kind own = groups[v].pattern;
      const int p = nodes[v].domParent;
      if (own == Kind::kOpaque || p < 0) continue;
      if (countFusedNodes(v, p) > maxDepth_) continue;
      if (phase == 2) {
        if (own > Kind::kInjective) continue;
        const Kind rootPattern = groups[findRoot(p)].pattern;
        // A tuple already fused into an injective consumer can take its inputs too.
        if (groups[p].pattern == Kind::kTuple && rootPattern != Kind::kTuple &&
            rootPattern <= Kind::kInjective && checkPath(v, p, atMostInjective)) {
          commitFuse(v, p);
        }
        continue;
      }
      if (findRoot(v) == findRoot(p) || groups[p].pattern == Kind::kTuple) continue;
      const Kind dom = nodes[v].domPattern;
      if (own == Kind::kOutEWiseFusable) {
        auto atMostBroadcast = [](Kind k, bool) { return k <= Kind::kBroadcast; };
        if (phase == 0 && dom == Kind::kElemWise && checkPath(v, p, atMostBroadcast)) {
          commitFuse(v, p);
        }
      } else if (own <= Kind::kBroadcast) {
        auto cond = [](Kind k, bool isSink) {
          if (!isSink) return k <= Kind::kInjective;
          return k <= Kind::kInjective || k == Kind::kCommReduce || k == Kind::kOutEWiseFusable;
        };
        if ((dom <= Kind::kInjective || dom == Kind::kCommReduce) && checkPath(v, p, cond)) {
          commitFuse(v, p);
        }
      } else if (own == Kind::kInjective || own == Kind::kTuple) {
        if (phase == 1 && checkPath(v, p, atMostInjective)) commitFuse(v, p);
      }
    }
  }
};

}  // namespace

FusionGroups partitionForFusion(const Expr& body, int optLevel, int maxDepth) {
  Partitioner partitioner(body, maxDepth);
  if (optLevel > 0) partitioner.fuseAll();
  FusionGroups out;
  for (int i = 0; i < static_cast<int>(partitioner.nodes.size()); ++i) {
    out.nodeRefs.push_back(partitioner.nodes[i].ref);
    const int g = partitioner.findRoot(i);
    out.groupOf.push_back(g);
    out.groupRoot.push_back(partitioner.groups[g].rootRef);
  }
  return out;
}

}  // namespace tessera::relay
