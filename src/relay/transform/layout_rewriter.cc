// Layout propagation shared by ConvertLayout and AlterOpLayout (TVM's InferCorrectLayout for the
// ops that matter to convolution chains, without its general layout algebra).
//
// What propagates: unary kElemWise ops (nn.relu, clip, ...); add/subtract/multiply/divide/
// maximum/minimum whose other operand is a scalar or a tensor of at most the original rank
// (expanded to it, then transformed; a blocked axis the operand broadcasts over gets a unit
// sub-axis); max/avg/global pools (their `layout` attr follows). Everything else gets its inputs
// restored.
#include "relay/transform/layout_rewriter.h"

#include <cctype>

#include "ir/layout.h"
#include "relay/builder.h"
#include "relay/op/nn.h"
#include "relay/op/tensor.h"
#include "relay/op_registry.h"
#include "relay/visit.h"

namespace tessera::relay {
namespace {

bool isBroadcastArith(const std::string& name) {
  return name == "add" || name == "subtract" || name == "multiply" || name == "divide" ||
         name == "maximum" || name == "minimum";
}

bool isPool(const std::string& name) {
  return name == "nn.max_pool2d" || name == "nn.avg_pool2d" || name == "nn.global_avg_pool2d" ||
         name == "nn.global_max_pool2d";
}

bool isUnaryElemwise(const std::string& name) {
  const OpDef* def = OpRegistry::global().find(name);
  return def && def->pattern == OpPattern::kElemWise;
}

const TensorTypeNode* tensorType(const Expr& e) {
  return e->checkedType ? e->checkedType->as<TensorTypeNode>() : nullptr;
}

/// How a broadcast operand of `shape` (already at the original layout's rank) reaches a blocked
/// layout: 0 = through layout_transform, 1 = every sub-axis is a unit one (the operand
/// broadcasts over the split axes), -1 = neither.
int blockedOperandKind(const Shape& shape, const Layout& original, const Layout& layout) {
  bool transform = true, unit = true;
  for (const LayoutAxis& axis : layout.axes()) {
    if (axis.isPrimal()) continue;
    const int at = original.indexOf(static_cast<char>(std::toupper(axis.letter)));
    if (at < 0 || !shape[at].isConst()) return -1;
    const int64_t extent = shape[at].value();
    if (extent != 1) unit = false;
    if (extent % axis.factor != 0) transform = false;
  }
  if (transform) return 0;
  return unit ? 1 : -1;
}

/// A layout's primal axes in order ("NCHW" of "NCHW16c"), when its sub-axes all come last.
std::optional<std::string> primalPrefix(const Layout& layout, int* subAxes) {
  std::string primal;
  *subAxes = 0;
  for (const LayoutAxis& axis : layout.axes()) {
    if (axis.isPrimal()) {
      if (*subAxes > 0) return std::nullopt;
      primal += axis.letter;
    } else {
      ++*subAxes;
    }
  }
  return primal;
}

/// A broadcast operand (not held in a converted layout) brought into `info.layout`, or null.
Expr broadcastOperand(Expr operand, const TensorTypeNode& type, const HeldLayout& info) {
  const Layout original = *Layout::parse(info.original), layout = *Layout::parse(info.layout);
  const int rank = type.ndim(), full = original.ndim();
  if (rank > full) return nullptr;
  if (rank == 0) return operand;
  Shape shape(full - rank, Dim(1));
  shape.insert(shape.end(), type.shape.begin(), type.shape.end());
  if (rank < full) operand = expandDims(operand, 0, full - rank);
  const int kind = blockedOperandKind(shape, original, layout);
  if (kind == 0) return layoutTransform(operand, info.original, info.layout);
  int subAxes = 0;
  const std::optional<std::string> primal = primalPrefix(layout, &subAxes);
  if (kind < 0 || !primal) return nullptr;
  if (*primal != info.original) operand = layoutTransform(operand, info.original, *primal);
  return expandDims(operand, full, subAxes);
}

}  // namespace

bool carriesLayout(const std::string& op, size_t arity) {
  return (arity == 1 && (isUnaryElemwise(op) || isPool(op))) ||
         (arity == 2 && isBroadcastArith(op));
}

Expr LayoutRewriter::run(const Function& fn) {
  return rewriteBottomUp(fn, [this](const Expr& node, const std::vector<Expr>& children) {
    return visit(node, children);
  });
}

Expr LayoutRewriter::visit(const Expr& node, const std::vector<Expr>& children) {
  const auto* call = node->as<CallNode>();
  const auto* op = call ? call->op->as<OpNode>() : nullptr;
  if (op)
    if (Expr e = anchor_(*call, children, *this)) return e;
  if (op && tracked(children) && call->args.size() == 1 && isUnaryElemwise(op->name))
    return hold(withChildren(node, children), held_.at(children[1].get()).info);
  if (op && isBroadcastArith(op->name) && call->args.size() == 2)
    if (Expr e = convertBroadcast(*call, children)) return e;
  if (op && isPool(op->name) && tracked(children)) return convertPool(*call, op->name, children);
  // An unaware consumer: give it every input in the layout the original graph had.
  std::vector<Expr> restored;
  for (const Expr& child : children) restored.push_back(restore(child));
  return withChildren(node, restored);
}

/// The call's single data argument (children[1]) is held in a converted layout.
bool LayoutRewriter::tracked(const std::vector<Expr>& children) const {
  return children.size() == 2 && held_.count(children[1].get());
}

Expr LayoutRewriter::hold(Expr e, HeldLayout info) {
  held_[e.get()] = Held{e, std::move(info)};
  return e;
}

const HeldLayout* LayoutRewriter::heldLayout(const Expr& e) const {
  auto it = held_.find(e.get());
  return it == held_.end() ? nullptr : &it->second.info;
}

Expr LayoutRewriter::restore(const Expr& e) {
  auto it = held_.find(e.get());
  if (it == held_.end()) return e;
  auto done = restored_.find(e.get());
  if (done != restored_.end()) return done->second;
  Expr back = layoutTransform(e, it->second.info.layout, it->second.info.original);
  restored_[e.get()] = back;
  return back;
}

Expr LayoutRewriter::inLayout(const Expr& e, const std::string& original, const std::string& want) {
  const HeldLayout* held = heldLayout(e);
  if (held && held->original == original) {
    // Held in another blocking of the same original (NCHW16c where NCHW8c is wanted): one
    // transform between the two, not a round trip through the original.
    return held->layout == want ? e : layoutTransform(e, held->layout, want);
  }
  Expr plain = restore(e);
  return original == want ? plain : layoutTransform(plain, original, want);
}

/// Binary broadcast with a converted operand: the other operand follows it (see
/// broadcastOperand). Two operands held in different layouts fall back to restoring both.
Expr LayoutRewriter::convertBroadcast(const CallNode& call, const std::vector<Expr>& children) {
  const HeldLayout* lhs = heldLayout(children[1]);
  const HeldLayout* rhs = heldLayout(children[2]);
  if (!lhs && !rhs) return nullptr;
  if (lhs && rhs) {
    if (lhs->layout != rhs->layout || lhs->original != rhs->original) return nullptr;
    return hold(makeCall(children[0], {children[1], children[2]}, call.attrs, call.span), *lhs);
  }
  const HeldLayout info = lhs ? *lhs : *rhs;
  const size_t other = lhs ? 1 : 0;
  const TensorTypeNode* type = tensorType(call.args[other]);
  if (!type) return nullptr;
  Expr operand = broadcastOperand(children[other + 1], *type, info);
  if (!operand) return nullptr;
  std::vector<Expr> args = {children[1], children[2]};
  args[other] = operand;
  return hold(makeCall(children[0], args, call.attrs, call.span), info);
}

template <typename T>
Expr LayoutRewriter::retargetPool(const CallNode& call, const std::vector<Expr>& children) {
  const auto* attrs = attrsAs<T>(call.attrs.get());
  const HeldLayout info = *heldLayout(children[1]);
  if (!attrs || attrs->layout != info.original || !attrs->outLayout.empty())
    return makeCall(children[0], {restore(children[1])}, call.attrs, call.span);
  T changed = *attrs;
  changed.layout = info.layout;
  return hold(makeCall(children[0], {children[1]}, makeAttrs(changed), call.span), info);
}

Expr LayoutRewriter::convertPool(const CallNode& call, const std::string& name,
                                 const std::vector<Expr>& children) {
  if (name == "nn.max_pool2d") return retargetPool<nn::MaxPool2DAttrs>(call, children);
  if (name == "nn.avg_pool2d") return retargetPool<nn::AvgPool2DAttrs>(call, children);
  return retargetPool<nn::GlobalPool2DAttrs>(call, children);
}

}  // namespace tessera::relay
