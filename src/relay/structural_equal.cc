#include "relay/structural_equal.h"

#include <set>
#include <unordered_map>
#include <utility>

#include "relay/visit.h"
#include "support/hash.h"

namespace tessera::relay {

namespace {

bool attrsEqual(const Attrs& a, const Attrs& b) {
  if (a == b) return true;
  if (!a || !b) return false;
  return a->equals(*b);
}

// Compares two DAGs with an explicit worklist. Bound variables are matched when their binder
// (function or let) is compared, which always happens before any use is reached, because uses are
// only reachable through the binder's body.
class EqualChecker {
 public:
  explicit EqualChecker(bool mapFreeVars) : mapFreeVars_(mapFreeVars) {}

  bool run(const Expr& a, const Expr& b) {
    stack_.emplace_back(a, b);
    while (!stack_.empty()) {
      auto [x, y] = stack_.back();
      stack_.pop_back();
      if (!visited_.insert({x.get(), y.get()}).second) continue;
      if (!compareNode(x, y)) return false;
    }
    return true;
  }

  const std::string& difference() const { return difference_; }

 private:
  bool fail(const Expr& a, const std::string& why) {
    difference_ = why + " (at " + exprSummary(a) + ")";
    return false;
  }

  // Symbolic dims are matched by first occurrence, like bound variables, so a re-parsed
  // `Tensor[(1, n), float32]` equals the original.
  bool typesMatch(const Type& a, const Type& b) {
    if (!a || !b) return !a && !b;
    return typeEqual(a, b, &symMap_);
  }

  bool bindVar(const Var& a, const Var& b) {
    if (!typesMatch(a->typeAnnotation, b->typeAnnotation))
      return fail(a, "variable annotations differ: " + typeToString(a->typeAnnotation) + " vs " +
                         typeToString(b->typeAnnotation));
    auto [it, inserted] = varMap_.emplace(a.get(), b.get());
    if (!inserted && it->second != b.get()) return fail(a, "variable bound twice");
    return true;
  }

  bool compareVarUse(const Expr& a, const Expr& b) {
    auto it = varMap_.find(a.get());
    if (it != varMap_.end()) return it->second == b.get() ? true : fail(a, "different variables");
    if (mapFreeVars_) return bindVar(exprAs<VarNode>(a), exprAs<VarNode>(b));
    return a == b ? true : fail(a, "different free variables");
  }

  bool compareNode(const Expr& a, const Expr& b) {
    if (!a || !b) return (!a && !b) ? true : fail(a ? a : b, "one side is null");
    if (a->kind != b->kind) return fail(a, "node kinds differ (" + exprSummary(b) + ")");
    switch (a->kind) {
      case ExprKind::kVar:
        return compareVarUse(a, b);
      case ExprKind::kGlobalVar:
        return a->as<GlobalVarNode>()->name == b->as<GlobalVarNode>()->name
                   ? true
                   : fail(a, "different globals");
      case ExprKind::kConstant: {
        const auto* x = a->as<ConstantNode>();
        const auto* y = b->as<ConstantNode>();
        if (x->hasData() != y->hasData()) return fail(a, "one constant has no value");
        if (x->hasData())
          return x->data.bitwiseEqual(y->data) ? true : fail(a, "constant values differ");
        return typeEqual(x->declaredType, y->declaredType) ? true
                                                           : fail(a, "constant types differ");
      }
      case ExprKind::kOp:
        return a->as<OpNode>()->name == b->as<OpNode>()->name ? true : fail(a, "different ops");
      case ExprKind::kCall: {
        const auto* x = a->as<CallNode>();
        const auto* y = b->as<CallNode>();
        if (x->args.size() != y->args.size()) return fail(a, "argument counts differ");
        if (!attrsEqual(x->attrs, y->attrs)) return fail(a, "call attributes differ");
        break;
      }
      case ExprKind::kTuple:
        if (a->as<TupleNode>()->fields.size() != b->as<TupleNode>()->fields.size())
          return fail(a, "tuple sizes differ");
        break;
      case ExprKind::kTupleGetItem:
        if (a->as<TupleGetItemNode>()->index != b->as<TupleGetItemNode>()->index)
          return fail(a, "projection indices differ");
        break;
      case ExprKind::kLet:
        if (!bindVar(a->as<LetNode>()->var, b->as<LetNode>()->var)) return false;
        break;
      case ExprKind::kIf:
        break;
      case ExprKind::kFunction: {
        const auto* x = a->as<FunctionNode>();
        const auto* y = b->as<FunctionNode>();
        if (x->params.size() != y->params.size()) return fail(a, "parameter counts differ");
        if (!(x->attrs == y->attrs)) return fail(a, "function attributes differ");
        if (!typesMatch(x->retType, y->retType)) return fail(a, "return types differ");
        for (size_t i = 0; i < x->params.size(); ++i)
          if (!bindVar(x->params[i], y->params[i])) return false;
        break;
      }
    }
    const std::vector<Expr> xs = exprChildren(a);
    const std::vector<Expr> ys = exprChildren(b);
    // Push in reverse so children are compared left to right (first difference reported is the
    // leftmost); binders were handled above, so skip their variable slots.
    for (size_t i = xs.size(); i-- > 0;) {
      if (a->kind == ExprKind::kLet && i == 0) continue;
      if (a->kind == ExprKind::kFunction && i + 1 < xs.size()) continue;
      stack_.emplace_back(xs[i], ys[i]);
    }
    return true;
  }

