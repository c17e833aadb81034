// FoldConstant (TVM's fold_constant.cc): evaluates op calls whose arguments are all constants with
// the reference interpreter and replaces them by the result; also folds projections of literal
// tuples, `if` on a constant condition and `let` bindings of constants. Bottom-up, so constant
// chains collapse in one run.
#include <unordered_set>

#include "relay/interp/interpreter.h"
#include "relay/op_registry.h"
#include "relay/transform/passes.h"
#include "relay/type_infer.h"
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

Expr foldConstant(Expr e) {
  const auto skip = primitiveInteriors(e);
  return rewriteBottomUpOwned(
      std::move(e),
      [&](const Expr& node, const std::vector<Expr>& children) {
        return foldNode(node, children, skip);
      },
      [](const ConstantNode& replaced) { replaced.releaseData(); });
}

// A module pass rather than a function pass, so that each function is taken out of the module
// it was given: when that module was handed over, the fold holds the function's only reference
// and frees every weight it replaces (batch-norm scales, the layouts AlterOpLayout asks for) as
// soon as the new one exists. Like a function pass, it types the module afterwards.
Pass foldConstantPass() {
  return makeModulePass(PassInfo{"FoldConstant", 2, {}}, [](IRModule module, PassContext&) {
    std::vector<std::string> names;
    for (const auto& [name, fn] : module.functions())
      if (!skippedByFunctionPasses(*fn)) names.push_back(name);
    for (const std::string& name : names)
      module.add(name, exprAs<FunctionNode>(foldConstant(module.take(name))));
    return inferTypes(module);
  });
}

}  // namespace tessera::relay
