// IRModule: the named global functions of a program (`@main` is the entry). Functions are kept
// sorted by name, the order in which the printer shows them.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "relay/expr.h"

namespace tessera::relay {

class IRModule {
 public:
  IRModule() = default;
  /// A module whose main is `e` (a Function), or `fn(free vars of e) { e }` otherwise.
  static IRModule fromExpr(const Expr& e);

  /// Adds or replaces a function. The GlobalVar for `name` keeps its identity across replacements.
  void add(const std::string& name, Function fn);
  bool has(const std::string& name) const { return functions_.count(name) != 0; }
  /// The function named `name`; throws DiagnosticError ("unknown_global") when absent.
  const Function& lookup(const std::string& name) const;
  const Function& main() const { return lookup("main"); }
  /// The GlobalVar used to reference `name` (created on first request).
  GlobalVar globalVar(const std::string& name);
  void remove(const std::string& name);
  /// Moves the function named `name` out, keeping its GlobalVar for the `add` that puts a
  /// rewritten one back: a pass given the module by value then holds the only reference and may
  /// consume it (see rewriteBottomUpOwned). Throws like lookup when absent.
  Function take(const std::string& name);
  /// Functions in printing order (byte-wise ascending names).
  const std::map<std::string, Function>& functions() const { return functions_; }

 private:
  std::map<std::string, Function> functions_;
  std::map<std::string, GlobalVar> globals_;
};

/// Free variables of an expression in first-occurrence order (post-order, callee before arguments).
std::vector<Var> freeVars(const Expr& e);

}  // namespace tessera::relay
