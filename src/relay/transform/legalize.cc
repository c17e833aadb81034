// Legalize (TVM's legalize.cc): lets each op's "FTVMLegalize" hook replace a call with an
// equivalent, target-friendly expression (e.g. a conv2d with channels padded to a multiple the
// target supports). Identity for ops without a hook. Requires InferType: hooks see argument types.
#include "relay/op_registry.h"
#include "relay/transform/passes.h"
#include "relay/type_infer.h"
#include "relay/visit.h"

namespace tessera::relay {
namespace {

const LegalizeFn* legalizeHook(const Expr& node) {
  const auto* call = node->as<CallNode>();
  const auto* op = call ? call->op->as<OpNode>() : nullptr;
  if (!op) return nullptr;
  const LegalizeFn* hook = getOpAttr<LegalizeFn>(op->name, kLegalizeAttr);
  return hook && *hook ? hook : nullptr;
}

}  // namespace

Function legalize(const Function& fn) {
  const Function typed = fn->body->checkedType ? fn : exprAs<FunctionNode>(inferExprTypes(fn));
  return exprAs<FunctionNode>(
      rewriteBottomUp(typed, [](const Expr& node, const std::vector<Expr>& children) {
        Expr rebuilt = withChildren(node, children);
        const LegalizeFn* hook = legalizeHook(node);
        if (!hook) return rebuilt;
        // Types come from the original call: the rebuilt one is not typed yet, and a rewrite
        // never changes the type of an argument.
        const auto& original = *node->as<CallNode>();
        std::vector<Type> argTypes;
        for (const Expr& arg : original.args) argTypes.push_back(arg->checkedType);
        const std::vector<Expr> newArgs(children.begin() + 1, children.end());
        Expr replaced = (*hook)(*rebuilt->as<CallNode>(), newArgs, argTypes);
        return replaced ? replaced : rebuilt;
      }));
}

Pass legalizePass() {
  return makeFunctionPass(
      PassInfo{"Legalize", 1, {"InferType"}},
      [](const Function& fn, const IRModule&, PassContext&) { return legalize(fn); });
}

}  // namespace tessera::relay
