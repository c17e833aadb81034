// Seed 000's composite patterns and WithVTAFunctionTransform (vta_composite.h). The conv
// pattern's optional parts follow the sibling pattern of the third-party project the seed's
// tooling comes from (spec vta.md §11): adds, activation and requantize tail may be absent.
#include "vta/graph/vta_composite.h"

#include "relay/transform/passes.h"
#include "relay/type_infer.h"
#include "relay/visit.h"

namespace tessera::vta {
namespace {

using namespace relay;

Pattern chain(Pattern p, std::initializer_list<const char*> ops) {
  for (const char* op : ops) p = isOp(op)({p});
  return p;
}

Pattern convPattern() {
  Pattern p = isOp("nn.conv2d")({wildcard(), wildcard()});
  p = p.optional([](const Pattern& x) { return isOp("add")({x, wildcard()}); });
  p = p.optional([](const Pattern& x) {
    return isOp("add")({chain(x, {"fixed_point_multiply", "cast"}), wildcard()});
  });
  p = p.optional([](const Pattern& x) { return isOp("nn.relu")({x}); });
  // The requantize tail: TVM 0.16's fixed-point form (seed 000) or the power-of-two form of
  // Tessera's default realize (round by adding half, shift right, clip).
  p = p.optional([](const Pattern& x) {
    const Pattern rounded = isOp("add")({x, isConstant()}) | x;
    return chain(x, {"cast", "fixed_point_multiply", "clip", "cast"}) |
           isOp("clip")({isOp("right_shift")({rounded, isConstant()})});
  });
  p = isOp("cast")({p});
  return p.optional([](const Pattern& x) { return isOp("annotation.stop_fusion")({x}); });
}

// The convolution's attributes inside a composite body (null when there is none).
Attrs convAttrsOf(const Function& fn) {
  Attrs found;
  postOrderVisit(fn->body, [&](const Expr& e) {
    const auto* call = e->as<CallNode>();
    const auto* op = call ? call->op->as<OpNode>() : nullptr;
    if (op && op->name == "nn.conv2d") found = call->attrs;
  });
  return found;
}

// Rebuilds each vta_conv2d composite called from `fn` with the extra attribute.
Function addConvAttrs(const Function& fn) {
  Expr body = rewriteBottomUp(fn->body, [](const Expr& node, const std::vector<Expr>& kids) {
    const Expr e = withChildren(node, kids);
    const auto composite = exprAs<FunctionNode>(e);
    const AttrValue* name = composite ? composite->attrs.find("Composite") : nullptr;
    if (!name || name->asString() != "vta_conv2d") return e;
    const Attrs conv = convAttrsOf(composite);
    if (!conv) return e;
    DictAttrs attrs = composite->attrs;
    attrs.set("ConvAttrs", AttrValue::attrs(conv));
    return Expr(makeFunction(composite->params, composite->body, composite->retType, attrs,
                             composite->span));
  });
  return makeFunction(fn->params, body, fn->retType, fn->attrs, fn->span);
}

}  // namespace

PatternTable vtaPatternTable() {
  const Pattern preprocessing =
      chain(isOp("multiply")({wildcard(), isConstant()}), {"round", "clip", "cast"});
  const Pattern reshaped =
      isOp("reshape")({isOp("nn.pad")({wildcard(), wildcard()})}) | isOp("reshape")({wildcard()});
  const Pattern reshapeTranspose = isOp("transpose")({reshaped}).optional([](const Pattern& x) {
    return isOp("broadcast_to")({x});
  });
  const Pattern output = isOp("multiply")({isOp("cast")({wildcard()}), isConstant()});
  return {{"vta_preprocessing", preprocessing},
          {"vta_reshape_transpose", reshapeTranspose},
          {"vta_conv2d", convPattern()},
          {"vta_output", output}};
}

Pass withVtaFunctionTransformPass() {
  return makeModulePass({"WithVTAFunctionTransform", 0, {}}, [](IRModule module, PassContext&) {
    IRModule out = module;
    out.add("main", addConvAttrs(module.main()));
    return liftCompositeFunctions(inferTypes(out));
  });
}

Pass vtaCompositePass() {
  return sequential({inferTypePass(), foldConstantPass(), mergeCompositePass(vtaPatternTable()),
                     withVtaFunctionTransformPass(), inferTypePass()},
                    "VTACompositeTransform");
}

}  // namespace tessera::vta
