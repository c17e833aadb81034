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

/// Two extents an op needs equal that the compiler cannot prove so: independent `?` dims meeting
/// in one op (`add` of two `?` batches, concatenate's other axes, dense's K), or a `?` against a
/// constant. The result is computed from one of them, as TVM assumes; the VM checks them equal
/// before the op's kernel runs, so a mismatch is an error, never a read out of bounds.
struct DimAssumption {
  tir::PrimExpr a, b;
  std::string what;  ///< the op and the dims, e.g. "add: dimension 0 of the inputs"
};

/// The shape of a value of type `type`: static dims as constants, `?` dims as null expressions.
SymValue symValueOfType(const Type& type);
/// True when every dim of `v` (every field of a tuple) is a non-null expression.
bool isKnown(const SymValue& v);
/// `e` simplified (constants folded, like terms combined).
tir::PrimExpr simplifyDim(const tir::PrimExpr& e);

/// The output shape of `call` from its arguments' shapes: the op's shape function, else its type
/// relation on symbolic dims; dims static in the call's type are taken from it. nullopt when a
/// `?` dim of the result cannot be computed from the inputs; `why` then says which op and why.
/// With `assumed`, the extents the op needs equal are appended there, also when the call's type is
/// static (the relation is then run on the symbolic inputs only for them).
std::optional<SymValue> callOutputShape(const CallNode& call, const std::vector<SymValue>& inputs,
                                        std::string* why,
                                        std::vector<DimAssumption>* assumed = nullptr);

/// The shape of a primitive (fused) function's result from its parameters' shapes, composing the
/// shape functions of its calls. DiagnosticError (code "dynamic_shape", at the call) when an op
/// has a data-dependent shape or a `?` dim cannot be computed. `assumed` as for callOutputShape,
/// for every call of the function.
SymValue primitiveOutputShape(const Function& fn, const std::vector<SymValue>& params,
                              std::vector<DimAssumption>* assumed = nullptr);

}  // namespace tessera::relay
