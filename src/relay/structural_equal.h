// Structural equality and hashing of graph IR: two programs are equal when they have the same shape
// of nodes, ops, attributes, constants (bytes) and types, with bound variables matched by position
// (alpha-equivalence). Spans and cached checked types are ignored. Iterative: safe on deep graphs.
#pragma once

#include <cstdint>
#include <string>

#include "relay/expr.h"
#include "relay/module.h"

namespace tessera::relay {

/// True when `a` and `b` are structurally equal. Free variables must be the same object unless
/// `mapFreeVars` is set, in which case they are matched by first occurrence.
bool structuralEqual(const Expr& a, const Expr& b, bool mapFreeVars = false);
/// Modules are equal when they have the same function names and each pair is structurally equal.
bool structuralEqual(const IRModule& a, const IRModule& b);

/// A hash consistent with structuralEqual (equal programs hash equal), stable across runs.
uint64_t structuralHash(const Expr& e);

/// When `a` and `b` differ: a short description of the first difference found (for test failures).
std::string explainDifference(const Expr& a, const Expr& b);

}  // namespace tessera::relay
