// Tensor operators (elementwise, broadcast, transforms, reductions, casts, creation): attribute
// structs and builder functions. The semantics, defaults and constraint labels of every op are in
// docs/spec/ops/tensor.md; the structs mirror TVM's (include/tvm/relay/attrs/{transform,reduce,
// annotation}.h), with C++ members in lowerCamel and the TVM spelling in `fields`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ir/attr_value.h"
#include "ir/attrs.h"
#include "relay/expr.h"
#include "runtime/data_type.h"

namespace tessera::relay {

// --- attribute structs ---------------------------------------------------------------------------

/// sum, mean, max, min, prod: axes to reduce (None = all), keep them as 1, or reduce the others.
struct ReduceAttrs {
  static constexpr const char* kTypeKey = "relay.attrs.ReduceAttrs";
  std::optional<std::vector<int64_t>> axis;
  bool keepdims = false;
  bool exclude = false;
  template <typename V>
  static void fields(V& v) {
    v("axis", &ReduceAttrs::axis);
    v("keepdims", &ReduceAttrs::keepdims);
    v("exclude", &ReduceAttrs::exclude);
  }
};

/// argmax, argmin: as ReduceAttrs, plus which index wins a tie.
struct ArgReduceAttrs {
  static constexpr const char* kTypeKey = "relay.attrs.ArgReduceAttrs";
  std::optional<std::vector<int64_t>> axis;
  bool keepdims = false;
  bool selectLastIndex = false;
  bool exclude = false;
  template <typename V>
  static void fields(V& v) {
    v("axis", &ArgReduceAttrs::axis);
    v("keepdims", &ArgReduceAttrs::keepdims);
    v("select_last_index", &ArgReduceAttrs::selectLastIndex);
    v("exclude", &ArgReduceAttrs::exclude);
  }
};

/// reshape: the target shape with the special values 0, -1, -2, -3, -4 (spec §3.4).
struct ReshapeAttrs {
  static constexpr const char* kTypeKey = "relay.attrs.ReshapeAttrs";
  std::vector<int64_t> newshape;
  bool allowzero = false;
  template <typename V>
  static void fields(V& v) {
    v.required("newshape", &ReshapeAttrs::newshape);
    v("allowzero", &ReshapeAttrs::allowzero);
  }
};

/// reshape_like: data[:lhs_begin] + shape_like[rhs_begin:rhs_end] + data[lhs_end:].
struct ReshapeLikeAttrs {
  static constexpr const char* kTypeKey = "relay.attrs.ReshapeLikeAttrs";
  int lhsBegin = 0;
  std::optional<int64_t> lhsEnd;
  int rhsBegin = 0;
  std::optional<int64_t> rhsEnd;
  template <typename V>
  static void fields(V& v) {
    v("lhs_begin", &ReshapeLikeAttrs::lhsBegin);
    v("lhs_end", &ReshapeLikeAttrs::lhsEnd);
    v("rhs_begin", &ReshapeLikeAttrs::rhsBegin);
    v("rhs_end", &ReshapeLikeAttrs::rhsEnd);
  }
};

/// transpose: the permutation; None reverses the axes.
struct TransposeAttrs {
  static constexpr const char* kTypeKey = "relay.attrs.TransposeAttrs";
  std::optional<std::vector<int64_t>> axes;
  template <typename V>
  static void fields(V& v) {
    v.alwaysShown("axes", &TransposeAttrs::axes);
  }
};

/// zeros, ones, full and broadcast_to: the target shape and (creation ops) the element type.
struct InitOpAttrs {
  static constexpr const char* kTypeKey = "relay.attrs.InitOpAttrs";
  std::vector<int64_t> shape;
  DataType dtype;
  template <typename V>
  static void fields(V& v) {
    v.required("shape", &InitOpAttrs::shape);
    v("dtype", &InitOpAttrs::dtype);
  }
};

/// expand_dims: insert `num_newaxis` unit axes at `axis` (in [-rank-1, rank]).
struct ExpandDimsAttrs {
  static constexpr const char* kTypeKey = "relay.attrs.ExpandDimsAttrs";
  int axis = 0;
  int numNewaxis = 1;
  template <typename V>
  static void fields(V& v) {
    v.required("axis", &ExpandDimsAttrs::axis);
    v("num_newaxis", &ExpandDimsAttrs::numNewaxis);
  }
};

/// squeeze: the unit axes to drop; None drops every static unit axis.
struct SqueezeAttrs {
  static constexpr const char* kTypeKey = "relay.attrs.SqueezeAttrs";
  std::optional<std::vector<int64_t>> axis;
  template <typename V>
  static void fields(V& v) {
    v("axis", &SqueezeAttrs::axis);
  }
};

/// layout_transform: re-block data from one layout to another with the same primal axes.
struct LayoutTransformAttrs {
  static constexpr const char* kTypeKey = "relay.attrs.LayoutTransformAttrs";
  std::string srcLayout;
  std::string dstLayout;
  template <typename V>
  static void fields(V& v) {
    v.required("src_layout", &LayoutTransformAttrs::srcLayout);
    v.required("dst_layout", &LayoutTransformAttrs::dstLayout);
  }
};

/// concatenate: the axis along which the tuple's tensors are joined.
struct ConcatenateAttrs {
  static constexpr const char* kTypeKey = "relay.attrs.ConcatenateAttrs";
  int axis = 0;
  template <typename V>
  static void fields(V& v) {
    v("axis", &ConcatenateAttrs::axis);
  }
};

/// stack: the new axis (in [-rank-1, rank]) along which the tuple's tensors are stacked.
struct StackAttrs {
  static constexpr const char* kTypeKey = "relay.attrs.StackAttrs";
  int axis = 0;
  template <typename V>
  static void fields(V& v) {
    v("axis", &StackAttrs::axis);
  }
};

/// split: an integer N (N equal sections) or a list of ascending split indices.
struct SplitAttrs {
  static constexpr const char* kTypeKey = "relay.attrs.SplitAttrs";
  AttrValue indicesOrSections;
  int axis = 0;
  template <typename V>
  static void fields(V& v) {
    v.required("indices_or_sections", &SplitAttrs::indicesOrSections);
    v("axis", &SplitAttrs::axis);
  }
};

/// strided_slice: numpy-style begin/end/strides, over `axes` (None: the leading axes).
struct StridedSliceAttrs {
  static constexpr const char* kTypeKey = "relay.attrs.StridedSliceAttrs";
  std::optional<std::vector<int64_t>> begin;
  std::optional<std::vector<int64_t>> end;
  std::optional<std::vector<int64_t>> strides;
  std::string sliceMode = "end";
  std::optional<std::vector<int64_t>> axes;
  template <typename V>
  static void fields(V& v) {
    v.alwaysShown("begin", &StridedSliceAttrs::begin);
    v.alwaysShown("end", &StridedSliceAttrs::end);
    v.alwaysShown("strides", &StridedSliceAttrs::strides);
    v("slice_mode", &StridedSliceAttrs::sliceMode);
    v.alwaysShown("axes", &StridedSliceAttrs::axes);
  }
};

/// take: gather along `axis` (None: of the flattened data); out-of-range indices per `mode`.
struct TakeAttrs {
  static constexpr const char* kTypeKey = "relay.attrs.TakeAttrs";
  int batchDims = 0;
  std::optional<int64_t> axis;
  std::string mode = "clip";
  template <typename V>
  static void fields(V& v) {
    v("batch_dims", &TakeAttrs::batchDims);
    v("axis", &TakeAttrs::axis);
    v("mode", &TakeAttrs::mode);
  }
};

/// cast: the target element type.
struct CastAttrs {
  static constexpr const char* kTypeKey = "relay.attrs.CastAttrs";
  DataType dtype;
  template <typename V>
  static void fields(V& v) {
    v.required("dtype", &CastAttrs::dtype);
  }
};

/// annotation.cast_hint: the element type the marked value is meant to be cast to.
struct CastHintAttrs {
  static constexpr const char* kTypeKey = "relay.attrs.CastHintAttrs";
  DataType dtype;
  template <typename V>
  static void fields(V& v) {
    v.required("dtype", &CastHintAttrs::dtype);
  }
};

/// clip: bounds, converted to the data's dtype by the kernel.
struct ClipAttrs {
  static constexpr const char* kTypeKey = "relay.attrs.ClipAttrs";
  double aMin = 0;
  double aMax = 0;
  template <typename V>
  static void fields(V& v) {
    v.required("a_min", &ClipAttrs::aMin);
    v.required("a_max", &ClipAttrs::aMax);
  }
};

/// fixed_point_multiply: multiplication by multiplier * 2^(shift - 31) (spec §3.7).
struct FixedPointMultiplyAttrs {
  static constexpr const char* kTypeKey = "relay.attrs.FixedPointMultiplyAttrs";
  int multiplier = 0;
  int shift = 0;
  template <typename V>
  static void fields(V& v) {
    v.required("multiplier", &FixedPointMultiplyAttrs::multiplier);
    v.required("shift", &FixedPointMultiplyAttrs::shift);
  }
};

// --- unary elementwise (identity type; unary.cc) -------------------------------------------------

/// -x (integers wrap).
Expr negative(Expr data);
/// e^x (floating point only).
Expr exp(Expr data);
/// Natural logarithm (floating point only).
Expr log(Expr data);
/// Base-2 logarithm (floating point only).
Expr log2(Expr data);
/// Base-10 logarithm (floating point only).
Expr log10(Expr data);
/// Square root (floating point only).
Expr sqrt(Expr data);
/// 1 / sqrt(x) (floating point only).
Expr rsqrt(Expr data);
/// Hyperbolic tangent (floating point only).
Expr tanh(Expr data);
/// 1 / (1 + e^-x) (floating point only).
Expr sigmoid(Expr data);
/// Gauss error function (floating point only).
Expr erf(Expr data);
/// Sine (floating point only).
Expr sin(Expr data);
/// Arcsine, arccosine and arctangent (floating point only).
Expr asin(Expr data);
Expr acos(Expr data);
Expr atan(Expr data);
/// Cosine (floating point only).
Expr cos(Expr data);
/// Round half away from zero (integers unchanged).
Expr round(Expr data);
/// Round toward -inf (integers unchanged).
Expr floor(Expr data);
/// Round toward +inf (integers unchanged).
Expr ceil(Expr data);
/// Round toward zero (integers unchanged).
Expr trunc(Expr data);
/// -1, 0 or 1 (NaN stays NaN).
Expr sign(Expr data);
/// |x| (the most negative integer wraps to itself).
Expr abs(Expr data);
/// The same values (any dtype).
Expr copy(Expr data);
/// Logical negation of a bool tensor.
Expr logicalNot(Expr data);
/// Bitwise complement of an integer or bool tensor.
Expr bitwiseNot(Expr data);
/// Bool tensor: x is NaN.
Expr isnan(Expr data);
/// Bool tensor: x is +-inf.
Expr isinf(Expr data);
/// Bool tensor: x is neither NaN nor infinite.
Expr isfinite(Expr data);

// --- binary broadcast (binary.cc) ----------------------------------------------------------------

/// lhs + rhs (integers wrap).
Expr add(Expr lhs, Expr rhs);
/// lhs - rhs (integers wrap).
Expr subtract(Expr lhs, Expr rhs);
/// lhs * rhs (integers wrap).
Expr multiply(Expr lhs, Expr rhs);
/// lhs / rhs; integers truncate toward zero and a zero divisor is an error.
Expr divide(Expr lhs, Expr rhs);
/// floor(lhs / rhs).
Expr floorDivide(Expr lhs, Expr rhs);
/// Remainder of the truncating division (sign of lhs; C fmod for floats).
Expr mod(Expr lhs, Expr rhs);
/// Remainder of the flooring division (sign of rhs).
Expr floorMod(Expr lhs, Expr rhs);
/// lhs ^ rhs.
Expr power(Expr lhs, Expr rhs);
/// Elementwise maximum (NaN propagates).
Expr maximum(Expr lhs, Expr rhs);
/// Elementwise minimum (NaN propagates).
Expr minimum(Expr lhs, Expr rhs);
/// lhs << rhs (integers; shifting by the bit width or more gives 0).
Expr leftShift(Expr lhs, Expr rhs);
/// lhs >> rhs (integers; arithmetic for signed types).
Expr rightShift(Expr lhs, Expr rhs);
/// Bool tensor: lhs == rhs.
Expr equal(Expr lhs, Expr rhs);
/// Bool tensor: lhs != rhs.
Expr notEqual(Expr lhs, Expr rhs);
/// Bool tensor: lhs < rhs.
Expr less(Expr lhs, Expr rhs);
/// Bool tensor: lhs <= rhs.
Expr lessEqual(Expr lhs, Expr rhs);
/// Bool tensor: lhs > rhs.
Expr greater(Expr lhs, Expr rhs);
/// Bool tensor: lhs >= rhs.
Expr greaterEqual(Expr lhs, Expr rhs);
/// Logical and of two bool tensors.
Expr logicalAnd(Expr lhs, Expr rhs);
/// Logical or of two bool tensors.
Expr logicalOr(Expr lhs, Expr rhs);
/// Bitwise and of integer or bool tensors.
Expr bitwiseAnd(Expr lhs, Expr rhs);
/// Bitwise or of integer or bool tensors.
Expr bitwiseOr(Expr lhs, Expr rhs);
/// Bitwise exclusive or of integer or bool tensors.
Expr bitwiseXor(Expr lhs, Expr rhs);

// --- reductions (reduce.cc) ----------------------------------------------------------------------

/// Sum over the reduced axes.
Expr sum(Expr data, ReduceAttrs attrs = {});
/// Mean over the reduced axes (integer dtypes divide with truncation).
Expr mean(Expr data, ReduceAttrs attrs = {});
/// Maximum over the reduced axes (the reduction; elementwise is `maximum`).
Expr max(Expr data, ReduceAttrs attrs = {});
/// Minimum over the reduced axes.
Expr min(Expr data, ReduceAttrs attrs = {});
/// Product over the reduced axes.
Expr prod(Expr data, ReduceAttrs attrs = {});
/// int32 index of the maximum within the reduced axes.
Expr argmax(Expr data, ArgReduceAttrs attrs = {});
/// int32 index of the minimum within the reduced axes.
Expr argmin(Expr data, ArgReduceAttrs attrs = {});

// --- shape transforms (transform_shape.cc) -------------------------------------------------------

/// Reshape with the special values of spec §3.4.
Expr reshape(Expr data, std::vector<int64_t> newshape, bool allowzero = false);
/// Reshape data to (part of) the shape of `shapeLike`.
Expr reshapeLike(Expr data, Expr shapeLike, ReshapeLikeAttrs attrs = {});
/// Permute axes (None: reverse them).
Expr transpose(Expr data, std::optional<std::vector<int64_t>> axes = std::nullopt);
/// Broadcast data to `shape` (numpy rules).
Expr broadcastTo(Expr data, std::vector<int64_t> shape);
/// Insert `numNewaxis` unit axes at `axis`.
Expr expandDims(Expr data, int axis, int numNewaxis = 1);
/// Drop unit axes (None: all static unit axes).
Expr squeeze(Expr data, std::optional<std::vector<int64_t>> axis = std::nullopt);
/// Re-block data from `srcLayout` to `dstLayout` (e.g. "NCHW" to "NCHW16c").
Expr layoutTransform(Expr data, std::string srcLayout, std::string dstLayout);

// --- selection (transform_select.cc) -------------------------------------------------------------

/// Joins tensors along `axis`; the call's single argument is the Tuple of `fields`.
Expr concatenate(std::vector<Expr> fields, int axis = 0);
/// Stacks equal-shaped tensors along a new axis; the call's single argument is a Tuple.
Expr stack(std::vector<Expr> fields, int axis = 0);
/// Splits into `sections` equal parts along `axis`; the call has a TupleType.
Expr split(Expr data, int64_t sections, int axis = 0);
/// Splits before each of the ascending `indices` along `axis`; the call has a TupleType.
Expr split(Expr data, std::vector<int64_t> indices, int axis = 0);
/// Numpy-style slice; strides default to 1 and `axes` (when set) names the sliced axes.
Expr stridedSlice(Expr data, std::vector<int64_t> begin, std::vector<int64_t> end,
                  std::vector<int64_t> strides = {1},
                  std::optional<std::vector<int64_t>> axes = std::nullopt,
                  std::string sliceMode = "end");
/// Gathers along `axis` (None: of the flattened data); mode "clip" (default), "wrap" or "fast".
Expr take(Expr data, Expr indices, std::optional<int64_t> axis = std::nullopt,
          std::string mode = "clip", int batchDims = 0);
/// condition ? x : y, elementwise, with the three shapes broadcast.
Expr where(Expr condition, Expr x, Expr y);

// --- casts, clipping, fixed point, annotations (cast_clip.cc) ------------------------------------

/// Converts the element type (float to int truncates toward zero and saturates; ints wrap).
Expr cast(Expr data, DataType dtype);
/// min(max(x, aMin), aMax) with the bounds converted to x's dtype.
Expr clip(Expr data, double aMin, double aMax);
/// x * multiplier * 2^(shift - 31), rounded, with the exact integer semantics of spec §3.7.
Expr fixedPointMultiply(Expr data, int32_t multiplier, int32_t shift);
/// Identity that FuseOps never fuses across.
Expr stopFusion(Expr data);
/// Identity that marks `data` as to be cast to `dtype` (quantization annotates with it).
Expr castHint(Expr data, DataType dtype);
/// TVM's GetFixedPointMultiplierShift: (multiplier, shift) with value = multiplier * 2^(shift -
/// 31); 0 and non-finite values give (0, 0).
std::pair<int32_t, int32_t> fixedPointMultiplierShift(double value);

// --- creation (creation.cc) ----------------------------------------------------------------------

/// A tensor of zeros.
Expr zeros(std::vector<int64_t> shape, DataType dtype = DataType::float32());
/// A tensor of ones.
Expr ones(std::vector<int64_t> shape, DataType dtype = DataType::float32());
/// A tensor filled with the scalar `fillValue`, converted to `dtype` (void: fillValue's dtype).
Expr full(Expr fillValue, std::vector<int64_t> shape, DataType dtype = DataType::voidType());
/// Zeros of data's type.
Expr zerosLike(Expr data);
/// Ones of data's type.
Expr onesLike(Expr data);
/// data's type filled with the scalar `fillValue`.
Expr fullLike(Expr data, Expr fillValue);

}  // namespace tessera::relay
