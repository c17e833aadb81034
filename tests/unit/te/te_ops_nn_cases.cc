// Differential cases: nn.* ops (CNN, MLP and transformer building blocks) and fused functions as
// FuseOps produces them (conv2d+bias+relu, dense+add+relu, a ResNet block).
#include "te_ops_util.h"

namespace tessera::test {
namespace {

std::string fn(const std::string& params, const std::string& body) {
  return "def @main(" + params + ") { " + body + " }";
}

std::vector<OpCase> build() {
  std::vector<OpCase> c;
  const double tol = 1e-4;
  const std::string img = "%x: Tensor[(1, 4, 7, 9), float32]";
  c.push_back({.name = "conv2d_3x3_pad1",
               .text = fn(img + ", %w: Tensor[(6, 4, 3, 3), float32]",
                          "nn.conv2d(%x, %w, padding=[1, 1, 1, 1])"),
               .rtol = tol,
               .atol = tol});
  c.push_back({.name = "conv2d_stride2_asym_pad",
               .text = fn(img + ", %w: Tensor[(5, 4, 3, 2), float32]",
                          "nn.conv2d(%x, %w, strides=[2, 2], padding=[1, 0, 2, 1])"),
               .rtol = tol,
               .atol = tol});
  c.push_back({.name = "conv2d_dilation",
               .text = fn(img + ", %w: Tensor[(3, 4, 3, 3), float32]",
                          "nn.conv2d(%x, %w, dilation=[2, 1], padding=[1, 1, 1, 1])"),
               .rtol = tol,
               .atol = tol});
  c.push_back({.name = "conv2d_groups2",
               .text = fn(img + ", %w: Tensor[(6, 2, 3, 3), float32]",
                          "nn.conv2d(%x, %w, padding=[1, 1, 1, 1], groups=2)"),
               .rtol = tol,
               .atol = tol});
  // The op's own TE compute (dilate + pad, flipped-kernel conv); at opt level 3 Legalize replaces
  // it first (build_conv_transpose_test.cc).
  // nn.conv3d's own compute (generic schedule): strides, asymmetric padding, dilation, groups.
  const std::string vol = "%x: Tensor[(1, 4, 5, 6, 7), float32]";
  c.push_back({.name = "conv3d_stride_asym_pad",
               .text = fn(vol + ", %w: Tensor[(3, 4, 3, 2, 3), float32]",
                          "nn.conv3d(%x, %w, strides=[2, 1, 2], padding=[1, 0, 1, 0, 1, 1])"),
               .rtol = tol,
               .atol = tol});
  c.push_back({.name = "conv3d_groups_dilation",
               .text = fn(vol + ", %w: Tensor[(6, 2, 2, 3, 2), float32]",
                          "nn.conv3d(%x, %w, padding=[1, 1, 1, 1, 1, 1], dilation=[2, 1, 3], "
                          "groups=2)"),
               .rtol = tol,
               .atol = tol});
  // Non-dividing output sizes: windows of different widths that overlap.
  c.push_back({.name = "adaptive_avg_pool3d",
               .text = fn(vol, "nn.adaptive_avg_pool3d(%x, output_size=[2, 4, 3])"),
               .rtol = tol,
               .atol = tol});
  c.push_back(
      {.name = "global_avg_pool3d_ndhwc",
       .text = fn(vol, "nn.adaptive_avg_pool3d(%x, output_size=[1, 1, 1], layout=\"NDHWC\")"),
       .rtol = tol,
       .atol = tol});
  c.push_back({.name = "conv2d_transpose_stride2_outpad",
               .text = fn(img + ", %w: Tensor[(4, 3, 3, 3), float32]",
                          "nn.conv2d_transpose(%x, %w, strides=[2, 2], output_padding=[1, 0], "
                          "padding=[1, 1, 0, 1])"),
               .rtol = tol,
               .atol = tol});
  c.push_back({.name = "conv2d_transpose_groups_dilation_crop",
               .text = fn(img + ", %w: Tensor[(4, 2, 2, 3), float32]",
                          "nn.conv2d_transpose(%x, %w, strides=[1, 2], padding=[2, 0, 1, 1], "
                          "dilation=[1, 2], groups=2)"),
               .rtol = tol,
               .atol = tol});
  c.push_back({.name = "conv2d_depthwise",
               .text = fn(img + ", %w: Tensor[(4, 1, 3, 3), float32]",
                          "nn.conv2d(%x, %w, padding=[1, 1, 1, 1], groups=4)"),
               .rtol = tol,
               .atol = tol});
  c.push_back({.name = "conv2d_depthwise_multiplier",
               .text = fn(img + ", %w: Tensor[(8, 1, 3, 3), float32]",
                          "nn.conv2d(%x, %w, strides=[2, 2], padding=[1, 1, 1, 1], groups=4, "
                          "channels=8, kernel_size=[3, 3])"),
               .rtol = tol,
               .atol = tol});
  c.push_back(
      {.name = "conv2d_nhwc",
       .text = fn(
           "%x: Tensor[(1, 7, 9, 4), float32], %w: Tensor[(3, 3, 4, 5), float32]",
           "nn.conv2d(%x, %w, padding=[1, 1, 1, 1], data_layout=\"NHWC\", kernel_layout=\"HWIO\")"),
       .rtol = tol,
       .atol = tol});
  c.push_back(
      {.name = "conv2d_nchwc",
       .text = fn("%x: Tensor[(1, 2, 6, 5, 4), float32], %w: Tensor[(3, 2, 3, 3, 4, 2), float32]",
                  "nn.conv2d(%x, %w, padding=[1, 1, 1, 1], channels=6, kernel_size=[3, 3], "
                  "data_layout=\"NCHW4c\", kernel_layout=\"OIHW4i2o\", out_layout=\"NCHW2c\")"),
       .rtol = tol,
       .atol = tol});
  c.push_back(
      {.name = "conv2d_nhwc_to_nchw_generic",
       .text = fn(
           "%x: Tensor[(1, 5, 6, 4), float32], %w: Tensor[(3, 4, 3, 3), float32]",
           "nn.conv2d(%x, %w, data_layout=\"NHWC\", kernel_layout=\"OIHW\", out_layout=\"NCHW\")"),
       .rtol = tol,
       .atol = tol});
  c.push_back({.name = "conv2d_int8_to_int32",
               .text = fn("%x: Tensor[(1, 3, 5, 5), int8], %w: Tensor[(2, 3, 3, 3), int8]",
                          "nn.conv2d(%x, %w, padding=[1, 1, 1, 1], out_dtype=\"int32\")"),
               .lo = -60,
               .hi = 60});
  c.push_back({.name = "dense",
               .text = fn("%x: Tensor[(3, 17), float32], %w: Tensor[(5, 17), float32]",
                          "nn.dense(%x, %w, units=None)"),
               .rtol = tol,
               .atol = tol});
  c.push_back({.name = "dense_3d_data",
               .text = fn("%x: Tensor[(2, 3, 8), float32], %w: Tensor[(5, 8), float32]",
                          "nn.dense(%x, %w, units=None)"),
               .rtol = tol,
               .atol = tol});
  c.push_back({.name = "dense_int8",
               .text = fn("%x: Tensor[(3, 9), int8], %w: Tensor[(4, 9), int8]",
                          "nn.dense(%x, %w, units=None, out_dtype=\"int32\")"),
               .lo = -100,
               .hi = 100});
  c.push_back({.name = "batch_matmul_nt",
               .text = fn("%a: Tensor[(2, 3, 7), float32], %b: Tensor[(2, 5, 7), float32]",
                          "nn.batch_matmul(%a, %b, transpose_b=True)"),
               .rtol = tol,
               .atol = tol});
  c.push_back({.name = "batch_matmul_nn_broadcast",
               .text = fn("%a: Tensor[(3, 3, 7), float32], %b: Tensor[(1, 7, 5), float32]",
                          "nn.batch_matmul(%a, %b)"),
               .rtol = tol,
               .atol = tol});
  c.push_back({.name = "batch_matmul_tt",
               .text = fn("%a: Tensor[(2, 7, 3), float32], %b: Tensor[(2, 5, 7), float32]",
                          "nn.batch_matmul(%a, %b, transpose_a=True, transpose_b=True)"),
               .rtol = tol,
               .atol = tol});
  const std::string bn =
      "%x: Tensor[(2, 3, 4, 5), float32], %g: Tensor[(3), float32], %b: Tensor[(3), float32], %m: "
      "Tensor[(3), float32], %v: Tensor[(3), float32]";
  c.push_back({.name = "batch_norm",
               .text = fn(bn, "nn.batch_norm(%x, %g, %b, %m, %v)"),
               .lo = 0.1,
               .hi = 2,
               .rtol = tol,
               .atol = tol});
  c.push_back(
      {.name = "batch_norm_item0",
       .text = fn(bn, "%0 = nn.batch_norm(%x, %g, %b, %m, %v, epsilon=0.001f, center=False); %0.0"),
       .lo = 0.1,
       .hi = 2,
       .rtol = tol,
       .atol = tol});
  c.push_back(
      {.name = "layer_norm",
       .text = fn("%x: Tensor[(3, 7), float32], %g: Tensor[(7), float32], %b: Tensor[(7), float32]",
                  "nn.layer_norm(%x, %g, %b)"),
       .rtol = tol,
       .atol = tol});
  c.push_back(
      {.name = "layer_norm_axis1",
       .text =
           fn("%x: Tensor[(2, 5, 3), float32], %g: Tensor[(5), float32], %b: Tensor[(5), float32]",
              "nn.layer_norm(%x, %g, %b, axis=1, scale=False)"),
       .rtol = tol,
       .atol = tol});
  c.push_back({.name = "bias_add",
               .text = fn("%x: Tensor[(2, 3, 5), float32], %b: Tensor[(3), float32]",
                          "nn.bias_add(%x, %b)")});
  c.push_back({.name = "bias_add_last_axis",
               .text = fn("%x: Tensor[(2, 3, 5), float32], %b: Tensor[(5), float32]",
                          "nn.bias_add(%x, %b, axis=-1)")});
  c.push_back({.name = "dropout", .text = fn("%x: Tensor[(3, 5), float32]", "nn.dropout(%x)")});
  c.push_back({.name = "relu", .text = fn("%x: Tensor[(3, 5), float32]", "nn.relu(%x)")});
  c.push_back(
      {.name = "relu_i32", .text = fn("%x: Tensor[(7), int32]", "nn.relu(%x)"), .lo = -9, .hi = 9});
  c.push_back({.name = "leaky_relu",
               .text = fn("%x: Tensor[(3, 5), float32]", "nn.leaky_relu(%x, alpha=0.1f)")});
  c.push_back({.name = "softmax",
               .text = fn("%x: Tensor[(3, 7), float32]", "nn.softmax(%x)"),
               .lo = -4,
               .hi = 4,
               .rtol = tol,
               .atol = 1e-6});
  c.push_back({.name = "softmax_axis1",
               .text = fn("%x: Tensor[(2, 5, 3), float32]", "nn.softmax(%x, axis=1)"),
               .lo = -4,
               .hi = 4,
               .rtol = tol,
               .atol = 1e-6});
  c.push_back({.name = "log_softmax",
               .text = fn("%x: Tensor[(3, 7), float32]", "nn.log_softmax(%x)"),
               .lo = -4,
               .hi = 4,
               .rtol = tol,
               .atol = tol});
  // Normalizations over a middle axis of a rank-4 tensor (graph fuzzer seed 2316: the plain loop
  // nests of softmax over axis 2 of this shape were miscompiled by LLVM's SLP vectorizer).
  const std::string x4 = "%x: Tensor[(2, 2, 6, 3), float32]";
  for (const char* axis : {"1", "2"}) {
    c.push_back({.name = std::string("softmax_rank4_axis") + axis,
                 .text = fn(x4, std::string("nn.softmax(%x, axis=") + axis + ")"),
                 .lo = -4,
                 .hi = 4,
                 .rtol = tol,
                 .atol = 1e-6});
    c.push_back({.name = std::string("log_softmax_rank4_axis") + axis,
                 .text = fn(x4, std::string("nn.log_softmax(%x, axis=") + axis + ")"),
                 .lo = -4,
                 .hi = 4,
                 .rtol = tol,
                 .atol = tol});
  }
  c.push_back({.name = "layer_norm_rank4_axis2",
               .text = fn(x4 + ", %g: Tensor[(6), float32], %b: Tensor[(6), float32]",
                          "nn.layer_norm(%x, %g, %b, axis=2)"),
               .rtol = tol,
               .atol = tol});
  const std::string pimg = "%x: Tensor[(1, 3, 7, 8), float32]";
  c.push_back(
      {.name = "max_pool2d",
       .text =
           fn(pimg, "nn.max_pool2d(%x, pool_size=[3, 3], strides=[2, 2], padding=[1, 1, 1, 1])")});
  c.push_back(
      {.name = "max_pool2d_ceil",
       .text = fn(pimg, "nn.max_pool2d(%x, pool_size=[2, 3], strides=[2, 2], ceil_mode=True)")});
  c.push_back({.name = "max_pool2d_nhwc",
               .text = fn("%x: Tensor[(1, 7, 8, 3), float32]",
                          "nn.max_pool2d(%x, pool_size=[2, 2], strides=[1, 2], dilation=[2, 1], "
                          "layout=\"NHWC\")")});
  c.push_back(
      {.name = "avg_pool2d",
       .text =
           fn(pimg, "nn.avg_pool2d(%x, pool_size=[3, 3], strides=[2, 2], padding=[1, 1, 1, 1])"),
       .rtol = tol,
       .atol = tol});
  c.push_back({.name = "avg_pool2d_count_pad_ceil",
               .text = fn(pimg,
                          "nn.avg_pool2d(%x, pool_size=[3, 2], strides=[2, 3], padding=[1, 0, 1, "
                          "1], ceil_mode=True, count_include_pad=True)"),
               .rtol = tol,
               .atol = tol});
  c.push_back({.name = "global_avg_pool2d",
               .text = fn(pimg, "nn.global_avg_pool2d(%x)"),
               .rtol = tol,
               .atol = tol});
  c.push_back({.name = "global_max_pool2d", .text = fn(pimg, "nn.global_max_pool2d(%x)")});
  // Negative draws wrap to the top of uint8's range: the maximum must order them as unsigned.
  c.push_back({.name = "max_pool2d_uint8",
               .text = fn("%x: Tensor[(1, 3, 7, 8), uint8]",
                          "nn.max_pool2d(%x, pool_size=[3, 3], strides=[2, 2], padding=[1, 1, 1, "
                          "1])"),
               .lo = -100,
               .hi = 100});
  c.push_back({.name = "global_max_pool2d_uint16",
               .text = fn("%x: Tensor[(1, 3, 7, 8), uint16]", "nn.global_max_pool2d(%x)"),
               .lo = -100,
               .hi = 100});
  c.push_back({.name = "adaptive_avg_pool2d",
               .text = fn(pimg, "nn.adaptive_avg_pool2d(%x, output_size=[3, 5])"),
               .rtol = tol,
               .atol = tol});
  c.push_back(
      {.name = "pad_constant",
       .text = fn("%x: Tensor[(3, 5), float32]", "nn.pad(%x, 0.5f, pad_width=[[1, 2], [0, 3]])")});
  c.push_back({.name = "pad_edge",
               .text = fn("%x: Tensor[(3, 5), float32]",
                          "nn.pad(%x, 0f, pad_width=[[2, 1], [1, 3]], pad_mode=\"edge\")")});
  c.push_back({.name = "pad_reflect",
               .text = fn("%x: Tensor[(3, 5), float32]",
                          "nn.pad(%x, 0f, pad_width=[[2, 1], [1, 3]], pad_mode=\"reflect\")")});
  // Fused functions as FuseOps produces them.
  c.push_back(
      {.name = "fused_conv2d_bias_relu",
       .text = fn(img + ", %w: Tensor[(6, 4, 3, 3), float32], %b: Tensor[(6, 1, 1), float32]",
                  "%0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1]); %1 = add(%0, %b); nn.relu(%1)"),
       .rtol = tol,
       .atol = tol});
  c.push_back(
      {.name = "fused_dense_add_relu",
       .text = fn(
           "%x: Tensor[(3, 17), float32], %w: Tensor[(5, 17), float32], %b: Tensor[(5), float32]",
           "%0 = nn.dense(%x, %w, units=None); %1 = add(%0, %b); nn.relu(%1)"),
       .rtol = tol,
       .atol = tol});
  c.push_back(
      {.name = "fused_resnet_block",
       .text = fn(
           "%x: Tensor[(1, 4, 6, 6), float32], %w1: Tensor[(4, 4, 3, 3), float32], %b1: Tensor[(4, "
           "1, 1), float32], %w2: Tensor[(4, 4, 3, 3), float32], %b2: Tensor[(4, 1, 1), float32]",
           "%0 = nn.conv2d(%x, %w1, padding=[1, 1, 1, 1]); %1 = add(%0, %b1); %2 = nn.relu(%1); %3 "
           "= nn.conv2d(%2, %w2, padding=[1, 1, 1, 1]); %4 = add(%3, %b2); %5 = add(%4, %x); "
           "nn.relu(%5)"),
       .rtol = tol,
       .atol = tol});
  c.push_back({.name = "fused_attention_scores",
               .text = fn("%q: Tensor[(2, 5, 8), float32], %k: Tensor[(2, 5, 8), float32]",
                          "%0 = nn.batch_matmul(%q, %k, transpose_b=True); %1 = multiply(%0, "
                          "0.35f); nn.softmax(%1)"),
               .rtol = tol,
               .atol = 1e-6});
  c.push_back({.name = "fused_gelu_erf",
               .text = fn("%x: Tensor[(3, 7), float32]",
                          "%0 = multiply(%x, 0.707107f); %1 = erf(%0); %2 = multiply(%1, 0.5f); %3 "
                          "= add(0.5f, %2); multiply(%x, %3)"),
               .lo = -3,
               .hi = 3,
               .rtol = tol,
               .atol = 1e-6});
  return c;
}

}  // namespace

const std::vector<OpCase>& nnCases() {
  static const std::vector<OpCase> cases = build();
  return cases;
}

}  // namespace tessera::test
