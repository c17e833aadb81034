// Type inference (the InferType pass): assigns a checked type to every expression, fills in missing
// variable annotations and function return types, and reports type errors as located diagnostics
// that name the op, the argument and the shapes involved.
#pragma once

#include "relay/expr.h"
#include "relay/module.h"

namespace tessera::relay {

/// Infers every function of the module. Returns a module whose functions have all parameters and
/// return types annotated and whose nodes carry checked types. Throws DiagnosticError on a type
/// error or when a type cannot be determined.
IRModule inferTypes(const IRModule& module);

/// Infers a standalone expression (free variables must be annotated). For a Function, returns the
/// annotated function; otherwise the expression with checked types set.
Expr inferExprTypes(const Expr& e);

/// The type of an `if` whose branches have the complete types `a` and `b`: their type where they
/// agree, with `?` for an extent where one branch has `?` and the other a constant (tensors and
/// tuples of them); nullptr when they differ otherwise.
Type joinBranchTypes(const Type& a, const Type& b);

}  // namespace tessera::relay
