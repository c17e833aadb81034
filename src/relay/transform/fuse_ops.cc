// FuseOps (spec §4.11): groups op calls by post-dominator analysis (graph_partitioner.cc) and
// outlines each group as a `Primitive=1` function with parameters p0, p1, ...
// (fuse_ops_rewrite.cc). Fusion is off at opt level 0.
#include "relay/transform/fuse_ops_internal.h"
#include "relay/transform/passes.h"
#include "relay/type_infer.h"

namespace tessera::relay {

Expr fuseOps(const Expr& body, int optLevel, int maxDepth) {
  const FusionGroups groups = partitionForFusion(body, optLevel, maxDepth);
  return outlineFusedGroups(body, groups.nodeRefs, groups.groupOf, groups.groupRoot);
}

Pass fuseOpsPass() {
  return makeFunctionPass({"FuseOps", 0, {"InferType"}}, [](const Function& fn, const IRModule&,
                                                            PassContext& ctx) {
    if (fn->attrs.has("Primitive")) return fn;
    // Edge patterns compare shapes, so the function must be typed (TVM requires InferType).
    const Function typed = fn->body->checkedType ? fn : exprAs<FunctionNode>(inferExprTypes(fn));
    const AttrValue depth = ctx.configValue("relay.FuseOps.max_depth", AttrValue::integer(256));
    const Expr body = fuseOps(typed->body, ctx.optLevel, static_cast<int>(depth.asInt()));
    return makeFunction(typed->params, body, typed->retType, typed->attrs, typed->span);
  });
}

}  // namespace tessera::relay
