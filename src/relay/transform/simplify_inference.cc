// SimplifyInference (TVM's simplify_inference.cc): expands inference-time normalisations into
// elementwise arithmetic (batch_norm, layer_norm) and removes dropout. Requires InferType: the
// expansion needs the data's rank and dtype.
#include "relay/builder.h"
#include "relay/op_registry.h"
#include "relay/transform/passes.h"
#include "relay/type_infer.h"
#include "relay/visit.h"

namespace tessera::relay {
namespace {

/// Scalar constant of `dtype`; TVM rounds epsilon through float, so we do as well.
Expr scalarOf(double value, DataType dtype) {
  return makeConstant(NDArray::scalar(static_cast<float>(value), dtype));
}

/// TVM's ExpandBiasToMatchAxis for one axis: appends unit axes so a vector along `axis` broadcasts
/// against a tensor of rank `ndim`.
Expr expandToAxis(Expr bias, int ndim, int axis) {
  const int numPad = ndim - axis - 1;
  return numPad > 0 ? expandDims(std::move(bias), 1, numPad) : bias;
}

bool isCallTo(const Expr& e, const char* opName) {
  const auto* call = e ? e->as<CallNode>() : nullptr;
  const auto* op = call ? call->op->as<OpNode>() : nullptr;
  return op && op->name == opName;
}

const TensorTypeNode* tensorTypeOf(const Expr& e) {
  if (!e->checkedType) return nullptr;
  return e->checkedType->as<TensorTypeNode>();
}

/// batch_norm(...)[0] with the call's (rewritten) arguments; `data` is the original data argument,
/// which still carries its checked type.
Expr expandBatchNorm(const CallNode& bn, const std::vector<Expr>& args, const Expr& data) {
  const TensorTypeNode* ty = tensorTypeOf(data);
  if (!ty) return nullptr;
  const auto* attrs = attrsAs<nn::BatchNormAttrs>(bn.attrs.get());
  const int ndim = ty->ndim();
  const int axis = static_cast<int>(attrs->axis < 0 ? attrs->axis + ndim : attrs->axis);
  // Same operation order as TVM so the printed result and rounding agree with it.
  Expr scale =
      divide(scalarOf(1.0, ty->dtype), sqrt(add(args[4], scalarOf(attrs->epsilon, ty->dtype))));
  if (attrs->scale) scale = multiply(scale, args[1]);
  Expr shift = multiply(negative(args[3]), scale);
  if (attrs->center) shift = add(shift, args[2]);
  scale = expandToAxis(scale, ndim, axis);
  shift = expandToAxis(shift, ndim, axis);
  return add(multiply(args[0], scale), shift);
}

/// layer_norm: (x - mean) / sqrt(var + eps) * gamma + beta over `axis`. TVM uses its `variance`
/// op; we have none, so the variance is mean((x - mean)^2), the same value.
Expr expandLayerNorm(const CallNode& ln, const std::vector<Expr>& args, const Expr& data) {
  const TensorTypeNode* ty = tensorTypeOf(data);
  if (!ty) return nullptr;
  const auto* attrs = attrsAs<nn::LayerNormAttrs>(ln.attrs.get());
  const int ndim = ty->ndim();
  const int axis = static_cast<int>(attrs->axis < 0 ? attrs->axis + ndim : attrs->axis);
  const ReduceAttrs reduce{.axis = std::vector<int64_t>{axis}, .keepdims = true};
  Expr mu = mean(args[0], reduce);
  Expr centered = subtract(args[0], mu);
  Expr variance = mean(multiply(centered, centered), reduce);
  Expr out = divide(centered, sqrt(add(variance, scalarOf(attrs->epsilon, ty->dtype))));
  if (attrs->scale) out = multiply(out, expandToAxis(args[1], ndim, axis));
  if (attrs->center) out = add(out, expandToAxis(args[2], ndim, axis));
  return out;
}

Expr simplifyNode(const Expr& node, const std::vector<Expr>& children) {
  if (const auto* get = node->as<TupleGetItemNode>(); get && get->index == 0) {
    const Expr& newTuple = children[0];
    // Only projection 0 has an inference-time meaning; the statistics outputs stay as they are.
    if (isCallTo(newTuple, "nn.dropout")) return newTuple->as<CallNode>()->args[0];
    if (isCallTo(newTuple, "nn.batch_norm")) {
      const auto* oldCall = get->tuple->as<CallNode>();
      const auto* newCall = newTuple->as<CallNode>();
      if (Expr e = expandBatchNorm(*newCall, newCall->args, oldCall->args[0])) return e;
    }
  }
  // The rebuilt node must stay owned here while expandLayerNorm reads it: a chain of layer_norms
  // rebuilds every one after the first, and a CallNode pointer into a temporary dangles.
  Expr rebuilt = withChildren(node, children);
  if (isCallTo(node, "nn.layer_norm")) {
    const auto* newCall = rebuilt->as<CallNode>();
    if (Expr e = expandLayerNorm(*newCall, newCall->args, node->as<CallNode>()->args[0])) return e;
  }
  return rebuilt;
}

}  // namespace

Function simplifyInference(const Function& fn) {
  const Function typed = fn->body->checkedType ? fn : exprAs<FunctionNode>(inferExprTypes(fn));
  return exprAs<FunctionNode>(rewriteBottomUp(typed, simplifyNode));
}

Pass simplifyInferencePass() {
  return makeFunctionPass(
      PassInfo{"SimplifyInference", 0, {"InferType"}},
      [](const Function& fn, const IRModule&, PassContext&) { return simplifyInference(fn); });
}

}  // namespace tessera::relay
