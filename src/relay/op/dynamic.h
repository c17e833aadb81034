// Operators whose output extents or values are known only when the program runs (argwhere,
// unique, vision.all_class_non_max_suppression, dyn.topk, shape_of): attribute structs and
// builder functions. Their types carry Any ("?") dims where the data decides an extent; they have
// no TE compute: the VM runs them as builtins (runtime/vm/builtins.h), the graph executor refuses
// them, and the reference interpreter runs them. Semantics and constraint labels:
// docs/spec/ops/dynamic.md.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "relay/expr.h"

namespace tessera::relay {

/// unique: sort the distinct elements (or, with `axis`, the distinct slices along it), or keep
/// them in order of first occurrence.
struct UniqueAttrs {
  static constexpr const char* kTypeKey = "relay.attrs.UniqueAttrs";
  bool sorted = true;
  std::optional<int64_t> axis;  ///< None: the flattened data
  template <typename V>
  static void fields(V& v) {
    v("sorted", &UniqueAttrs::sorted);
    v("axis", &UniqueAttrs::axis);
  }
};

/// vision.all_class_non_max_suppression: the box encoding and the output layout (TVM's
/// AllClassNonMaximumSuppressionAttrs, plus ONNX's center_point_box).
struct AllClassNmsAttrs {
  static constexpr const char* kTypeKey = "relay.attrs.AllClassNonMaximumSuppressionAttrs";
  bool centerPointBox = false;  ///< boxes are [x_center, y_center, width, height]
  std::string outputFormat = "onnx";
  template <typename V>
  static void fields(V& v) {
    v("center_point_box", &AllClassNmsAttrs::centerPointBox);
    v("output_format", &AllClassNmsAttrs::outputFormat);
  }
};

/// shape_of: the shape of a tensor as a 1-D tensor, for values that reach shapes at run time.
struct ShapeOfAttrs {
  static constexpr const char* kTypeKey = "relay.attrs.ShapeOfAttrs";
  DataType dtype = DataType::int64();
  template <typename V>
  static void fields(V& v) {
    v("dtype", &ShapeOfAttrs::dtype);
  }
};

/// dyn.topk: the k largest (or smallest) elements along `axis` with their indices, k a run-time
/// scalar (TVM's TopKAttrs; its `k` attribute is the dyn op's second argument).
struct TopKAttrs {
  static constexpr const char* kTypeKey = "relay.attrs.TopkAttrs";
  int64_t axis = -1;
  std::string retType = "both";  ///< "both" (values, indices), "values" or "indices"
  bool isAscend = false;         ///< the smallest k, ascending
  DataType dtype = DataType::int64();
  template <typename V>
  static void fields(V& v) {
    v("axis", &TopKAttrs::axis);
    v("ret_type", &TopKAttrs::retType);
    v("is_ascend", &TopKAttrs::isAscend);
    v("dtype", &TopKAttrs::dtype);
  }
};

/// The int64 coordinates of the non-zero elements of `data`, one row each, in row-major order:
/// shape (?, rank).
Expr argwhere(Expr data);
/// The distinct elements or slices of `data`: a tuple (values, indices of first occurrence,
/// inverse indices, counts).
Expr unique(Expr data, bool sorted = true, std::optional<int64_t> axis = std::nullopt);
/// Greedy non-maximum suppression per batch and class, ONNX's NonMaxSuppression: (?, 3) int64
/// rows (batch, class, box).
Expr allClassNonMaxSuppression(Expr boxes, Expr scores, Expr maxOutputBoxesPerClass,
                               Expr iouThreshold, Expr scoreThreshold, bool centerPointBox = false);

/// The extents of `data` as a 1-D tensor of `dtype` (int64 or int32), computed when the program
/// runs (the VM builtin `shape_of`); a static shape makes it a constant under FoldConstant.
Expr shapeOf(Expr data, DataType dtype = DataType::int64());
/// `data` with the shape read from `newshape` (a 1-D integer tensor) when the program runs, as
/// ONNX Reshape reads it (0 copies the input's extent, one -1 is inferred): every extent `?`.
Expr dynReshape(Expr data, Expr newshape);
/// A strided slice of `data` along `axes` (None: the leading axes) whose begin, end and strides
/// are 1-D integer tensors read when the program runs, clamped as ONNX Slice clamps: the sliced
/// extents are `?`.
Expr dynStridedSlice(Expr data, Expr begin, Expr end, Expr strides,
                     std::optional<std::vector<int64_t>> axes = std::nullopt);
/// The `k` (a scalar or 1-element integer tensor, read at run time) largest or smallest slices
/// of `data` along `axis`, sorted, ties by lower index first: (values, indices) with `?` at `axis`.
Expr dynTopK(Expr data, Expr k, TopKAttrs attrs = {});

}  // namespace tessera::relay
