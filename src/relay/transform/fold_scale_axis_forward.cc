// ForwardFoldScaleAxis (TVM's fold_scale_axis.cc, forward half): a per-channel multiply whose
// result reaches a conv2d/dense only through relu/add/subtract is dropped and the scale is applied
// to the weights' input-channel axis instead. Requires InferType. Unblocked layouts, groups == 1.
#include <optional>
#include <unordered_map>

#include "relay/transform/fold_scale_axis_util.h"
#include "relay/transform/passes.h"
#include "relay/type_infer.h"
#include "relay/visit.h"

namespace tessera::relay {
namespace {

using namespace scale_axis;  // NOLINT: the helpers are this pass's vocabulary

using MaybeMessage = std::optional<Message>;

/// The meet of two consumers' requests: common axes, positive if either needs it.
MaybeMessage intersect(const MaybeMessage& a, const MaybeMessage& b) {
  if (!a || !b) return std::nullopt;
  std::vector<int64_t> axes;
  std::set_intersection(a->axes.begin(), a->axes.end(), b->axes.begin(), b->axes.end(),
                        std::back_inserter(axes));
  if (axes.empty()) return std::nullopt;
  return Message{axes, a->requirePositive || b->requirePositive};
}

/// FScaleAxisForwardPrep: what a call asks of each argument, given what its consumers ask of it.
std::vector<MaybeMessage> forwardPrep(const CallNode& call, const MaybeMessage& out) {
  std::vector<MaybeMessage> in(call.args.size());
  const std::string& name = call.op->as<OpNode>()->name;
  if (name == "nn.conv2d") {
    const auto& a = *attrsAs<nn::Conv2DAttrs>(call.attrs.get());
    if (auto c = convChannelAxis(a, a.dataLayout)) in[0] = Message{{*c}, false};
  } else if (name == "nn.dense") {
    // The input channel axis is the data's last, whatever its rank (axis 1 only for 2-D data).
    if (const TensorTypeNode* data = tensorOf(call.args[0]); data && data->ndim() > 0)
      in[0] = Message{{data->ndim() - 1}, false};
  } else if ((name == "nn.relu" || name == "nn.leaky_relu") && out) {
    in[0] = Message{out->axes, true};
  } else if ((name == "add" || name == "subtract") && out) {
    if (matchAxes(call.args[0], call.args[1], out->axes))
      in[0] = out;
    else if (matchAxes(call.args[1], call.args[0], out->axes))
      in[1] = out;
  }
  return in;
}

/// A value that still has to be multiplied by `scale` along `axes` (TVM's ScaledExpr).
struct Scaled {
  std::vector<int64_t> axes;
  Expr scale;
};

class ForwardFolder {
 public:
  Expr run(const Function& fn) {
    prepare(fn->body);
    Expr body = rewriteBottomUp(fn->body, [&](const Expr& node, const std::vector<Expr>& kids) {
      return rewrite(node, withChildren(node, kids));
    });
    return realize(fn->body, body);
  }

 private:
  void prepare(const Expr& body) {
    const std::vector<Expr> order = postOrder(body);
    // Parents come first in reverse post order, so a node's message is final when it is reached.
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      const Expr& e = *it;
      const auto* call =
          callOf(e, {"nn.conv2d", "nn.dense", "nn.relu", "nn.leaky_relu", "add", "subtract"});
      std::vector<Expr> children = exprChildren(e);
      std::vector<MaybeMessage> sent(children.size());  // consumers without a rule send none
      if (call) {
        const std::vector<MaybeMessage> in = forwardPrep(*call, messageOf(e));
        std::copy(in.begin(), in.end(), sent.begin() + 1);  // child 0 is the callee
      }
      for (size_t i = 0; i < children.size(); ++i) {
        auto [slot, first] = msgs_.try_emplace(children[i].get(), sent[i]);
        if (!first) slot->second = intersect(slot->second, sent[i]);
      }
    }
  }

  MaybeMessage messageOf(const Expr& e) const {
    auto it = msgs_.find(e.get());
    return it == msgs_.end() ? std::nullopt : it->second;
  }

