// The reference interpreter: evaluates any graph-IR module on NDArrays using the ops' reference
// kernels. Plain and obviously correct; every pass and compiled kernel is checked against it.
#pragma once

#include <string>
#include <vector>

#include "relay/expr.h"
#include "relay/module.h"
#include "relay/value.h"

namespace tessera::relay {

/// A function value together with the values of the variables it captured.
struct ClosureData {
  Function function;
  std::vector<std::pair<const VarNode*, Value>> captured;
};

class Interpreter {
 public:
  /// The module must be type-checked (run inferTypes first; the interpreter does it if needed).
  explicit Interpreter(IRModule module);

  /// Calls the global function `name` with the given arguments. Argument count, shapes and dtypes
  /// are checked against the parameters' types and mismatches reported as DiagnosticError naming
  /// the parameter. Running a constant whose value is unknown is an error naming that constant.
  Value call(const std::string& name, const std::vector<Value>& args);
  /// Shorthand for call("main", args).
  Value run(const std::vector<Value>& args) { return call("main", args); }

  const IRModule& module() const { return module_; }

 private:
  IRModule module_;
};

/// Evaluates a closed expression (no free variables) — used by FoldConstant and tests.
Value evaluateClosed(const Expr& e);

}  // namespace tessera::relay
