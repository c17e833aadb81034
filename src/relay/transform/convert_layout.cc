// ConvertLayout (TVM's convert_layout.cc, simplified): rewrites nn.conv2d to a desired data/kernel
// layout and carries that layout through layout-agnostic consumers, so that a chain of convs pays
// one layout_transform at its input and one where an unaware consumer (or the function's result)
// needs the original layout back (the propagation is relay/transform/layout_rewriter.h's).
// Only primal layouts (NCHW, NHWC, ...) and groups == 1 convs without out_layout are converted.
#include <algorithm>

#include "relay/builder.h"
#include "relay/op/nn.h"
#include "relay/op/tensor.h"
#include "relay/op_registry.h"
#include "relay/transform/layout_rewriter.h"
#include "relay/transform/passes.h"
#include "relay/type_infer.h"

namespace tessera::relay {
namespace {

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

/// ConvertLayout's anchor rule: nn.conv2d to the desired layouts.
Expr convertConv(const DesiredLayouts& desired, const CallNode& call,
                 const std::vector<Expr>& children, LayoutRewriter& rewriter) {
  const auto* op = call.op->as<OpNode>();
  auto want = desired.find("nn.conv2d");
  if (op->name != "nn.conv2d" || want == desired.end() || want->second.empty()) return nullptr;
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
  Expr data = rewriter.inLayout(children[1], attrs->dataLayout, dataLayout);
  Expr weight = rewriter.inLayout(children[2], attrs->kernelLayout, kernelLayout);
  nn::Conv2DAttrs changed = *attrs;
  changed.dataLayout = dataLayout;
  changed.kernelLayout = kernelLayout;
  Expr conv = makeCall(children[0], {data, weight}, makeAttrs(changed), call.span);
  if (dataLayout == attrs->dataLayout) return conv;
  return rewriter.hold(conv, HeldLayout{dataLayout, attrs->dataLayout});
}

}  // namespace

Function convertLayout(const Function& fn, const DesiredLayouts& desired) {
  const Function typed = fn->body->checkedType ? fn : exprAs<FunctionNode>(inferExprTypes(fn));
  LayoutRewriter rewriter(
      [&desired](const CallNode& call, const std::vector<Expr>& children, LayoutRewriter& self) {
        return convertConv(desired, call, children, self);
      });
  return exprAs<FunctionNode>(rewriter.run(typed));
}

Pass convertLayoutPass(DesiredLayouts desired) {
  return makeFunctionPass(
      PassInfo{"ConvertLayout", 3, {"InferType"}},
      [desired = std::move(desired)](const Function& fn, const IRModule&, PassContext&) {
        return convertLayout(fn, desired);
      });
}

}  // namespace tessera::relay