  /// `value` times its pending scale, when `original` was rewritten into a scaled value.
  Expr realize(const Expr& original, const Expr& value) const {
    auto it = scaled_.find(original.get());
    if (it == scaled_.end()) return value;
    const int ndim = tensorOf(original)->ndim();
    return multiply(value, expandTo(it->second.scale, ndim, it->second.axes[0]));
  }

  Expr rewrite(const Expr& node, const Expr& rebuilt) {
    const auto* orig = node->as<CallNode>();
    const auto* call = rebuilt->as<CallNode>();
    if (!orig || !call || !call->op->as<OpNode>()) return rebuiltRealized(node, rebuilt);
    const std::vector<Expr>& oargs = orig->args;
    std::vector<Expr> args = call->args;
    const auto sc = [&](size_t i) {
      return scaled_.count(oargs[i].get()) ? &scaled_.at(oargs[i].get()) : nullptr;
    };
    const MaybeMessage m = messageOf(node);
    if (callOf(node, {"multiply"}) && m && !sc(0) && !sc(1)) {
      for (int side = 0; side < 2; ++side) {
        // Only a constant scale: a scale computed at run time (a squeeze-excitation gate) would
        // multiply the whole weight on every inference instead of the activations, and the
        // weight could no longer be packed ahead of time.
        if (!oargs[1 - side]->as<ConstantNode>()) continue;
        Expr s = args[1 - side];
        if (!matchAxes(oargs[side], oargs[1 - side], m->axes, &s)) continue;
        if (m->requirePositive && !allPositiveConstant(oargs[1 - side])) continue;
        scaled_[node.get()] = Scaled{m->axes, s};
        return args[side];  // the multiply disappears; its consumers absorb the scale
      }
    }
    if (callOf(node, {"nn.relu", "nn.leaky_relu"}) && sc(0)) {
      scaled_[node.get()] = *sc(0);
      return rebuilt;
    }
    if (callOf(node, {"add", "subtract"}) && m && (sc(0) != nullptr) != (sc(1) != nullptr)) {
      const size_t s = sc(0) ? 0 : 1;
      const Scaled info = *sc(s);
      // x*s + y == (x + y/s) * s: the unscaled side is divided so the scale can move on.
      args[1 - s] =
          divide(args[1 - s], expandTo(info.scale, tensorOf(oargs[s])->ndim(), info.axes[0]));
      scaled_[node.get()] = info;
      return makeCall(call->op, std::move(args), call->attrs, call->span);
    }
    if (callOf(node, {"nn.conv2d"}) && sc(0) && !sc(1)) {
      const auto& a = *attrsAs<nn::Conv2DAttrs>(call->attrs.get());
      args[1] = scaleWeight(args[1], a, 'I', sc(0)->scale);
      return makeCall(call->op, std::move(args), call->attrs, call->span);
    }
    if (callOf(node, {"nn.dense"}) && sc(0) && !sc(1)) {
      args[1] = multiply(args[1], sc(0)->scale);  // (units, in) * (in): along the input axis
      return makeCall(call->op, std::move(args), call->attrs, call->span);
    }
    return rebuiltRealized(node, rebuilt);
  }

  /// Any consumer without a rule gets its scaled arguments multiplied back.
  Expr rebuiltRealized(const Expr& node, const Expr& rebuilt) const {
    const std::vector<Expr> oldKids = exprChildren(node);
    std::vector<Expr> kids = exprChildren(rebuilt);
    bool changed = false;
    for (size_t i = 0; i < kids.size(); ++i) {
      Expr r = realize(oldKids[i], kids[i]);
      changed |= r != kids[i];
      kids[i] = r;
    }
    return changed ? withChildren(rebuilt, kids) : rebuilt;
  }

  std::unordered_map<const ExprNode*, MaybeMessage> msgs_;
  std::unordered_map<const ExprNode*, Scaled> scaled_;
};

}  // namespace

Pass forwardFoldScaleAxisPass() {
  return makeFunctionPass(PassInfo{"ForwardFoldScaleAxis", 3, {"InferType"}}, [](const Function& fn,
                                                                                 const IRModule&,
                                                                                 PassContext&) {
    const Function typed = fn->body->checkedType ? fn : exprAs<FunctionNode>(inferExprTypes(fn));
    Expr body = ForwardFolder().run(typed);
    return makeFunction(typed->params, std::move(body), typed->retType, typed->attrs, typed->span);
  });
}

}  // namespace tessera::relay
