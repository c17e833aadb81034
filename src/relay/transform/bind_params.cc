// BindParams (TVM's BindParamsByName): replaces named parameters of `main` by constants and drops
// them from the parameter list, so FoldConstant can fold the weights into the graph.
#include <map>
#include <unordered_map>

#include "relay/transform/passes.h"
#include "relay/type_infer.h"
#include "relay/visit.h"
#include "support/diagnostic.h"

namespace tessera::relay {

Function bindParams(const Function& fn, const std::map<std::string, NDArray>& params) {
  std::unordered_map<const ExprNode*, Expr> bound;
  std::map<std::string, const VarNode*> byName;
  std::vector<Var> kept;
  for (const Var& p : fn->params) {
    if (!params.count(p->nameHint)) {
      kept.push_back(p);
      continue;
    }
    // TVM refuses to guess which of two same-named parameters a value is meant for.
    if (byName.count(p->nameHint))
      throwDiagnostic("bind_params_duplicate",
                      "multiple parameters named '" + p->nameHint + "' in main");
    byName[p->nameHint] = p.get();
    bound[p.get()] = makeConstant(params.at(p->nameHint));
  }
  if (bound.empty()) return fn;  // names not found are ignored, as in TVM
  Expr body = replaceNodes(fn->body, bound);
  return makeFunction(std::move(kept), std::move(body), fn->retType, fn->attrs, fn->span);
}

IRModule bindParams(const IRModule& module, const std::map<std::string, NDArray>& params) {
  IRModule result = module;
  result.add("main", bindParams(module.main(), params));
  return inferTypes(result);
}

Pass bindParamsPass(std::map<std::string, NDArray> params) {
  return makeModulePass(PassInfo{"BindParams", 0, {}},
                        [params = std::move(params)](const IRModule& m, PassContext&) {
                          return bindParams(m, params);
                        });
}

}  // namespace tessera::relay
