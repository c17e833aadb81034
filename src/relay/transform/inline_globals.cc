// InlineGlobalCalls (relay/transform/passes.h): calls of other global functions replaced by the
// callees' bodies, so that build(), which compiles @main alone, takes a module split into
// functions (relay.quantize's partition_conversions makes one: @quantize_inputs, @quantized_main,
// @dequantize_outputs). A function on a call cycle (a loop written as recursion) cannot be
// inlined; it stays a function, with its own non-recursive calls inlined, for the VM to run.
// A function literal called where it stands (`fn (%x) { ... }(%a)`, how relay.testing's lstm calls
// each cell) is inlined the same way, unless it is a fused, composite or external function.
#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include "relay/transform/passes.h"
#include "relay/type_infer.h"
#include "relay/visit.h"
#include "support/diagnostic.h"

namespace tessera::relay {
namespace {

// The global functions each function calls directly.
std::map<std::string, std::set<std::string>> callGraph(const IRModule& module) {
  std::map<std::string, std::set<std::string>> callees;
  for (const auto& [name, fn] : module.functions()) {
    std::set<std::string>& out = callees[name];
    postOrderVisit(fn->body, [&](const Expr& e) {
      if (const auto* c = e->as<CallNode>())
        if (const auto* g = c->op->as<GlobalVarNode>()) out.insert(g->name);
    });
  }
  return callees;
}

// The functions reachable from `start` through one or more calls.
std::set<std::string> reachable(const std::map<std::string, std::set<std::string>>& graph,
                                const std::string& start) {
  std::set<std::string> seen;
  std::vector<std::string> stack(graph.at(start).begin(), graph.at(start).end());
  while (!stack.empty()) {
    std::string name = std::move(stack.back());
    stack.pop_back();
    if (!seen.insert(name).second) continue;
    if (auto it = graph.find(name); it != graph.end())
      stack.insert(stack.end(), it->second.begin(), it->second.end());
  }
  return seen;
}

// Each callee's body with its own calls inlined is built once, however many calls it has; a
// call then binds its arguments to the callee's parameters in that body.
class Inliner {
 public:
  Inliner(const IRModule& module, std::set<std::string> recursive)
      : module_(module), recursive_(std::move(recursive)) {
    for (const auto& [name, fn] : module.functions())
      postOrderVisit(fn->body, [&](const Expr& e) {
        if (const auto* c = e->as<CallNode>(); c && c->op->as<FunctionNode>())
          ++literalCalls_[c->op.get()];
      });
  }

  Expr inlineCalls(const Expr& body) {
    return rewriteBottomUp(body, [&](const Expr& node, const std::vector<Expr>& children) {
      const auto* call = node->as<CallNode>();
      if (call && isInlinableLiteral(call->op)) {
        // children[0] is the literal with the calls in its own body already inlined.
        const auto* literal = children[0]->as<FunctionNode>();
        std::unordered_map<const ExprNode*, Expr> args;
        for (size_t i = 0; i < literal->params.size() && i + 1 < children.size(); ++i)
          args[literal->params[i].get()] = children[i + 1];
        return replaceNodes(literal->body, args);
      }
      const auto* global = call ? call->op->as<GlobalVarNode>() : nullptr;
      if (!global) return withChildren(node, children);
      const Function& callee = module_.lookup(global->name);
      // A function partitioned for a device's code generator (Composite, Compiler) stays a
      // call: compiling it for the CPU instead is not what its caller asked for.
      if (callee->attrs.has("Composite") || callee->attrs.has("Compiler") ||
          recursive_.count(global->name))
        return withChildren(node, children);
      std::unordered_map<const ExprNode*, Expr> args;
      // children: the callee, then the arguments.
      for (size_t i = 0; i < callee->params.size() && i + 1 < children.size(); ++i)
        args[callee->params[i].get()] = children[i + 1];
      return replaceNodes(inlinedBody(global->name, callee), args);
    });
  }

 private:
  // A literal's body is spliced in where it is called, so only a literal that is the callee of
  // one call: spliced in twice, its let variables would be bound twice in one scope.
  bool isInlinableLiteral(const Expr& op) const {
    const auto* fn = op->as<FunctionNode>();
    if (!fn || fn->attrs.has("Primitive") || fn->attrs.has("Composite") ||
        fn->attrs.has("Compiler"))
      return false;
    auto it = literalCalls_.find(op.get());
    return it != literalCalls_.end() && it->second == 1;
  }

  const Expr& inlinedBody(const std::string& name, const Function& callee) {
    if (auto it = bodies_.find(name); it != bodies_.end()) return it->second;
    Expr body = inlineCalls(callee->body);
    return bodies_[name] = std::move(body);
  }

  const IRModule& module_;
  std::set<std::string> recursive_;
  std::unordered_map<std::string, Expr> bodies_;
  std::unordered_map<const ExprNode*, int> literalCalls_;  // calls per function literal callee
};

Function withBody(const Function& fn, const Expr& body) {
  return makeFunction(fn->params, body, fn->retType, fn->attrs, fn->span);
}

}  // namespace

IRModule inlineGlobalCalls(const IRModule& module) {
  const auto graph = callGraph(module);
  std::set<std::string> recursive;
  for (const auto& [name, callees] : graph)
    if (reachable(graph, name).count(name)) recursive.insert(name);
  Inliner inliner(module, recursive);
  IRModule out = module;
  bool changed = false;
  for (const auto& [name, fn] : module.functions()) {
    if (name != "main" && !recursive.count(name)) continue;
    const Expr body = inliner.inlineCalls(fn->body);
    if (body == fn->body) continue;
    out.add(name, withBody(fn, body));
    changed = true;
  }
  if (!changed) return module;
  // The inlined functions go; those still called (directly or through a kept function) stay.
  const auto calls = callGraph(out);
  const std::set<std::string> kept = reachable(calls, "main");
  for (const auto& [name, fn] : module.functions())
    if (name != "main" && !kept.count(name)) out.remove(name);
  return inferTypes(out);
}

}  // namespace tessera::relay
