// FoldScaleAxis (TVM's fold_scale_axis.cc): moves a per-channel multiply by a constant into the
// weights of the adjacent conv2d/dense. Backward: conv -> [bias_add|add|relu]* -> multiply(s).
// Forward: multiply(s) -> [relu]* -> conv. FoldConstant then merges the scaled weights. Requires
// InferType. Supported: unblocked layouts with groups == 1 (blocked/depthwise send no message).
#include <unordered_map>

#include "relay/transform/fold_scale_axis_util.h"
#include "relay/transform/passes.h"
#include "relay/type_infer.h"
#include "relay/visit.h"

namespace tessera::relay {
namespace {

using namespace scale_axis;  // NOLINT: the helpers are this pass's vocabulary

/// Number of parents of each node (the body counts as referenced once by the function).
std::unordered_map<const ExprNode*, int> refCounts(const Function& fn) {
  std::unordered_map<const ExprNode*, int> refs{{fn->body.get(), 1}};
  postOrderVisit(fn->body, [&](const Expr& e) {
    for (const Expr& c : exprChildren(e)) ++refs[c.get()];
  });
  return refs;
}

// --- backward --------------------------------------------------------------------------------

/// FScaleAxisBackwardPrep: the message a call sends to a scale multiplying its output.
std::optional<Message> backwardPrep(const CallNode& call, const Messages& msgs) {
  const auto in = [&](size_t i) -> const Message* {
    auto it = msgs.find(call.args[i].get());
    return it == msgs.end() ? nullptr : &it->second;
  };
  const std::string& name = call.op->as<OpNode>()->name;
  if (name == "nn.conv2d") {
    const auto& a = *attrsAs<nn::Conv2DAttrs>(call.attrs.get());
    if (auto c = convChannelAxis(a, a.outLayout)) return Message{{*c}, false};
    return std::nullopt;
  }
  // The output channel axis of dense is its last one, whatever the data's rank.
  if (name == "nn.dense") {
    const auto* out = call.checkedType ? call.checkedType->as<TensorTypeNode>() : nullptr;
    if (!out || out->ndim() == 0) return std::nullopt;
    return Message{{out->ndim() - 1}, false};
  }
  if ((name == "nn.relu" || name == "nn.leaky_relu") && in(0)) return Message{in(0)->axes, true};
  if (name == "nn.bias_add" && in(0) && in(0)->axes.size() == 1) {
    const int ndim = tensorOf(call.args[0])->ndim();
    int64_t axis = attrsAs<nn::BiasAddAttrs>(call.attrs.get())->axis;
    if (axis < 0) axis += ndim;
    if (in(0)->axes[0] == axis) return *in(0);
  }
  if (name == "add" || name == "subtract") {
    const Expr &lhs = call.args[0], &rhs = call.args[1];
    if (in(0) && matchAxes(lhs, rhs, in(0)->axes)) return *in(0);
    if (in(1) && matchAxes(rhs, lhs, in(1)->axes)) return *in(1);
    if (in(0) && in(1) && in(0)->axes == in(1)->axes &&
        tensorOf(lhs)->shape == tensorOf(rhs)->shape)
      return *in(0);
  }
  return std::nullopt;
}

Function backwardFold(const Function& fn) {
  const auto refs = refCounts(fn);
  const std::vector<Expr> order = postOrder(fn->body);
  Messages msgs;
  for (const Expr& e : order) {
    // Only a value with a single consumer can have its scale moved into its producer.
    const auto* call = callOf(
        e, {"nn.conv2d", "nn.dense", "nn.relu", "nn.leaky_relu", "nn.bias_add", "add", "subtract"});
    if (!call || refs.at(e.get()) != 1) continue;
    if (auto m = backwardPrep(*call, msgs)) msgs[e.get()] = *m;
  }
  // Top-down: decide which multiplies fold and hand their scale down the single-use chain.
  std::unordered_map<const ExprNode*, Expr> pending;  // node -> scale it must absorb
  std::unordered_map<const ExprNode*, Expr> replacedBy;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const Expr& e = *it;
    const auto* call = e->as<CallNode>();
    if (!call) continue;
    if (callOf(e, {"multiply"})) {
      for (int side = 0; side < 2; ++side) {
        auto m = msgs.find(call->args[side].get());
        if (m == msgs.end()) continue;
        // Only a constant scale (see ForwardFoldScaleAxis): a run-time one would be applied to
        // the whole weight on every inference.
        if (!call->args[1 - side]->as<ConstantNode>()) break;
        Expr s = call->args[1 - side];
        if (!matchAxes(call->args[side], s, m->second.axes, &s)) break;
        if (m->second.requirePositive && !allPositiveConstant(call->args[1 - side])) break;
        pending[call->args[side].get()] = s;
        replacedBy[e.get()] = call->args[side];
        break;
      }
      continue;
    }
    auto p = pending.find(e.get());
    if (p == pending.end() || callOf(e, {"nn.conv2d", "nn.dense"})) continue;
    for (const Expr& arg : call->args)  // relu, bias_add (data only), add/sub (sides w/ messages)
      if (msgs.count(arg.get()) && (arg == call->args[0] || !callOf(e, {"nn.bias_add"})))
        pending[arg.get()] = p->second;
  }
  Expr body = rewriteBottomUp(fn->body, [&](const Expr& node, const std::vector<Expr>& kids) {
    Expr rebuilt = withChildren(node, kids);
    if (auto r = replacedBy.find(node.get()); r != replacedBy.end()) {
      const auto* mul = node->as<CallNode>();
      return rebuilt->as<CallNode>()->args[r->second == mul->args[0] ? 0 : 1];
    }
    auto p = pending.find(node.get());
    if (p == pending.end()) return rebuilt;
    const auto* call = rebuilt->as<CallNode>();
    const Expr& s = p->second;
    std::vector<Expr> args = call->args;
    if (callOf(node, {"nn.conv2d"})) {
      args[1] = scaleWeight(args[1], *attrsAs<nn::Conv2DAttrs>(call->attrs.get()), 'O', s);
    } else if (callOf(node, {"nn.dense"})) {
      args[1] = multiply(args[1], expandDims(s, 1, 1));
    } else if (callOf(node, {"nn.bias_add"})) {
      args[1] = multiply(args[1], s);
    } else if (callOf(node, {"add", "subtract"})) {
      const Message& m = msgs.at(node.get());
      const auto* orig = node->as<CallNode>();
      for (int i = 0; i < 2; ++i)  // the side without a message is scaled explicitly
        if (!msgs.count(orig->args[i].get()))
          args[i] = multiply(args[i], expandTo(s, tensorOf(orig->args[1 - i])->ndim(), m.axes[0]));
    }
    return makeCall(call->op, std::move(args), call->attrs, call->span);
  });
  return makeFunction(fn->params, std::move(body), fn->retType, fn->attrs, fn->span);
}

}  // namespace

Pass backwardFoldScaleAxisPass() {
  return makeFunctionPass(PassInfo{"BackwardFoldScaleAxis", 3, {"InferType"}},
                          [](const Function& fn, const IRModule&, PassContext&) {
                            const Function typed = fn->body->checkedType
                                                       ? fn
                                                       : exprAs<FunctionNode>(inferExprTypes(fn));
                            return backwardFold(typed);
                          });
}

Pass foldScaleAxisPass() {
  return sequential({backwardFoldScaleAxisPass(), forwardFoldScaleAxisPass(), foldConstantPass()},
                    "FoldScaleAxis", 3);
}

}  // namespace tessera::relay
