// CanonicalizeOps (TVM's canonicalize_ops.cc): rewrites nn.bias_add into expand_dims + add so that
// later passes (FoldConstant, FuseOps) see only broadcast arithmetic. Requires InferType: the
// number of unit axes to append depends on the data's rank.
#include "relay/builder.h"
#include "relay/transform/passes.h"
#include "relay/type_infer.h"
#include "relay/visit.h"

namespace tessera::relay {
namespace {

bool isBiasAdd(const Expr& e) {
  const auto* call = e->as<CallNode>();
  const auto* op = call ? call->op->as<OpNode>() : nullptr;
  return op && op->name == "nn.bias_add";
}

/// `add(x, expand_dims(b, axis=1, num_newaxis=k))` with k = ndim(x) - axis - 1; `original` is the
/// bias_add before rewriting, whose data argument still carries its checked type.
Expr lowerBiasAdd(const CallNode& original, const CallNode& rebuilt) {
  const Type& dataType = original.args[0]->checkedType;
  const auto* ty = dataType ? dataType->as<TensorTypeNode>() : nullptr;
  if (!ty) return nullptr;
  const int ndim = ty->ndim();
  const int64_t axis = attrsAs<nn::BiasAddAttrs>(rebuilt.attrs.get())->axis;
  const int normalized = static_cast<int>(axis < 0 ? axis + ndim : axis);
  const int numNewaxis = ndim - normalized - 1;
  Expr bias = rebuilt.args[1];
  // A bias on the last axis already broadcasts; TVM adds no expand_dims then.
  if (numNewaxis > 0) bias = expandDims(bias, 1, numNewaxis);
  return add(rebuilt.args[0], bias);
}

}  // namespace

Function canonicalizeOps(const Function& fn) {
  const Function typed = fn->body->checkedType ? fn : exprAs<FunctionNode>(inferExprTypes(fn));
  return exprAs<FunctionNode>(
      rewriteBottomUp(typed, [](const Expr& node, const std::vector<Expr>& children) {
        Expr rebuilt = withChildren(node, children);
        if (!isBiasAdd(node)) return rebuilt;
        Expr lowered = lowerBiasAdd(*node->as<CallNode>(), *rebuilt->as<CallNode>());
        return lowered ? lowered : rebuilt;
      }));
}

Pass canonicalizeOpsPass() {
  return makeFunctionPass(
      PassInfo{"CanonicalizeOps", 3, {"InferType"}},
      [](const Function& fn, const IRModule&, PassContext&) { return canonicalizeOps(fn); });
}

}  // namespace tessera::relay
