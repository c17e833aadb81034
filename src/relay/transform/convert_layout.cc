// ConvertLayout (TVM's convert_layout.cc, simplified): rewrites nn.conv2d to a desired data/kernel
// layout and carries that layout through layout-agnostic consumers, so that a chain of convs pays
// one layout_transform at its input and one where an unaware consumer (or the function's result)
// needs the original layout back. Requires InferType (broadcast operands need their rank).
//
// What propagates: unary kElemWise ops (nn.relu, ...); add/subtract/multiply/divide/maximum/minimum
// whose other operand is a scalar or a rank <= 4 tensor (expanded to rank 4, then transformed);
// max/avg/global pools (their `layout` attr follows). Only primal layouts (NCHW, NHWC, ...) and
// groups == 1 convs without out_layout are converted; everything else gets its inputs restored.
#include <algorithm>
#include <unordered_map>

#include "relay/builder.h"
#include "relay/op/nn.h"
#include "relay/op/tensor.h"
#include "relay/op_registry.h"
#include "relay/transform/passes.h"
#include "relay/type_infer.h"
#include "relay/visit.h"

namespace tessera::relay {
namespace {

/// A rewritten node whose value is in `layout` where the original graph had `original`.
struct Converted {
  Expr keepAlive;  // pins the node so its address is not reused while it is a map key
  std::string layout;
  std::string original;
};

bool isPrimalLayout(const std::string& layout) {
  if (layout.empty()) return false;
  for (char c : layout)
    if (c < 'A' || c > 'Z') return false;
  return true;
}

/// Two primal layouts name the same axes (so layout_transform is a permutation).
bool samePrimalAxes(const std::string& a, const std::string& b) {
  if (!isPrimalLayout(a) || !isPrimalLayout(b) || a.size() != b.size()) return false;
  std::string sa = a, sb = b;
  std::sort(sa.begin(), sa.end());
  std::sort(sb.begin(), sb.end());
  return sa == sb;
}

/// TVM's "default" kernel layout for a data layout.
std::string defaultKernelLayout(const std::string& dataLayout) {
  if (dataLayout == "NHWC") return "HWIO";
  if (dataLayout == "NCHW") return "OIHW";
  return {};
}

bool isBroadcastArith(const std::string& name) {
  return name == "add" || name == "subtract" || name == "multiply" || name == "divide" ||
         name == "maximum" || name == "minimum";
}

bool isPool(const std::string& name) {
  return name == "nn.max_pool2d" || name == "nn.avg_pool2d" || name == "nn.global_avg_pool2d" ||
         name == "nn.global_max_pool2d";
}

int tensorRank(const Expr& e) {
  const auto* ty = e->checkedType ? e->checkedType->as<TensorTypeNode>() : nullptr;
  return ty ? ty->ndim() : -1;
}

class LayoutConverter {
 public:
  explicit LayoutConverter(const DesiredLayouts& desired) : desired_(desired) {}

  Expr run(const Function& fn) {
    return rewriteBottomUp(fn, [this](const Expr& node, const std::vector<Expr>& children) {
      return visit(node, children);
    });
  }

 private:
  Expr visit(const Expr& node, const std::vector<Expr>& children) {
    const auto* call = node->as<CallNode>();
    const auto* op = call ? call->op->as<OpNode>() : nullptr;
    if (op && op->name == "nn.conv2d")
      if (Expr e = convertConv(*call, children)) return e;
    if (op && tracked(children) && call->args.size() == 1 && isUnaryElemwise(op->name))
      return keep(withChildren(node, children), converted_.at(children[1].get()));
    if (op && isBroadcastArith(op->name) && call->args.size() == 2)
      if (Expr e = convertBroadcast(*call, children)) return e;
    if (op && isPool(op->name) && tracked(children)) return convertPool(*call, op->name, children);
    // An unaware consumer: give it every input in the layout the original graph had.
    std::vector<Expr> restored;
    for (const Expr& child : children) restored.push_back(restore(child));
    return withChildren(node, restored);
  }

  /// The call's single data argument (children[1]) carries a converted layout.
  bool tracked(const std::vector<Expr>& children) const {
    return children.size() == 2 && converted_.count(children[1].get());
  }

  static bool isUnaryElemwise(const std::string& name) {
    const OpDef* def = OpRegistry::global().find(name);
    return def && def->pattern == OpPattern::kElemWise;
  }

  Expr keep(Expr e, Converted info) {
    info.keepAlive = e;
    converted_[e.get()] = std::move(info);
    return e;
  }

  /// `e` back in its original layout; one transform per node however many consumers need it.
  Expr restore(const Expr& e) {
    auto it = converted_.find(e.get());
    if (it == converted_.end()) return e;
    auto done = restored_.find(e.get());
    if (done != restored_.end()) return done->second;
    Expr back = layoutTransform(e, it->second.layout, it->second.original);
    restored_[e.get()] = back;
    return back;
  }

