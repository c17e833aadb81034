// nn.conv2d_transpose: the type relation (shapes, the weight assigned from channels and
// kernel_size, located errors), the reference kernel against the scatter form of the definition
// (each input element spreads over the output through the kernel), and TVM's printed text.
#include "relay/op/nn_conv_transpose.h"

#include <random>

#include "op_nn_test_util.h"
#include "relay/text/parser.h"
#include "relay/text/printer.h"

namespace tessera::relay {
namespace {

Attrs attrs(Conv2DTransposeAttrs a) {
  return makeAttrs(std::move(a));
}

TEST(Conv2dTranspose, TypeFollowsTheOutputFormula) {
  Conv2DTransposeAttrs a;
  a.strides = {2, 2};
  a.padding = {1, 1, 1, 1};
  a.outputPadding = {1, 1};
  // (5 - 1) * 2 - 2 + (3 - 1) + 1 + 1 = 10; (6 - 1) * 2 - 2 + 2 + 1 + 1 = 12
  EXPECT_EQ(typeOf("nn.conv2d_transpose", {tt({1, 4, 5, 6}), tt({4, 3, 3, 3})}, attrs(a)),
            "Tensor[(1, 3, 10, 12), float32]");
  a.groups = 2;
  a.dilation = {1, 2};
  a.outputPadding = {0, 1};
  EXPECT_EQ(typeOf("nn.conv2d_transpose", {tt({2, 6, 5, 4}), tt({6, 2, 3, 2})}, attrs(a)),
            "Tensor[(2, 4, 9, 8), float32]");
}

TEST(Conv2dTranspose, ChannelsAndKernelSizeAssignTheWeight) {
  Conv2DTransposeAttrs a;
  a.channels = 8;
  a.kernelSize = std::vector<int64_t>{4, 4};
  a.groups = 2;
  std::string out;
  auto types = assigned("nn.conv2d_transpose", {tt({1, 6, 7, 7}), nullptr}, attrs(a), &out);
  EXPECT_EQ(types[1], "Tensor[(6, 4, 4, 4), float32]");
  EXPECT_EQ(out, "Tensor[(1, 8, 10, 10), float32]");
}

TEST(Conv2dTranspose, BadShapesAndAttributesAreLocatedErrors) {
  Conv2DTransposeAttrs a;
  expectTypeError("nn.conv2d_transpose", {tt({1, 4, 5, 5}), tt({3, 2, 3, 3})}, attrs(a),
                  "conv2d_transpose_c2", {"(3, 2, 3, 3)", "4"});
  Conv2DTransposeAttrs pad = a;
  pad.strides = {2, 2};
  pad.outputPadding = {2, 0};
  expectTypeError("nn.conv2d_transpose", {tt({1, 4, 5, 5}), tt({4, 2, 3, 3})}, attrs(pad),
                  "conv2d_transpose_c1", {"output_padding"});
  Conv2DTransposeAttrs layout = a;
  layout.dataLayout = "NHWC";
  expectTypeError("nn.conv2d_transpose", {tt({1, 5, 5, 4}), tt({4, 2, 3, 3})}, attrs(layout),
                  "conv2d_transpose_c1", {"NHWC"});
  Conv2DTransposeAttrs crop = a;
  crop.padding = {3, 3, 3, 3};
  expectTypeError("nn.conv2d_transpose", {tt({1, 4, 2, 2}), tt({4, 2, 3, 3})}, attrs(crop),
                  "conv2d_transpose_c3", {"leaves no output"});
}

// out[b, g*opg + o, y, x] += data[b, g*ipg + c, i, j] * w[g*ipg + c, o, ki, kj] at
// y = i * sh - pad_top + ki * dh (the definition, scattered; the kernel under test gathers).
std::vector<double> scatterReference(const NDArray& data, const NDArray& w,
                                     const Conv2DTransposeAttrs& a) {
  const nn::ConvTransposeGeometry g = nn::convTransposeGeometry(a, data.shape(), w.shape());
  std::vector<double> out(g.batch * g.outChannels * g.outHeight * g.outWidth, 0.0);
  for (int64_t b = 0; b < g.batch; ++b)
    for (int64_t c = 0; c < g.inChannels; ++c)
      for (int64_t i = 0; i < g.height; ++i)
        for (int64_t j = 0; j < g.width; ++j)
          for (int64_t o = 0; o < g.outPerGroup; ++o)
            for (int64_t ki = 0; ki < g.kh; ++ki)
              for (int64_t kj = 0; kj < g.kw; ++kj) {
                const int64_t y = i * g.strides[0] - g.padding[0] + ki * g.dilation[0];
                const int64_t x = j * g.strides[1] - g.padding[1] + kj * g.dilation[1];
                if (y < 0 || y >= g.outHeight || x < 0 || x >= g.outWidth) continue;
                const int64_t oc = (c / g.inPerGroup) * g.outPerGroup + o;
                out[((b * g.outChannels + oc) * g.outHeight + y) * g.outWidth + x] +=
                    data.getFloat(((b * g.inChannels + c) * g.height + i) * g.width + j) *
                    w.getFloat(((c * g.outPerGroup + o) * g.kh + ki) * g.kw + kj);
              }
  return out;
}

TEST(Conv2dTranspose, KernelMatchesTheScatterForm) {
  struct Case {
    std::vector<int64_t> data, weight, strides, padding, outputPadding, dilation;
    int64_t groups;
  };
  const Case cases[] = {
      {{1, 4, 5, 6}, {4, 3, 3, 3}, {2, 2}, {1, 1, 1, 1}, {1, 1}, {1, 1}, 1},
      {{2, 6, 5, 4}, {6, 2, 3, 2}, {3, 2}, {2, 0, 1, 1}, {2, 0}, {1, 2}, 2},
      {{1, 3, 4, 4}, {3, 5, 1, 1}, {2, 2}, {0, 0, 0, 0}, {1, 0}, {1, 1}, 1},
      {{1, 2, 4, 4}, {2, 2, 2, 2}, {2, 2}, {2, 2, 2, 2}, {0, 0}, {1, 1}, 1},  // crops
  };
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1, 1);
  for (const Case& c : cases) {
    Conv2DTransposeAttrs a;
    a.strides = c.strides, a.padding = c.padding, a.outputPadding = c.outputPadding;
    a.dilation = c.dilation, a.groups = c.groups;
    auto random = [&](const std::vector<int64_t>& shape) {
      NDArray x = NDArray::empty(shape, kF32);
      for (int64_t i = 0; i < x.numel(); ++i) x.setFloat(i, u(rng));
      return x;
    };
    const NDArray data = random(c.data), w = random(c.weight);
    expectNear(run("nn.conv2d_transpose", {Value(data), Value(w)}, attrs(a)),
               scatterReference(data, w, a), 1e-5);
  }
}

TEST(Conv2dTranspose, TvmTextRoundTrips) {
  // DCGAN's deconvolution (relay.testing.dcgan, 4x4 to 8x8) as TVM 0.16 prints it: non-default
  // fields only, in the attribute struct's order.
  const std::string call =
      "nn.conv2d_transpose(%x, %w, channels=256, kernel_size=[4, 4], strides=[2, 2], "
      "padding=[1, 1, 1, 1])";
  const std::string text =
      "#[version = \"0.0.5\"]\n"
      "def @main(%x: Tensor[(1, 512, 4, 4), float32], %w: Tensor[(512, 256, 4, 4), float32]) {\n"
      "  " +
      call + "\n}\n";
  const IRModule m = inferTypes(parseModule(text, "<dcgan>"));
  EXPECT_EQ(typeToString(m.main()->body->checkedType), "Tensor[(1, 256, 8, 8), float32]");
  const std::string printed = printModule(m, {.header = true, .types = false});
  EXPECT_NE(printed.find("  " + call + "\n"), std::string::npos) << printed;
  EXPECT_EQ(
      printModule(inferTypes(parseModule(printed, "<again>")), {.header = true, .types = false}),
      printed);
  // The builder normalises as TVM's Python API does.
  Conv2DTransposeAttrs a;
  a.padding = {1};
  a.strides = {2};
  const Expr built = nn::conv2dTranspose(makeVar("x"), makeVar("w"), a);
  EXPECT_EQ(printedAttrs(built), "strides=[2, 2], padding=[1, 1, 1, 1]");
}

}  // namespace
}  // namespace tessera::relay
