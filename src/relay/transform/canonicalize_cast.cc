// CanonicalizeCast (TVM's canonicalize_cast.cc): gives every elementwise/broadcast consumer of an
// up-cast its own copy of the cast, so after fusion each kernel reads the narrow input and the
// producer writes fewer bytes. Requires InferType (the cast's input width).
#include <unordered_map>

#include "relay/op/tensor.h"
#include "relay/op_registry.h"
#include "relay/transform/passes.h"
#include "relay/type_infer.h"
#include "relay/visit.h"

namespace tessera::relay {
namespace {

bool isElemwiseOrBroadcast(const CallNode& call) {
  const auto* op = call.op->as<OpNode>();
  return op && static_cast<int>(op->def->pattern) <= static_cast<int>(OpPattern::kBroadcast);
}

/// A `cast` to a wider type, judged on the typed original node.
bool isUpCast(const Expr& e) {
  const auto* call = e->as<CallNode>();
  const auto* op = call ? call->op->as<OpNode>() : nullptr;
  if (!op || op->name != "cast" || !call->args[0]->checkedType) return false;
  const auto* from = call->args[0]->checkedType->as<TensorTypeNode>();
  return from && from->dtype.bits() < attrsAs<CastAttrs>(call->attrs.get())->dtype.bits();
}

}  // namespace

Function canonicalizeCast(const Function& fn) {
  const Function typed = fn->body->checkedType ? fn : exprAs<FunctionNode>(inferExprTypes(fn));
  std::unordered_map<const ExprNode*, int> consumers;  // original cast -> consumers seen so far
  Expr result = rewriteBottomUp(typed, [&](const Expr& node, const std::vector<Expr>& kids) {
    Expr rebuilt = withChildren(node, kids);
    const auto* orig = node->as<CallNode>();
    if (!orig || !isElemwiseOrBroadcast(*orig)) return rebuilt;
    const auto* call = rebuilt->as<CallNode>();
    std::vector<Expr> args = call->args;
    bool changed = false;
    for (size_t i = 0; i < args.size(); ++i) {
      if (!isUpCast(orig->args[i]) || ++consumers[orig->args[i].get()] == 1) continue;
      // Later consumers get a fresh cast node: same input, same attrs, not shared.
      const auto* cast = args[i]->as<CallNode>();
      args[i] = makeCall(cast->op, cast->args, cast->attrs, cast->span);
      changed = true;
    }
    return changed ? makeCall(call->op, std::move(args), call->attrs, call->span) : rebuilt;
  });
  return exprAs<FunctionNode>(result);
}

Pass canonicalizeCastPass() {
  return makeFunctionPass(
      PassInfo{"CanonicalizeCast", 3, {"InferType"}},
      [](const Function& fn, const IRModule&, PassContext&) { return canonicalizeCast(fn); });
}

}  // namespace tessera::relay
