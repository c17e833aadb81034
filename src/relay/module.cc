#include "relay/module.h"

#include <unordered_set>

#include "relay/visit.h"
#include "support/diagnostic.h"

namespace tessera::relay {

IRModule IRModule::fromExpr(const Expr& e) {
  IRModule m;
  if (auto fn = exprAs<FunctionNode>(e)) {
    m.add("main", fn);
    return m;
  }
  std::vector<Var> params = freeVars(e);
  m.add("main", makeFunction(std::move(params), e));
  return m;
}

void IRModule::add(const std::string& name, Function fn) {
  globalVar(name);
  functions_[name] = std::move(fn);
}

const Function& IRModule::lookup(const std::string& name) const {
  auto it = functions_.find(name);
  if (it == functions_.end())
    throwDiagnostic("unknown_global", "the module has no function named @" + name);
  return it->second;
}

Function IRModule::take(const std::string& name) {
  Function fn = lookup(name);
  functions_.erase(name);
  return fn;
}

GlobalVar IRModule::globalVar(const std::string& name) {
  auto it = globals_.find(name);
  if (it != globals_.end()) return it->second;
  GlobalVar g = makeGlobalVar(name);
  globals_[name] = g;
  return g;
}

void IRModule::remove(const std::string& name) {
  functions_.erase(name);
}

std::vector<Var> freeVars(const Expr& e) {
  // Bound variables are the params of functions and let variables reachable from e.
  std::unordered_set<const ExprNode*> bound;
  postOrderVisit(e, [&](const Expr& node) {
    if (const auto* f = node->as<FunctionNode>()) {
      for (const Var& p : f->params) bound.insert(p.get());
    } else if (const auto* l = node->as<LetNode>()) {
      bound.insert(l->var.get());
    }
  });
  std::vector<Var> out;
  std::unordered_set<const ExprNode*> seen;
  postOrderVisit(e, [&](const Expr& node) {
    if (node->kind != ExprKind::kVar || bound.count(node.get())) return;
    if (seen.insert(node.get()).second)
      out.push_back(std::static_pointer_cast<const VarNode>(node));
  });
  return out;
}

}  // namespace tessera::relay
