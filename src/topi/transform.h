// Injective TOPI computes (reshape family, transpose, broadcast_to, concatenate, stack, split,
// strided_slice, take, layout_transform). Output shapes that the relay type relation already
// computed are passed in, so the special values of reshape and friends are resolved once.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "topi/topi_util.h"

namespace tessera::topi {

/// The same elements in row-major order with another shape (reshape, squeeze, expand_dims,
/// batch_flatten, reshape_like).
Tensor reshape(const Tensor& x, const std::vector<PrimExpr>& newShape,
               const std::string& name = "T_reshape");
/// Axes permuted (`axes` empty: reversed).
Tensor transpose(const Tensor& x, std::vector<int64_t> axes);
Tensor broadcastTo(const Tensor& x, const std::vector<PrimExpr>& shape);
Tensor concatenate(const std::vector<Tensor>& xs, int64_t axis);
Tensor stack(const std::vector<Tensor>& xs, int64_t axis);
/// Pieces of `x` along `axis` with the given extents (they sum to the axis extent).
std::vector<Tensor> split(const Tensor& x, const std::vector<int64_t>& extents, int64_t axis);
/// out[idx] = x[first + idx * step] per axis.
Tensor stridedSlice(const Tensor& x, const std::vector<PrimExpr>& first,
                    const std::vector<int64_t>& step, const std::vector<PrimExpr>& outShape);
/// Gather along `axis` (nullopt: of the flattened data) with mode "clip", "wrap" or "fast".
Tensor take(const Tensor& data, const Tensor& indices, std::optional<int64_t> axis,
            int64_t batchDims, const std::string& mode);
/// numpy.tile: `reps` copies along each axis (reps shorter than the rank repeat the trailing axes;
/// longer reps prepend unit axes).
Tensor tile(const Tensor& x, const std::vector<int64_t>& reps);
/// numpy.repeat: each element `repeats` times along `axis`.
Tensor repeat(const Tensor& x, int64_t repeats, int64_t axis);
/// Re-blocks between layouts with the same primal axes (NCHW <-> NCHW16c, ...).
Tensor layoutTransform(const Tensor& x, const std::string& src, const std::string& dst,
                       const std::vector<PrimExpr>& outShape);

}  // namespace tessera::topi
