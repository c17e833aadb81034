// The pattern matcher: memoized structural matching with rollback for alternatives, dominator paths
// checked iteratively against the graph's users, and the fixed-point rewriter.
#include "relay/pattern/matcher.h"

#include <unordered_set>

#include "relay/op_registry.h"
#include "relay/structural_equal.h"
#include "relay/visit.h"

namespace tessera::relay {

Expr PatternMatch::operator[](const Pattern& p) const {
  auto it = captures.find(p.node().get());
  return it == captures.end() ? nullptr : it->second;
}

struct PatternMatcher::Impl {
  Expr root;
  bool usersBuilt = false;
  std::unordered_map<const ExprNode*, std::vector<Expr>> users;
  std::unordered_set<const ExprNode*> nodes;
  PatternMatch state;

  void buildUsers() {
    if (usersBuilt) return;
    usersBuilt = true;
    postOrderVisit(root, [&](const Expr& e) {
      nodes.insert(e.get());
      for (const Expr& c : exprChildren(e)) users[c.get()].push_back(e);
    });
  }

  // Memoized: a pattern node that matched once must match the same expression everywhere, which
  // is what makes `add(x, x)` with one wildcard `x` require equal operands.
  bool visit(const PatternNode* p, const Expr& e) {
    if (auto it = state.captures.find(p); it != state.captures.end()) return it->second == e;
    if (!visitUncached(p, e)) return false;
    state.captures[p] = e;
    return true;
  }

  bool visitCall(const PatternNode* p, const Expr& e) {
    const auto* call = e->as<CallNode>();
    if (!call || call->args.size() + 1 != p->children.size()) return false;
    const PatternMatch saved = state;
    if (matchArgs(p, call, false)) return true;
    // add and multiply commute; TVM tries the swapped operands too.
    const auto* op = call->op->as<OpNode>();
    if (!op || call->args.size() != 2 || (op->name != "add" && op->name != "multiply")) {
      return false;
    }
    state = saved;
    return matchArgs(p, call, true);
  }

  bool matchArgs(const PatternNode* p, const CallNode* call, bool swapped) {
    if (!visit(p->children[0].get(), call->op)) return false;
    for (size_t i = 0; i < call->args.size(); ++i) {
      const size_t arg = swapped ? call->args.size() - 1 - i : i;
      if (!visit(p->children[i + 1].get(), call->args[arg])) return false;
    }
    return true;
  }

  bool attrsMatch(const PatternNode* p, const Expr& e) {
    for (const auto& [key, value] : p->attrs) {
      if (const auto* call = e->as<CallNode>()) {
        if (!call->attrs || !(call->attrs->get(key) == value)) return false;
      } else if (const auto* op = e->as<OpNode>()) {
        // Op attributes: the fusion kind, as TVM's has_attr({"TOpPattern": kElemWise}).
        if (key != "TOpPattern" || value.kind() != AttrValue::Kind::kInt ||
            value.asInt() != static_cast<int64_t>(op->def->pattern)) {
          return false;
        }
      } else if (const auto* fn = e->as<FunctionNode>()) {
        const AttrValue* v = fn->attrs.find(key);
        if (!v || !(*v == value)) return false;
      } else {
        return false;
      }
    }
    return true;
  }

  static const TensorTypeNode* tensorTypeOf(const Expr& e) {
    if (!e->checkedType) return nullptr;
    return e->checkedType->as<TensorTypeNode>();
  }

  bool visitUncached(const PatternNode* p, const Expr& e) {
    switch (p->kind) {
      case PatternKind::kWildcard:
        return true;
      case PatternKind::kExpr:
        if (e == p->expr) return true;
        return e->kind == ExprKind::kConstant && p->expr->kind == ExprKind::kConstant &&
               structuralEqual(e, p->expr);
      case PatternKind::kOp: {
        const auto* op = e->as<OpNode>();
        return op && op->name == p->name;
      }
      case PatternKind::kCall:
        return visitCall(p, e);
      case PatternKind::kConstant:
        return e->kind == ExprKind::kConstant;
      case PatternKind::kVar: {
        const auto* var = e->as<VarNode>();
        return var && (p->name.empty() || var->nameHint == p->name);
      }
      case PatternKind::kTuple: {
        const auto* tuple = e->as<TupleNode>();
        if (!tuple || tuple->fields.size() != p->children.size()) return false;
        for (size_t i = 0; i < tuple->fields.size(); ++i) {
          if (!visit(p->children[i].get(), tuple->fields[i])) return false;
        }
        return true;
      }
      case PatternKind::kTupleGetItem: {
        const auto* item = e->as<TupleGetItemNode>();
        return item && (p->index < 0 || p->index == item->index) &&
               visit(p->children[0].get(), item->tuple);
      }
      case PatternKind::kAttr:
        return visit(p->children[0].get(), e) && attrsMatch(p, e);
      case PatternKind::kType:
        return visit(p->children[0].get(), e) && e->checkedType &&
               typeEqual(e->checkedType, p->type);
      case PatternKind::kDType: {
        const TensorTypeNode* t = tensorTypeOf(e);
        return visit(p->children[0].get(), e) && t && t->dtype == p->dtype;
      }
      case PatternKind::kShape: {
        const TensorTypeNode* t = tensorTypeOf(e);
        if (!visit(p->children[0].get(), e) || !t) return false;
        const auto shape = staticShape(t->shape);
        return shape && *shape == p->shape;
      }
      case PatternKind::kAlt: {
        const PatternMatch saved = state;
        if (visit(p->children[0].get(), e)) return true;
        state = saved;
        return visit(p->children[1].get(), e);
      }
      case PatternKind::kDominator:
        return visit(p->children[2].get(), e) && matchesPath(p, e);
    }
    return false;
  }

