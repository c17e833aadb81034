// Shape functions: the output shapes of calls whose types hold `?` (Any) dims, as int64 TensorIR
// expressions over the shape variables of the program that runs them. The VM compiler evaluates
// them per call when the program runs (docs/design/dynamic-shapes.md). An op registers one
// (OpDef::shapeFunc) only where its type relation cannot pass a symbolic dim through; otherwise
// the type relation itself, run on input types whose unknown dims are symbolic variables, is the
// shape function. Ops with data-dependent output shapes (argwhere, unique, ...) have none: their
// extents come from the data.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "relay/expr.h"
#include "relay/op_registry.h"

namespace tessera::relay {

/// The shape of a value of type `type`: static dims as constants, `?` dims as null expressions.
SymValue symValueOfType(const Type& type);
/// True when every dim of `v` (every field of a tuple) is a non-null expression.
bool isKnown(const SymValue& v);
/// `e` simplified (constants folded, like terms combined).
tir::PrimExpr simplifyDim(const tir::PrimExpr& e);

/// The output shape of `call` from its arguments' shapes: the op's shape function, else its type
/// relation on symbolic dims; dims static in the call's type are taken from it. nullopt when a
/// `?` dim of the result cannot be computed from the inputs; `why` then says which op and why.
std::optional<SymValue> callOutputShape(const CallNode& call, const std::vector<SymValue>& inputs,
                                        std::string* why);

/// The shape of a primitive (fused) function's result from its parameters' shapes, composing the
/// shape functions of its calls. DiagnosticError (code "dynamic_shape", at the call) when an op
/// has a data-dependent shape or a `?` dim cannot be computed.
SymValue primitiveOutputShape(const Function& fn, const std::vector<SymValue>& params);

}  // namespace tessera::relay
