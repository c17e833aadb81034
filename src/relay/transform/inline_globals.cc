// InlineGlobalCalls (relay/transform/passes.h): @main's calls of other global functions replaced
// by the callees' bodies, so that build(), which compiles @main alone, takes a module split into
// functions (relay.quantize's partition_conversions makes one: @quantize_inputs, @quantized_main,
// @dequantize_outputs).
#include <algorithm>
#include <unordered_map>

#include "relay/transform/passes.h"
#include "relay/type_infer.h"
#include "relay/visit.h"
#include "support/diagnostic.h"

namespace tessera::relay {
namespace {

// A call's arguments bound to the callee's parameters in a copy of its body (its own calls of
// globals inlined first, `depth` levels down at most).
Expr inlineCalls(const Expr& body, const IRModule& module, int depth) {
  return rewriteBottomUp(body, [&](const Expr& node, const std::vector<Expr>& children) {
    const auto* call = node->as<CallNode>();
    const auto* global = call ? call->op->as<GlobalVarNode>() : nullptr;
    if (!global) return withChildren(node, children);
    const Function& callee = module.lookup(global->name);
    // A function partitioned for a device's code generator (Composite, Compiler) stays a call:
    // compiling it for the CPU instead is not what its caller asked for.
    if (callee->attrs.has("Composite") || callee->attrs.has("Compiler"))
      return withChildren(node, children);
    if (depth > 64)
      throwDiagnostic("inline", "@" + global->name + " calls itself (recursion is not inlined)",
                      node->span);
    std::unordered_map<const ExprNode*, Expr> args;
    // children: the callee, then the arguments.
    for (size_t i = 0; i < callee->params.size() && i + 1 < children.size(); ++i)
      args[callee->params[i].get()] = children[i + 1];
    Expr inlined = inlineCalls(callee->body, module, depth + 1);
    return rewriteBottomUp(inlined, [&](const Expr& n, const std::vector<Expr>& c) {
      auto it = args.find(n.get());
      return it != args.end() ? it->second : withChildren(n, c);
    });
  });
}

}  // namespace

IRModule inlineGlobalCalls(const IRModule& module) {
  const Function& main = module.main();
  const Expr body = inlineCalls(main->body, module, 0);
  if (body == main->body) return module;
  IRModule out = module;
  out.add("main", makeFunction(main->params, body, main->retType, main->attrs, main->span));
  // The inlined functions go; those still called stay.
  std::vector<std::string> called;
  postOrderVisit(body, [&](const Expr& e) {
    if (const auto* c = e->as<CallNode>())
      if (const auto* g = c->op->as<GlobalVarNode>()) called.push_back(g->name);
  });
  for (const auto& [name, fn] : module.functions())
    if (name != "main" && std::find(called.begin(), called.end(), name) == called.end())
      out.remove(name);
  return inferTypes(out);
}

}  // namespace tessera::relay