  static std::vector<Expr> inputsOf(const Expr& e) {
    if (const auto* call = e->as<CallNode>()) return call->args;
    if (e->kind == ExprKind::kFunction) return {};
    return exprChildren(e);
  }

  // Constants and variables may feed the path from the side (a bias, a scale) without breaking
  // dominance: they compute nothing the parent could have.
  static bool isGraphInput(const Expr& e) {
    return e->kind == ExprKind::kConstant || e->kind == ExprKind::kVar;
  }

  // Walks upstream from the child: every input is either the parent match or a path node whose
  // own inputs continue the walk. A path node must be used only inside the match, or the child
  // would not be dominated by the parent.
  bool matchesPath(const PatternNode* p, const Expr& child) {
    buildUsers();
    bool reachedParent = false;
    std::vector<Expr> stack = inputsOf(child);
    std::unordered_set<const ExprNode*> inside = {child.get()};
    std::vector<Expr> path;
    while (!stack.empty()) {
      const Expr n = stack.back();
      stack.pop_back();
      if (inside.count(n.get())) continue;
      PatternMatch saved = state;
      if (visit(p->children[0].get(), n)) {
        reachedParent = true;
        continue;
      }
      state = saved;
      // Path patterns match many nodes, so their captures are not kept.
      const bool onPath = visit(p->children[1].get(), n);
      state = std::move(saved);
      if (!onPath && isGraphInput(n)) continue;
      if (!onPath) return false;
      inside.insert(n.get());
      path.push_back(n);
      for (const Expr& in : inputsOf(n)) stack.push_back(in);
    }
    if (!reachedParent) return false;
    for (const Expr& n : path) {
      for (const Expr& user : users[n.get()]) {
        if (!inside.count(user.get())) return false;
      }
    }
    state.pathNodes.insert(state.pathNodes.end(), path.begin(), path.end());
    return true;
  }
};

PatternMatcher::PatternMatcher(Expr root) : impl_(std::make_unique<Impl>()) {
  impl_->root = std::move(root);
}

PatternMatcher::~PatternMatcher() = default;

std::optional<PatternMatch> PatternMatcher::match(const Pattern& pattern, const Expr& e) {
  impl_->state = {};
  if (!impl_->visit(pattern.node().get(), e)) return std::nullopt;
  return std::move(impl_->state);
}

bool PatternMatcher::contains(const Expr& e) const {
  impl_->buildUsers();
  return impl_->nodes.count(e.get()) != 0;
}

bool matches(const Pattern& pattern, const Expr& e) {
  return matchCaptures(pattern, e).has_value();
}

std::optional<PatternMatch> matchCaptures(const Pattern& pattern, const Expr& e) {
  PatternMatcher matcher(e);
  return matcher.match(pattern, e);
}

Expr rewrite(const std::vector<RewriteCallback>& callbacks, const Expr& e, int maxIterations) {
  Expr current = e;
  for (int iter = 0; iter < maxIterations; ++iter) {
    PatternMatcher matcher(current);
    bool changed = false;
    Expr next = rewriteBottomUp(current, [&](const Expr& pre, const std::vector<Expr>& children) {
      const Expr post = withChildren(pre, children);
      // Inputs changed in this sweep: match it in the next sweep, against the new graph.
      if (post != pre) return post;
      for (const RewriteCallback& cb : callbacks) {
        std::optional<PatternMatch> m = matcher.match(cb.pattern, pre);
        if (!m) continue;
        Expr replacement = cb.callback(pre, post, *m);
        if (replacement && replacement != post) {
          changed = true;
          return replacement;
        }
      }
      return post;
    });
    current = std::move(next);
    if (!changed) break;
  }
  return current;
}

}  // namespace tessera::relay
