// Helpers shared by the compute registrations: static shapes from relay types, attrs with
// defaults, and the registration call.
#pragma once

#include <string>
#include <vector>

#include "ir/type.h"
#include "relay/op/nn.h"
#include "relay/op/op_common.h"
#include "relay/strategy/strategy.h"
#include "tir/expr.h"
#include "topi/nn.h"

namespace tessera::relay::strategy {

/// The shape of a tensor type as int32 expressions: immediates, and a fresh size variable
/// `any_dim` per `?` (the kernel binds it from the buffer it reaches). DiagnosticError
/// "dynamic_shape" naming `what` for a named symbolic extent.
std::vector<tir::PrimExpr> staticShapeOf(const Type& type, const std::string& what);
/// The extents of a tensor type that must be constants; DiagnosticError "topi_dynamic" naming
/// `what` for a `?` or symbolic one (a compute that needs them, in a kernel with symbolic extents).
std::vector<int64_t> constExtentsOf(const Type& type, const std::string& what);
/// The TensorType of `type` (an internal error for anything else).
const TensorTypeNode& tensorTypeOf(const Type& type);
/// Field `i` of a tuple type.
const Type& tupleField(const Type& type, size_t i);

/// The attrs struct T of a call, or T's defaults when the call has none.
template <typename T>
const T& attrsOf(const Attrs& attrs) {
  return attrsOrDefault<T>(attrs.get());
}

/// topi's conv2d parameters from relay's attrs (padding in its 4-value form).
topi::Conv2DParams convParams(const Conv2DAttrs& a, DataType outDtype);

/// Registers `f` as op `op`'s compute at level 10.
void setCompute(const std::string& op, FTVMCompute f);

/// Registration of the tensor-level ops (elementwise, broadcast, reductions, shapes, creation)
/// and the nn.* ops; called by registerComputes.
void registerTensorComputes();
void registerNnComputes();

}  // namespace tessera::relay::strategy
