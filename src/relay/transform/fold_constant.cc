// FoldConstant (TVM's fold_constant.cc): evaluates op calls whose arguments are all constants with
// the reference interpreter and replaces them by the result; also folds projections of literal
// tuples, `if` on a constant condition and `let` bindings of constants. Bottom-up, so constant
// chains collapse in one run.
#include <unordered_set>

#include "relay/interp/interpreter.h"
#include "relay/op_registry.h"
#include "relay/transform/passes.h"
#include "relay/visit.h"

namespace tessera::relay {
namespace {

/// A constant with a value, or a (nested) tuple of them. Only tuple fields are followed (with an
/// explicit stack), so the check costs the size of the literal, not of the graph below it.
bool isConstantLike(const Expr& root) {
  std::vector<const ExprNode*> pending{root.get()};
  while (!pending.empty()) {
    const ExprNode* n = pending.back();
    pending.pop_back();
    if (const auto* c = n->as<ConstantNode>()) {
      if (!c->hasData()) return false;
      continue;
    }
    const auto* t = n->as<TupleNode>();
    if (!t) return false;
    for (const Expr& f : t->fields) pending.push_back(f.get());
  }
  return true;
}

/// TVM's rule for which op calls may be evaluated at compile time.
bool foldableCall(const CallNode& call) {
  const auto* op = call.op->as<OpNode>();
  if (!op || call.args.empty()) return false;  // non-op callees; creation ops like zeros()
  if (op->def->stateful || op->def->nonComputational || op->name == "device_copy") return false;
  for (const Expr& a : call.args)
    if (!isConstantLike(a)) return false;
  return true;
}

/// A run-time value as an expression: a Constant, or a Tuple of them.
Expr valueToExpr(const Value& v) {
  if (v.isTensor()) return makeConstant(v.tensor());
  if (!v.isTuple()) return nullptr;  // closures are not constants
  std::vector<Expr> fields;
  for (const Value& f : v.fields()) {
    Expr e = valueToExpr(f);
    if (!e) return nullptr;
    fields.push_back(std::move(e));
  }
  return makeTuple(std::move(fields));
}

/// `body` with every use of `var` replaced by `value`.
Expr substitute(const Expr& body, const VarNode* var, const Expr& value) {
  return rewriteBottomUp(body, [&](const Expr& node, const std::vector<Expr>& children) {
    if (node.get() == var) return value;
    return withChildren(node, children);
  });
}

/// Nodes inside `Primitive` functions: those are fused kernels that FoldConstant leaves alone.
std::unordered_set<const ExprNode*> primitiveInteriors(const Expr& root) {
  std::unordered_set<const ExprNode*> inside;
  postOrderVisit(root, [&](const Expr& e) {
    const auto* fn = e->as<FunctionNode>();
    if (!fn || !fn->attrs.has("Primitive")) return;
    postOrderVisit(fn->body, [&](const Expr& n) { inside.insert(n.get()); });
  });
  return inside;
}

Expr foldNode(const Expr& node, const std::vector<Expr>& children,
              const std::unordered_set<const ExprNode*>& skip) {
  Expr rebuilt = withChildren(node, children);
  if (skip.count(node.get())) return rebuilt;
  if (const auto* call = rebuilt->as<CallNode>(); call && foldableCall(*call)) {
    if (Expr folded = valueToExpr(evaluateClosed(rebuilt))) return folded;
    return rebuilt;
  }
  if (const auto* get = rebuilt->as<TupleGetItemNode>()) {
    if (const auto* tuple = get->tuple->as<TupleNode>()) return tuple->fields.at(get->index);
    return rebuilt;
  }
  if (const auto* ifNode = rebuilt->as<IfNode>()) {
    const auto* cond = ifNode->cond->as<ConstantNode>();
    if (!cond || !cond->hasData()) return rebuilt;
    return cond->data.getInt(0) != 0 ? ifNode->thenBranch : ifNode->elseBranch;
  }
  if (const auto* let = rebuilt->as<LetNode>(); let && let->value->as<ConstantNode>())
    return substitute(let->body, let->var.get(), let->value);
  return rebuilt;
}

}  // namespace

Expr foldConstant(const Expr& e) {
  const auto skip = primitiveInteriors(e);
  return rewriteBottomUp(e, [&](const Expr& node, const std::vector<Expr>& children) {
    return foldNode(node, children, skip);
  });
}

Pass foldConstantPass() {
  return makeFunctionPass(PassInfo{"FoldConstant", 2, {}},
                          [](const Function& fn, const IRModule&, PassContext&) {
                            return exprAs<FunctionNode>(foldConstant(fn));
                          });
}

}  // namespace tessera::relay
