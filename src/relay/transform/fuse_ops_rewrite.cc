// FuseOps' outlining step (spec §4.11 step 5): each group becomes `fn (%p0, ...) { ... }` with
// Primitive=1, called where its root was; stop_fusion markers disappear.
#include <unordered_map>

#include "relay/op_registry.h"
#include "relay/transform/fuse_ops_internal.h"
#include "relay/visit.h"

namespace tessera::relay {
namespace {

bool isStopFusion(const Expr& e) {
  const auto* call = e->as<CallNode>();
  const auto* op = call ? call->op->as<OpNode>() : nullptr;
  return op && op->name == "annotation.stop_fusion";
}

// The inputs a group member reads (the callee is not one: ops are not graph nodes).
std::vector<Expr> memberInputs(const Expr& e) {
  if (const auto* call = e->as<CallNode>()) return call->args;
  if (const auto* tuple = e->as<TupleNode>()) return tuple->fields;
  if (const auto* item = e->as<TupleGetItemNode>()) return {item->tuple};
  return {};
}

Expr rebuildMember(const Expr& e, std::vector<Expr> inputs) {
  if (const auto* call = e->as<CallNode>()) {
    return makeCall(call->op, std::move(inputs), call->attrs, call->span);
  }
  if (e->kind == ExprKind::kTuple) return makeTuple(std::move(inputs), e->span);
  if (const auto* item = e->as<TupleGetItemNode>()) {
    return makeTupleGetItem(inputs[0], item->index, e->span);
  }
  return e;
}

class Outliner {
 public:
  Outliner(const std::vector<Expr>& refs, const std::vector<int>& groupOf,
           const std::vector<int>& groupRoot)
      : refs_(refs), groupOf_(groupOf), groupRoot_(groupRoot) {
    for (int i = 0; i < static_cast<int>(refs.size()); ++i) index_[refs[i].get()] = i;
  }

  Expr run(const Expr& body) {
    for (int i = 0; i < static_cast<int>(refs_.size()); ++i) visit(i);
    return newExpr_.at(index_.at(body.get()));
  }

 private:
  const std::vector<Expr>& refs_;
  const std::vector<int>& groupOf_;
  const std::vector<int>& groupRoot_;
  std::unordered_map<const ExprNode*, int> index_;
  std::unordered_map<int, Expr> newExpr_;

  Expr mapped(const Expr& e) const {
    auto it = index_.find(e.get());
    return it == index_.end() ? e : newExpr_.at(it->second);
  }

  bool isRoot(int i) const { return groupRoot_[i] == i; }

  void visit(int i) {
    const Expr& e = refs_[i];
    if (isStopFusion(e)) {
      newExpr_[i] = mapped(e->as<CallNode>()->args[0]);
      return;
    }
    const auto* call = e->as<CallNode>();
    const auto* op = call ? call->op->as<OpNode>() : nullptr;
    const bool fusible = (op && !op->def->nonComputational) || e->kind == ExprKind::kTuple ||
                         e->kind == ExprKind::kTupleGetItem;
    if (!fusible) {
      std::vector<Expr> kids = exprChildren(e);
      if (e->kind != ExprKind::kFunction) {
        for (Expr& k : kids) k = mapped(k);
      }
      newExpr_[i] = withChildren(e, kids);
      return;
    }
    if (!isRoot(i)) return;  // built inside its group's function
    if (e->kind == ExprKind::kTuple) {
      std::vector<Expr> fields;
      for (const Expr& f : e->as<TupleNode>()->fields) fields.push_back(mapped(f));
      newExpr_[i] = makeTuple(std::move(fields), e->span);
      return;
    }
    if (const auto* item = e->as<TupleGetItemNode>()) {
      if (groupOf_[index_.at(item->tuple.get())] != groupOf_[i]) {
        newExpr_[i] = makeTupleGetItem(mapped(item->tuple), item->index, e->span);
        return;
      }
    }
    newExpr_[i] = outline(i);
  }

  // Rebuilds the group rooted at `root` depth-first from the root, arguments left to right, the
  // order in which TVM's recursive mutator allocates p0, p1, ...
  Expr outline(int root) {
    const int group = groupOf_[root];
    std::vector<Var> params;
    std::vector<Expr> args;
    bool reshapeOnly = true;
    auto paramFor = [&](const Expr& original) -> Expr {
      const Expr value = mapped(original);
      for (size_t k = 0; k < args.size(); ++k) {
        if (args[k] == value) return params[k];
      }
      params.push_back(makeVar("p" + std::to_string(params.size()), original->checkedType));
      args.push_back(value);
      return params.back();
    };
    struct Frame {
      int node;
      std::vector<Expr> inputs;
      std::vector<Expr> rebuilt;
    };
    std::unordered_map<int, Expr> built;
    std::vector<Frame> stack = {{root, memberInputs(refs_[root]), {}}};
    Expr body;
    while (!stack.empty()) {
      Frame& f = stack.back();
      if (f.rebuilt.size() < f.inputs.size()) {
        const Expr& in = f.inputs[f.rebuilt.size()];
        auto idx = index_.find(in.get());
        const bool inside = idx != index_.end() && groupOf_[idx->second] == group;
        if (!inside) {
          f.rebuilt.push_back(paramFor(in));
        } else if (auto b = built.find(idx->second); b != built.end()) {
          f.rebuilt.push_back(b->second);
        } else {
          stack.push_back({idx->second, memberInputs(in), {}});
        }
        continue;
      }
      const Expr& e = refs_[f.node];
      if (const auto* call = e->as<CallNode>()) {
        const auto* op = call->op->as<OpNode>();
        reshapeOnly = reshapeOnly && op && op->def->reshapeOnly;
      }
      const Expr out = rebuildMember(e, std::move(f.rebuilt));
      const int node = f.node;
      stack.pop_back();
      built[node] = out;
      if (stack.empty()) {
        body = out;
      } else {
        stack.back().rebuilt.push_back(out);
      }
    }
    DictAttrs attrs;
    attrs.set("Primitive", AttrValue::integer(1));
    if (reshapeOnly) attrs.set("relay.reshape_only", AttrValue::integer(1));
    const Expr& e = refs_[root];
    return makeCall(makeFunction(params, body, e->checkedType, attrs), args, nullptr, e->span);
  }
};

}  // namespace

Expr outlineFusedGroups(const Expr& body, const std::vector<Expr>& nodeRefs,
                        const std::vector<int>& groupOf, const std::vector<int>& groupRoot) {
  return Outliner(nodeRefs, groupOf, groupRoot).run(body);
}

}  // namespace tessera::relay