  bool mapFreeVars_;
  std::vector<std::pair<Expr, Expr>> stack_;
  std::set<std::pair<const ExprNode*, const ExprNode*>> visited_;
  std::unordered_map<const ExprNode*, const ExprNode*> varMap_;
  SymVarMap symMap_;
  std::string difference_;
};

uint64_t localHash(const Expr& e) {
  uint64_t h = static_cast<uint64_t>(e->kind) * 0x100000001b3ull + 1;
  switch (e->kind) {
    case ExprKind::kVar:
      return hashCombine(h, typeHash(e->as<VarNode>()->typeAnnotation));
    case ExprKind::kGlobalVar:
      return hashCombine(h, hashString(e->as<GlobalVarNode>()->name));
    case ExprKind::kConstant: {
      const auto* c = e->as<ConstantNode>();
      if (!c->hasData()) return hashCombine(h, typeHash(c->declaredType));
      return hashCombine(hashCombine(h, typeHash(c->declaredType)),
                         hashBytes(c->data.data(), c->data.nbytes()));
    }
    case ExprKind::kOp:
      return hashCombine(h, hashString(e->as<OpNode>()->name));
    case ExprKind::kCall: {
      const Attrs& attrs = e->as<CallNode>()->attrs;
      return hashCombine(h, attrs ? attrs->hash() : 0);
    }
    case ExprKind::kTupleGetItem:
      return hashCombine(h, static_cast<uint64_t>(e->as<TupleGetItemNode>()->index));
    case ExprKind::kFunction: {
      const auto* f = e->as<FunctionNode>();
      return hashCombine(hashCombine(h, f->attrs.hash()), typeHash(f->retType));
    }
    case ExprKind::kTuple:
    case ExprKind::kLet:
    case ExprKind::kIf:
      return h;
  }
  return h;
}

}  // namespace

bool structuralEqual(const Expr& a, const Expr& b, bool mapFreeVars) {
  return EqualChecker(mapFreeVars).run(a, b);
}

std::string explainDifference(const Expr& a, const Expr& b) {
  EqualChecker checker(false);
  if (checker.run(a, b)) return {};
  return checker.difference();
}

bool structuralEqual(const IRModule& a, const IRModule& b) {
  if (a.functions().size() != b.functions().size()) return false;
  for (const auto& [name, fn] : a.functions()) {
    if (!b.has(name)) return false;
    if (!structuralEqual(fn, b.lookup(name))) return false;
  }
  return true;
}

uint64_t structuralHash(const Expr& e) {
  std::unordered_map<const ExprNode*, uint64_t> memo;
  postOrderVisit(e, [&](const Expr& node) {
    uint64_t h = localHash(node);
    for (const Expr& child : exprChildren(node))
      h = hashCombine(h, child ? memo.at(child.get()) : 0);
    memo[node.get()] = h;
  });
  return memo.at(e.get());
}

}  // namespace tessera::relay
