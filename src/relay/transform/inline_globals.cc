// InlineGlobalCalls (relay/transform/passes.h): @main's calls of other global functions replaced
// by the callees' bodies, so that build(), which compiles @main alone, takes a module split into
// functions (relay.quantize's partition_conversions makes one: @quantize_inputs, @quantized_main,
// @dequantize_outputs).
#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "relay/transform/passes.h"
#include "relay/type_infer.h"
#include "relay/visit.h"
#include "support/diagnostic.h"

namespace tessera::relay {
namespace {

// Each callee's body with its own calls inlined is built once, however many calls it has; a
// call then binds its arguments to the callee's parameters in that body.
class Inliner {
 public:
  explicit Inliner(const IRModule& module) : module_(module) {}

  Expr inlineCalls(const Expr& body) {
    return rewriteBottomUp(body, [&](const Expr& node, const std::vector<Expr>& children) {
      const auto* call = node->as<CallNode>();
      const auto* global = call ? call->op->as<GlobalVarNode>() : nullptr;
      if (!global) return withChildren(node, children);
      const Function& callee = module_.lookup(global->name);
      // A function partitioned for a device's code generator (Composite, Compiler) stays a
      // call: compiling it for the CPU instead is not what its caller asked for.
      if (callee->attrs.has("Composite") || callee->attrs.has("Compiler"))
        return withChildren(node, children);
      std::unordered_map<const ExprNode*, Expr> args;
      // children: the callee, then the arguments.
      for (size_t i = 0; i < callee->params.size() && i + 1 < children.size(); ++i)
        args[callee->params[i].get()] = children[i + 1];
      return replaceNodes(inlinedBody(global->name, callee, node->span), args);
    });
  }

 private:
  const Expr& inlinedBody(const std::string& name, const Function& callee, const Span& span) {
    if (auto it = bodies_.find(name); it != bodies_.end()) return it->second;
    if (!inProgress_.insert(name).second)
      throwDiagnostic("inline", "@" + name + " calls itself (recursion is not inlined)", span);
    Expr body = inlineCalls(callee->body);
    inProgress_.erase(name);
    return bodies_[name] = std::move(body);
  }

  const IRModule& module_;
  std::unordered_map<std::string, Expr> bodies_;
  std::unordered_set<std::string> inProgress_;
};

}  // namespace

IRModule inlineGlobalCalls(const IRModule& module) {
  const Function& main = module.main();
  const Expr body = Inliner(module).inlineCalls(main->body);
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
