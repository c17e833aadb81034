// The shape functions of the ops whose type relations cannot pass symbolic dims through (the
// relation computes the dim from extents it needs as constants). Each is registered in its op's
// row (OpDef::shapeFunc) beside the type relation; relay/shape_func.h says how they are used.
#pragma once

#include <optional>
#include <vector>

#include "relay/op_registry.h"

namespace tessera::relay {

/// reshape: 0 copies an input dim, -1 is the remaining elements over the emitted dims, -2 copies
/// the rest, -3 multiplies two input dims; -4 (a split of one dim) is left to the relation.
std::optional<SymValue> reshapeShapeFunc(const CallNode& call, const std::vector<SymValue>& in);
/// concatenate: the sum of the inputs' extents along the axis, the first input's elsewhere.
std::optional<SymValue> concatenateShapeFunc(const CallNode& call, const std::vector<SymValue>& in);
/// strided_slice (transform_select.cc): numpy's clamping over each sliced extent; a `?` axis only
/// with a forward step and slice_mode "end".
std::optional<SymValue> stridedSliceShapeFunc(const CallNode& call,
                                              const std::vector<SymValue>& in);

}  // namespace tessera::relay
