// Differential cases: reductions, shape manipulation, selection and creation ops.
#include "te_ops_util.h"

namespace tessera::test {
namespace {

std::string fn(const std::string& params, const std::string& body) {
  return "def @main(" + params + ") { " + body + " }";
}

std::vector<OpCase> build() {
  const std::string x3 = "%x: Tensor[(3, 5, 4), float32]";
  const std::string i3 = "%x: Tensor[(3, 5, 4), int32]";
  std::vector<OpCase> c;
  // Reductions.
  c.push_back({.name = "sum_axis1", .text = fn(x3, "sum(%x, axis=[1])")});
  // Middle axes of a rank-4 tensor, kept (the shape of softmax's reductions, see nn's cases).
  const std::string x4 = "%x: Tensor[(2, 2, 6, 3), float32]";
  for (const char* axis : {"1", "2"}) {
    for (const char* op : {"sum", "max", "mean"}) {
      c.push_back({.name = std::string(op) + "_rank4_keepdims_axis" + axis,
                   .text = fn(x4, std::string(op) + "(%x, axis=[" + axis + "], keepdims=True)")});
    }
  }
  c.push_back({.name = "sum_all", .text = fn(x3, "sum(%x)")});
  c.push_back({.name = "sum_keepdims_neg", .text = fn(x3, "sum(%x, axis=[-1, 0], keepdims=True)")});
  c.push_back({.name = "sum_i32", .text = fn(i3, "sum(%x, axis=[2])"), .lo = -50, .hi = 50});
  c.push_back({.name = "mean_axis2", .text = fn(x3, "mean(%x, axis=[2])")});
  c.push_back({.name = "mean_i32", .text = fn(i3, "mean(%x, axis=[1])"), .lo = -50, .hi = 50});
  c.push_back({.name = "max_exclude", .text = fn(x3, "max(%x, axis=[1], exclude=True)")});
  c.push_back({.name = "min_axis0", .text = fn(x3, "min(%x, axis=[0])")});
  c.push_back({.name = "min_i32", .text = fn(i3, "min(%x)"), .lo = -50, .hi = 50});
  // Negative draws wrap to the top of the unsigned range.
  const std::string u3 = "%x: Tensor[(3, 5, 4), uint32]";
  c.push_back({.name = "max_u32", .text = fn(u3, "max(%x, axis=[1])"), .lo = -50, .hi = 50});
  c.push_back({.name = "min_u32", .text = fn(u3, "min(%x)"), .lo = -50, .hi = 50});
  c.push_back({.name = "argmax_u32", .text = fn(u3, "argmax(%x, axis=[2])"), .lo = -50, .hi = 50});
  c.push_back({.name = "prod_axis1", .text = fn(x3, "prod(%x, axis=[1])"), .lo = 0.5, .hi = 1.5});
  c.push_back({.name = "argmax_axis1", .text = fn(x3, "argmax(%x, axis=[1])")});
  c.push_back({.name = "argmax_all", .text = fn(x3, "argmax(%x)")});
  c.push_back({.name = "argmax_two_axes_keepdims",
               .text = fn(x3, "argmax(%x, axis=[0, 2], keepdims=True)")});
  c.push_back({.name = "argmin_axis2", .text = fn(x3, "argmin(%x, axis=[2])")});
  // Ties: integer data in a small range; first index wins unless select_last_index.
  c.push_back(
      {.name = "argmax_ties_i32", .text = fn(i3, "argmax(%x, axis=[1])"), .lo = -2, .hi = 2});
  c.push_back({.name = "argmin_last_index_i32",
               .text = fn(i3, "argmin(%x, axis=[1], select_last_index=True)"),
               .lo = -2,
               .hi = 2});
  // Shapes.
  c.push_back({.name = "reshape", .text = fn(x3, "reshape(%x, newshape=[-1, 6])")});
  c.push_back({.name = "reshape_like",
               .text = fn(x3 + ", %y: Tensor[(4, 15), float32]", "reshape_like(%x, %y)")});
  c.push_back({.name = "transpose_axes", .text = fn(x3, "transpose(%x, axes=[2, 0, 1])")});
  c.push_back({.name = "transpose_reverse", .text = fn(x3, "transpose(%x)")});
  c.push_back({.name = "broadcast_to",
               .text = fn("%x: Tensor[(3, 1), float32]", "broadcast_to(%x, shape=[2, 3, 5])")});
  c.push_back({.name = "expand_dims", .text = fn(x3, "expand_dims(%x, axis=1, num_newaxis=2)")});
  c.push_back({.name = "squeeze",
               .text = fn("%x: Tensor[(3, 1, 5, 1), float32]", "squeeze(%x, axis=[1])")});
  c.push_back(
      {.name = "squeeze_all", .text = fn("%x: Tensor[(3, 1, 5, 1), float32]", "squeeze(%x)")});
  c.push_back({.name = "batch_flatten", .text = fn(x3, "nn.batch_flatten(%x)")});
  c.push_back({.name = "layout_transform_to_nchw4c",
               .text = fn("%x: Tensor[(2, 8, 3, 5), float32]",
                          "layout_transform(%x, src_layout=\"NCHW\", dst_layout=\"NCHW4c\")")});
  c.push_back({.name = "layout_transform_from_nchw4c",
               .text = fn("%x: Tensor[(2, 2, 3, 5, 4), float32]",
                          "layout_transform(%x, src_layout=\"NCHW4c\", dst_layout=\"NHWC\")")});
  c.push_back(
      {.name = "concatenate",
       .text = fn(x3 + ", %y: Tensor[(3, 2, 4), float32]", "concatenate((%x, %y), axis=1)")});
  c.push_back(
      {.name = "concatenate_three_neg_axis",
       .text = fn(
           "%x: Tensor[(2, 3), float32], %y: Tensor[(2, 1), float32], %z: Tensor[(2, 4), float32]",
           "concatenate((%x, %y, %z), axis=-1)")});
  c.push_back({.name = "stack",
               .text = fn("%x: Tensor[(3, 5), float32], %y: Tensor[(3, 5), float32]",
                          "stack((%x, %y), axis=1)")});
  c.push_back(
      {.name = "split_sections", .text = fn(x3, "split(%x, indices_or_sections=5, axis=1)")});
  c.push_back(
      {.name = "split_indices", .text = fn(x3, "split(%x, indices_or_sections=[1, 3], axis=-1)")});
  c.push_back({.name = "split_item",
               .text = fn(x3, "%0 = split(%x, indices_or_sections=[2], axis=1); %0.1")});
  c.push_back(
      {.name = "strided_slice",
       .text = fn(x3, "strided_slice(%x, begin=[1, 0], end=[3, 5], strides=[1, 2], axes=None)")});
  c.push_back({.name = "strided_slice_negative",
               .text = fn(x3, "strided_slice(%x, begin=[-1], end=[0], strides=[-2], axes=[1])")});
  c.push_back({.name = "take_axis0",
               .text = fn(x3 + ", %i: Tensor[(2, 3), int32]", "take(%x, %i, axis=0)"),
               .lo = -1,
               .hi = 5});
  c.push_back({.name = "take_flat_wrap",
               .text = fn(x3 + ", %i: Tensor[(7), int32]", "take(%x, %i, mode=\"wrap\")"),
               .lo = -80,
               .hi = 80});
  c.push_back({.name = "take_axis2_clip",
               .text = fn(x3 + ", %i: Tensor[(3), int32]", "take(%x, %i, axis=2)"),
               .lo = -6,
               .hi = 8});
  c.push_back(
      {.name = "where",
       .text = fn("%c: Tensor[(3, 1), bool], %x: Tensor[(3, 5), float32], %y: Tensor[(5), float32]",
                  "where(%c, %x, %y)")});
  // Creation.
  c.push_back({.name = "zeros", .text = fn("", "zeros(shape=[2, 3], dtype=\"float32\")")});
  c.push_back({.name = "ones_i32", .text = fn("", "ones(shape=[3], dtype=\"int32\")")});
  c.push_back({.name = "full",
               .text = fn("%v: Tensor[(), float32]", "full(%v, shape=[2, 3], dtype=\"float32\")")});
  c.push_back(
      {.name = "full_like", .text = fn(x3 + ", %v: Tensor[(), float32]", "full_like(%x, %v)")});
  c.push_back({.name = "zeros_like", .text = fn(x3, "zeros_like(%x)")});
  c.push_back({.name = "ones_like", .text = fn(i3, "ones_like(%x)")});
  return c;
}

}  // namespace

const std::vector<OpCase>& tensorCases() {
  static const std::vector<OpCase> cases = build();
  return cases;
}

}  // namespace tessera::test
