// The builtins' kernels (runtime/vm/builtins.h), one per file, and the helpers they share.
#pragma once

#include <cstdint>
#include <vector>

#include "runtime/vm/builtins.h"

namespace tessera::runtime::vm::builtin {

/// argwhere(data): int64 (count, rank) coordinates of the non-zero elements, row-major order.
VMValue argwhere(const std::vector<NDArray>& args);
/// unique(data, attrs = [sorted, has_axis, axis]): (values, indices, inverse, counts).
VMValue unique(const std::vector<NDArray>& args);
/// vision.all_class_non_max_suppression(boxes, scores, max_out, iou, score_threshold,
/// attrs = [center_point_box]): int64 (count, 3) rows (batch, class, box).
VMValue allClassNms(const std::vector<NDArray>& args);

/// dyn.topk(data, k, attrs = [axis, is_ascend, ret_type (0 both, 1 values, 2 indices),
/// index bits]): the k largest (smallest) along axis, ties by lower index.
VMValue topK(const std::vector<NDArray>& args);
/// dyn.reshape(data, newshape, attrs = []): data with the shape newshape's values give.
VMValue dynReshape(const std::vector<NDArray>& args);
/// dyn.strided_slice(data, begin, end, strides, attrs = [count, axes...] or [0]): the slice
/// ONNX Slice reads, along `axes` or the leading axes.
VMValue dynStridedSlice(const std::vector<NDArray>& args);
/// scatter_elements(data, indices, updates, attrs = [axis, reduction (0 update, 1 add, 2 mul,
/// 3 min, 4 max)]): data with the updates combined at the indexed positions.
VMValue scatterElements(const std::vector<NDArray>& args);
/// shape_of(data, attrs = [bits]): the extents of data as an int64 (or int32) vector.
VMValue shapeOf(const std::vector<NDArray>& args);

/// The elements of `x` as numbers that compare as the values do: calls `f` with a vector of
/// double (floats), int64 (signed) or uint64 (unsigned and bool) values.
template <typename F>
auto withValues(const NDArray& x, F&& f) {
  const DataType t = x.dtype();
  const int64_t n = x.numel();
  if (t.isFloat()) {
    std::vector<double> v(static_cast<size_t>(n));
    if (t == DataType::float32())
      for (int64_t i = 0; i < n; ++i) v[i] = x.as<float>()[i];
    else
      for (int64_t i = 0; i < n; ++i) v[i] = x.getFloat(i);
    return f(v);
  }
  if (t.isInt()) {
    std::vector<int64_t> v(static_cast<size_t>(n));
    if (t == DataType::int64())
      for (int64_t i = 0; i < n; ++i) v[i] = x.as<int64_t>()[i];
    else
      for (int64_t i = 0; i < n; ++i) v[i] = x.getInt(i);
    return f(v);
  }
  std::vector<uint64_t> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[i] = x.getUInt(i);
  return f(v);
}

/// The int64 values of the attributes tensor (the last argument), at least `count` of them;
/// DiagnosticError "vm_builtin" naming `builtin` otherwise.
std::vector<int64_t> attrsOf(const std::vector<NDArray>& args, size_t count, const char* builtin);
/// Argument `i` (DiagnosticError "vm_builtin" when missing).
const NDArray& argAt(const std::vector<NDArray>& args, size_t i, const char* builtin);

}  // namespace tessera::runtime::vm::builtin
