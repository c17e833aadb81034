// The shape variables of one VM function: every `?` dim the function learns when it runs (from a
// parameter, a builtin's result, the join of branches) is one int64 variable, and the shapes of
// kernel outputs are expressions over them (relay/shape_func.h) that the VM evaluates per call.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "relay/op_registry.h"
#include "runtime/vm/vm_executable.h"

namespace tessera::lower {

class VMShapeVars {
 public:
  /// A new variable, numbered in order of creation (its slot in the VM's shape environment).
  tir::Var fresh(const std::string& hint);
  /// `type`'s shape with a new variable for each `?` dim (constants stay constants).
  relay::SymValue freshShape(const Type& type, const std::string& hint);
  /// The runtime's form of a dim; DiagnosticError "vm_compile" for an expression the VM cannot
  /// evaluate (only +, -, *, floordiv, min and max of constants and variables).
  runtime::vm::ShapeExpr toRuntime(const tir::PrimExpr& e) const;
  std::vector<runtime::vm::ShapeExpr> toRuntime(const relay::SymShape& shape) const;
  int count() const { return static_cast<int>(index_.size()); }

 private:
  std::unordered_map<const tir::VarNode*, int> index_;
};

/// True when `type` has a `?` dim (in any field of a tuple).
bool hasAnyDim(const Type& type);

}  // namespace tessera::lower
