// The shape functions of the ops whose type relations cannot pass symbolic dims through (the
// relation computes the dim from extents it needs as constants). Each is registered in its op's
// row (OpDef::shapeFunc) beside the type relation; relay/shape_func.h says how they are used.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "relay/op_registry.h"

namespace tessera::relay {

/// reshape's extents as expressions of the input's `in` (constants of `dtype`): 0 copies an input
/// dim, -1 is the remaining elements over the emitted dims, -2 copies the rest, -3 multiplies two
/// input dims, -4 splits one; nullopt when the codes do not fit the rank (the relation reports it).
/// The shape function and the TE compute (inside a fused kernel) both use it.
std::optional<std::vector<tir::PrimExpr>> reshapeExtents(const std::vector<tir::PrimExpr>& in,
                                                         const std::vector<int64_t>& newshape,
                                                         bool allowzero, DataType dtype);
/// One axis of a strided slice over a known extent, resolved as numpy does (negative indices from
/// the end, clamped; in size mode `end` is a count, negative for the rest): the first index, the
/// step and the element count. The type relation and the TE compute both use it.
struct ResolvedSlice {
  int64_t first = 0, step = 1, length = 0;
};
ResolvedSlice resolveSliceAxis(std::optional<int64_t> begin, std::optional<int64_t> end,
                               int64_t stride, int64_t extent, bool sizeMode);
/// reshape's shape function: reshapeExtents of the input's symbolic shape.
std::optional<SymValue> reshapeShapeFunc(const CallNode& call, const std::vector<SymValue>& in);
/// concatenate: the sum of the inputs' extents along the axis, the first input's elsewhere.
std::optional<SymValue> concatenateShapeFunc(const CallNode& call, const std::vector<SymValue>& in);
/// strided_slice (transform_select.cc): numpy's clamping over each sliced extent; a `?` axis only
/// with a forward step and slice_mode "end".
std::optional<SymValue> stridedSliceShapeFunc(const CallNode& call,
                                              const std::vector<SymValue>& in);

}  // namespace tessera::relay
