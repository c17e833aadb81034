// MergeComposite: one partition per pattern-table row, in table order, over every function that is
// not itself a composite or primitive; and the lifting of composites to named globals.
#include "relay/transform/merge_composite.h"

#include "relay/transform/passes.h"
#include "relay/type_infer.h"
#include "relay/visit.h"

namespace tessera::relay {
namespace {

// Functions produced by earlier partitioning (or fusion) are left alone, as in TVM.
bool isOutlined(const Function& fn) {
  return fn->attrs.has("Composite") || fn->attrs.has("Primitive") || fn->attrs.has("Compiler");
}

}  // namespace

Function mergeComposite(const Function& fn, const PatternTable& table) {
  Expr body = fn->body;
  for (const auto& [name, pattern] : table) {
    DictAttrs attrs;
    attrs.set("Composite", AttrValue::string(name));
    body = partition(pattern, body, attrs);
  }
  if (body == fn->body) return fn;
  return makeFunction(fn->params, body, fn->retType, fn->attrs, fn->span);
}

Pass mergeCompositePass(PatternTable table) {
  return makeModulePass({"MergeComposite", 0, {"InferType"}},
                        [table](const IRModule& module, PassContext&) {
                          IRModule out = module;
                          for (const auto& [name, fn] : module.functions()) {
                            if (!isOutlined(fn)) out.add(name, mergeComposite(fn, table));
                          }
                          return inferTypes(out);
                        });
}

Pass mergeCompositePass() {
  return mergeCompositePass({});
}

IRModule liftCompositeFunctions(const IRModule& module) {
  IRModule out = module;
  int counter = 0;
  const Function& main = module.main();
  // Only main's own dataflow: composites never nest in what MergeComposite produces.
  Expr body = rewriteBottomUp(main->body, [&](const Expr& node, const std::vector<Expr>& kids) {
    Expr e = withChildren(node, kids);
    const auto* call = e->as<CallNode>();
    if (!call) return e;
    const auto fn = exprAs<FunctionNode>(call->op);
    if (!fn || !fn->attrs.has("Composite")) return e;
    const std::string name =
        fn->attrs.find("Composite")->asString() + "__" + std::to_string(counter++);
    Type retType = fn->retType ? fn->retType : fn->body->checkedType;
    out.add(name, makeFunction(fn->params, fn->body, retType, fn->attrs, fn->span));
    return makeCall(out.globalVar(name), call->args, call->attrs, call->span);
  });
  out.add("main", makeFunction(main->params, body, main->retType, main->attrs, main->span));
  return inferTypes(out);
}

}  // namespace tessera::relay