  Expr convertConv(const CallNode& call, const std::vector<Expr>& children) {
    auto want = desired_.find("nn.conv2d");
    if (want == desired_.end() || want->second.empty()) return nullptr;
    const auto* attrs = attrsAs<nn::Conv2DAttrs>(call.attrs.get());
    const std::string& dataLayout = want->second[0];
    std::string kernelLayout = want->second.size() > 1 ? want->second[1] : "default";
    if (kernelLayout == "default") kernelLayout = defaultKernelLayout(dataLayout);
    // Grouped convs would need HWOI-style kernels, and out_layout a second conversion.
    if (!attrs || attrs->groups != 1 || !attrs->outLayout.empty()) return nullptr;
    if (!samePrimalAxes(attrs->dataLayout, dataLayout) ||
        !samePrimalAxes(attrs->kernelLayout, kernelLayout))
      return nullptr;
    if (attrs->dataLayout == dataLayout && attrs->kernelLayout == kernelLayout) return nullptr;
    Expr data = children[1];
    auto in = converted_.find(data.get());
    const bool reuse = in != converted_.end() && in->second.layout == dataLayout &&
                       in->second.original == attrs->dataLayout;
    if (!reuse) {
      data = restore(data);
      if (attrs->dataLayout != dataLayout)
        data = layoutTransform(data, attrs->dataLayout, dataLayout);
    }
    Expr weight = restore(children[2]);
    if (attrs->kernelLayout != kernelLayout)
      weight = layoutTransform(weight, attrs->kernelLayout, kernelLayout);
    nn::Conv2DAttrs changed = *attrs;
    changed.dataLayout = dataLayout;
    changed.kernelLayout = kernelLayout;
    Expr conv = makeCall(children[0], {data, weight}, makeAttrs(changed), call.span);
    if (dataLayout == attrs->dataLayout) return conv;
    return keep(conv, Converted{nullptr, dataLayout, attrs->dataLayout});
  }

  /// Binary broadcast with one converted operand: the other operand is brought to rank 4 (numpy
  /// broadcasting aligns trailing axes, so leading unit axes do not change the result) and permuted
  /// the same way. Two operands in different layouts fall back to restoring both.
  Expr convertBroadcast(const CallNode& call, const std::vector<Expr>& children) {
    auto lhs = converted_.find(children[1].get());
    auto rhs = converted_.find(children[2].get());
    if (lhs == converted_.end() && rhs == converted_.end()) return nullptr;
    if (lhs != converted_.end() && rhs != converted_.end()) {
      if (lhs->second.layout != rhs->second.layout || lhs->second.original != rhs->second.original)
        return nullptr;
      return keep(makeCall(children[0], {children[1], children[2]}, call.attrs, call.span),
                  lhs->second);
    }
    const bool lhsConverted = lhs != converted_.end();
    const Converted info = lhsConverted ? lhs->second : rhs->second;
    const size_t other = lhsConverted ? 1 : 0;
    const int rank = tensorRank(call.args[other]);
    if (rank < 0 || rank > static_cast<int>(info.layout.size())) return nullptr;
    Expr operand = children[other + 1];
    if (rank > 0) {
      const int full = static_cast<int>(info.layout.size());
      if (rank < full) operand = expandDims(operand, 0, full - rank);
      operand = layoutTransform(operand, info.original, info.layout);
    }
    std::vector<Expr> args = {children[1], children[2]};
    args[other] = operand;
    return keep(makeCall(children[0], args, call.attrs, call.span), info);
  }

  template <typename T>
  Expr retargetPool(const CallNode& call, const std::vector<Expr>& children) {
    const auto* attrs = attrsAs<T>(call.attrs.get());
    const Converted& info = converted_.at(children[1].get());
    if (!attrs || attrs->layout != info.original || !attrs->outLayout.empty())
      return makeCall(children[0], {restore(children[1])}, call.attrs, call.span);
    T changed = *attrs;
    changed.layout = info.layout;
    return keep(makeCall(children[0], {children[1]}, makeAttrs(changed), call.span), info);
  }

  Expr convertPool(const CallNode& call, const std::string& name,
                   const std::vector<Expr>& children) {
    if (name == "nn.max_pool2d") return retargetPool<nn::MaxPool2DAttrs>(call, children);
    if (name == "nn.avg_pool2d") return retargetPool<nn::AvgPool2DAttrs>(call, children);
    return retargetPool<nn::GlobalPool2DAttrs>(call, children);
  }

  const DesiredLayouts& desired_;
  std::unordered_map<const ExprNode*, Converted> converted_;
  std::unordered_map<const ExprNode*, Expr> restored_;
};

}  // namespace

Function convertLayout(const Function& fn, const DesiredLayouts& desired) {
  const Function typed = fn->body->checkedType ? fn : exprAs<FunctionNode>(inferExprTypes(fn));
  return exprAs<FunctionNode>(LayoutConverter(desired).run(typed));
}

Pass convertLayoutPass(DesiredLayouts desired) {
  return makeFunctionPass(
      PassInfo{"ConvertLayout", 3, {"InferType"}},
      [desired = std::move(desired)](const Function& fn, const IRModule&, PassContext&) {
        return convertLayout(fn, desired);
      });
}

}  // namespace tessera::relay
