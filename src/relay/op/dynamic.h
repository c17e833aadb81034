// Operators whose output extents depend on the input values (argwhere, unique,
// vision.all_class_non_max_suppression): attribute structs and builder functions. Their types
// carry Any ("?") dims, they have no TE compute, and build() refuses them; the reference
// interpreter runs them. Semantics and constraint labels: docs/spec/ops/dynamic.md.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

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

}  // namespace tessera::relay
