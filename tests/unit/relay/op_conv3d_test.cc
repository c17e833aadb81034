// nn.conv3d and nn.adaptive_avg_pool3d: the type relations (shapes, the weight assigned from
// channels and kernel_size, located errors), the reference kernels against hand-computed values
// and, for conv3d, against a sum of nn.conv2d over depth slices (an independent kernel), and
// TVM 0.16's printed text of resnet_3d's calls.
#include "relay/op/nn_conv3d.h"

#include "op_nn_test_util.h"
#include "relay/text/parser.h"
#include "relay/text/printer.h"

namespace tessera::relay {
namespace {

Attrs attrs(Conv3DAttrs a) {
  return makeAttrs(std::move(a));
}

Attrs poolAttrs(std::vector<int64_t> outputSize, std::string layout = "NCDHW") {
  return makeAttrs(AdaptivePool3DAttrs{.outputSize = std::move(outputSize), .layout = layout});
}

TEST(Conv3d, TypeFollowsTheSlidingWindow) {
  Conv3DAttrs a;
  a.strides = {1, 2, 2};
  a.padding = {1, 3, 3, 1, 3, 3};
  // resnet_3d's stem: (16 + 2 - 3) / 1 + 1 = 16, (112 + 6 - 7) / 2 + 1 = 56
  EXPECT_EQ(typeOf("nn.conv3d", {tt({1, 3, 16, 112, 112}), tt({64, 3, 3, 7, 7})}, attrs(a)),
            "Tensor[(1, 64, 16, 56, 56), float32]");
  Conv3DAttrs g;
  g.groups = 2;
  g.dilation = {2, 1, 1};
  g.padding = {1};
  EXPECT_EQ(typeOf("nn.conv3d", {tt({2, 4, 5, 4, 4}), tt({6, 2, 3, 3, 3})}, attrs(g)),
            "Tensor[(2, 6, 3, 4, 4), float32]");
}

TEST(Conv3d, ChannelsAndKernelSizeAssignTheWeight) {
  Conv3DAttrs a;
  a.channels = 8;
  a.kernelSize = std::vector<int64_t>{1, 3, 3};
  a.padding = {0, 1, 1, 0, 1, 1};
  std::string out;
  auto types = assigned("nn.conv3d", {tt({1, 6, 4, 7, 7}), nullptr}, attrs(a), &out);
  EXPECT_EQ(types[1], "Tensor[(8, 6, 1, 3, 3), float32]");
  EXPECT_EQ(out, "Tensor[(1, 8, 4, 7, 7), float32]");
}

TEST(Conv3d, BadShapesAndAttributesAreLocatedErrors) {
  const Conv3DAttrs a;
  expectTypeError("nn.conv3d", {tt({1, 4, 5, 5}), tt({3, 4, 3, 3, 3})}, attrs(a), "conv3d_c2",
                  {"(1, 4, 5, 5)", "NCDHW"});
  expectTypeError("nn.conv3d", {tt({1, 4, 5, 5, 5}), tt({3, 2, 3, 3, 3})}, attrs(a), "conv3d_c2",
                  {"(3, 2, 3, 3, 3)", "needs 4"});
  Conv3DAttrs layout = a;
  layout.dataLayout = "NDHWC";
  expectTypeError("nn.conv3d", {tt({1, 5, 5, 5, 4}), tt({3, 4, 3, 3, 3})}, attrs(layout),
                  "conv3d_c1", {"NDHWC"});
  Conv3DAttrs pad = a;
  pad.padding = {1, 1};
  expectTypeError("nn.conv3d", {tt({1, 4, 5, 5, 5}), tt({3, 4, 3, 3, 3})}, attrs(pad), "conv3d_c1",
                  {"padding", "[1, 1]"});
  expectTypeError("nn.conv3d", {tt({1, 4, 2, 5, 5}), tt({3, 4, 3, 3, 3})}, attrs(a), "conv3d_c3",
                  {"exceeds", "(1, 4, 2, 5, 5)"});
}

TEST(Conv3d, KernelMatchesHandComputedValues) {
  // One channel, a 2x2x2 window of ones over a 2x2x3 volume 0..11 with padding 1 in depth only:
  // each output (z, 0, x) sums the real taps of depths z-1 and z over rows 0-1, columns x..x+1.
  Conv3DAttrs a;
  a.padding = {1, 0, 0, 1, 0, 0};
  Values data(12);
  for (int i = 0; i < 12; ++i) data[i] = i;
  const NDArray x = t({1, 1, 2, 2, 3}, data), w = t({1, 1, 2, 2, 2}, Values(8, 1.0));
  // depth 0: rows {0,1,2},{3,4,5}; depth 1: {6,7,8},{9,10,11}
  // z=0 sees depth 0: x=0 -> 0+1+3+4 = 8, x=1 -> 1+2+4+5 = 12
  // z=1 sees depths 0 and 1: 8 + 6+7+9+10 = 40, 12 + 7+8+10+11 = 48; z=2 sees depth 1: 32, 36
  expectNear(run("nn.conv3d", {Value(x), Value(w)}, attrs(a)), {8, 12, 40, 48, 32, 36});
}

// The slice data[:, :, z] of an NCDHW tensor as NCHW.
NDArray depthSlice(const NDArray& x, int64_t z) {
  const auto& s = x.shape();
  NDArray out = NDArray::empty({s[0], s[1], s[3], s[4]}, x.dtype());
  const int64_t plane = s[3] * s[4];
  for (int64_t nc = 0; nc < s[0] * s[1]; ++nc)
    for (int64_t i = 0; i < plane; ++i)
      out.setFloat(nc * plane + i, x.getFloat((nc * s[2] + z) * plane + i));
  return out;
}

TEST(Conv3d, KernelEqualsConv2dSummedOverDepth) {
  struct Case {
    std::vector<int64_t> data, weight, strides, padding, dilation;
    int64_t groups;
  };
  const Case cases[] = {
      {{1, 4, 5, 6, 7}, {3, 4, 3, 2, 3}, {2, 1, 2}, {1, 0, 1, 0, 1, 1}, {1, 1, 1}, 1},
      {{2, 4, 4, 5, 5}, {6, 2, 2, 3, 2}, {1, 2, 1}, {1, 1, 0, 1, 2, 1}, {2, 1, 2}, 2},
  };
  uint64_t seed = 5;
  for (const Case& c : cases) {
    Conv3DAttrs a;
    a.strides = c.strides, a.padding = c.padding, a.dilation = c.dilation, a.groups = c.groups;
    const NDArray data = test::randomTensor(c.data, kF32, seed++, -1, 1);
    const NDArray w = test::randomTensor(c.weight, kF32, seed++, -1, 1);
    const nn::Conv3DGeometry g = nn::conv3dGeometry(a, data.shape(), w.shape());
    // out[:, :, z] = sum over kd of conv2d(data[:, :, z * sd - front + kd * dd], w[:, :, kd]).
    Conv2DAttrs plane;
    plane.strides = {c.strides[1], c.strides[2]};
    plane.padding = {c.padding[1], c.padding[2], c.padding[4], c.padding[5]};
    plane.dilation = {c.dilation[1], c.dilation[2]};
    plane.groups = c.groups;
    const int64_t planeSize = g.out[1] * g.out[2];
    Values want(g.batch * g.outChannels * g.out[0] * planeSize, 0.0);
    for (int64_t z = 0; z < g.out[0]; ++z)
      for (int64_t kd = 0; kd < g.kernel[0]; ++kd) {
        const int64_t iz = z * c.strides[0] - c.padding[0] + kd * c.dilation[0];
        if (iz < 0 || iz >= c.data[2]) continue;
        const Values part = run(
            "nn.conv2d", {Value(depthSlice(data, iz)), Value(depthSlice(w, kd))}, makeAttrs(plane));
        for (int64_t bo = 0; bo < g.batch * g.outChannels; ++bo)
          for (int64_t i = 0; i < planeSize; ++i)
            want[(bo * g.out[0] + z) * planeSize + i] += part[bo * planeSize + i];
      }
    expectNear(run("nn.conv3d", {Value(data), Value(w)}, attrs(a)), want, 1e-5);
  }
}

TEST(AdaptiveAvgPool3d, TypeAndErrors) {
  EXPECT_EQ(typeOf("nn.adaptive_avg_pool3d", {tt({1, 8, 4, 7, 7})}, poolAttrs({1, 1, 1})),
            "Tensor[(1, 8, 1, 1, 1), float32]");
  EXPECT_EQ(typeOf("nn.adaptive_avg_pool3d", {tt({1, 4, 7, 7, 8})}, poolAttrs({2}, "NDHWC")),
            "Tensor[(1, 2, 2, 2, 8), float32]");
  EXPECT_EQ(typeOf("nn.adaptive_avg_pool3d", {tt({1, 8, 4, 7, 7})}, poolAttrs({})),
            "Tensor[(1, 8, 4, 7, 7), float32]");
  expectTypeError("nn.adaptive_avg_pool3d", {tt({1, 8, 4, 7, 7})}, poolAttrs({1, 1}), "pool3d_c2",
                  {"output_size", "[1, 1]"});
  expectTypeError("nn.adaptive_avg_pool3d", {tt({1, 8, 7, 7})}, poolAttrs({1, 1, 1}), "pool3d_c1",
                  {"(1, 8, 7, 7)", "NCDHW"});
  expectTypeError("nn.adaptive_avg_pool3d", {tt({1, 8, 7, 7})}, poolAttrs({1}, "NCHW"), "pool3d_c1",
                  {"NCHW", "D, H and W"});
}

TEST(AdaptiveAvgPool3d, KernelAveragesOverlappingWindows) {
  // Depth 3 to 2: windows [0, 2) and [1, 3); H and W 1 to 1. Values 0, 1, 2 along depth.
  const NDArray x = t({1, 1, 3, 1, 1}, {0, 1, 2});
  expectNear(run("nn.adaptive_avg_pool3d", {Value(x)}, poolAttrs({2, 1, 1})), {0.5, 1.5});
  // Global: the mean of 0..7 per channel (2 channels, 2x2x2 each).
  Values v(16);
  for (int i = 0; i < 16; ++i) v[i] = i;
  expectNear(run("nn.adaptive_avg_pool3d", {Value(t({1, 2, 2, 2, 2}, v))}, poolAttrs({1, 1, 1})),
             {3.5, 11.5});
}

TEST(Conv3d, TvmTextRoundTrips) {
  // resnet_3d's stem and head as TVM 0.16 prints them: non-default fields only, in the attribute
  // structs' order; relay.nn.global_avg_pool3d prints as adaptive_avg_pool3d.
  const std::string conv =
      "nn.conv3d(%x, %w, strides=[1, 2, 2], padding=[1, 3, 3, 1, 3, 3], channels=64, "
      "kernel_size=[3, 7, 7])";
  const std::string text =
      "#[version = \"0.0.5\"]\n"
      "def @main(%x: Tensor[(1, 3, 16, 112, 112), float32], %w: Tensor[(64, 3, 3, 7, 7), "
      "float32]) -> Tensor[(1, 64, 1, 1, 1), float32] {\n"
      "  %0 = " +
      conv +
      ";\n"
      "  nn.adaptive_avg_pool3d(%0, output_size=[1, 1, 1])\n"
      "}\n";
  const IRModule m = inferTypes(parseModule(text, "<resnet_3d>"));
  EXPECT_EQ(typeToString(m.main()->body->checkedType), "Tensor[(1, 64, 1, 1, 1), float32]");
  const std::string printed = printModule(m, {.header = true, .types = false});
  EXPECT_EQ(printed, text);
  // The builders normalise as TVM's Python API does.
  Conv3DAttrs a;
  a.padding = {1, 3, 3};
  a.strides = {2};
  a.kernelSize = std::vector<int64_t>{3};
  const Expr built = nn::conv3d(makeVar("x"), makeVar("w"), a);
  EXPECT_EQ(printedAttrs(built),
            "strides=[2, 2, 2], padding=[1, 3, 3, 1, 3, 3], kernel_size=[3, 3, 3]");
  EXPECT_EQ(printedAttrs(nn::globalAvgPool3d(makeVar("x"))), "output_size=[1, 1, 1]");
}

}  // namespace
}  // namespace tessera::relay
