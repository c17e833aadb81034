// x86's AlterOpLayout rule and the blocked kernels it leads to: depthwise convolutions become
// NCHW[x]c ones, a dense convolution follows when its input arrives blocked, and chains of
// plain NCHW convolutions (ResNet) are left alone. Compiled results are compared with the
// reference interpreter on the original graph; the chosen implementations are checked by name.
#include <gtest/gtest.h>

#include "../driver/build_test_util.h"
#include "../transform/pass_test_util.h"
#include "driver/pipeline.h"
#include "relay/builder.h"
#include "relay/strategy/op_strategy.h"
#include "relay/strategy/packed_weights.h"
#include "relay/transform/alter_op_layout.h"

namespace tessera::driver::test {
namespace {

using relay::Expr;

Expr constantOf(const std::vector<int64_t>& shape, uint64_t seed) {
  return relay::constant(tessera::test::randomTensor(shape, DataType::float32(), seed));
}

relay::IRModule moduleOf(const Expr& body) {
  return relay::inferTypes(relay::IRModule::fromExpr(relay::function(body)));
}

relay::Conv2DAttrs convAttrs(int64_t oc, int64_t k, int64_t stride, int64_t pad, int64_t groups) {
  relay::Conv2DAttrs attrs;
  attrs.strides = {stride, stride};
  attrs.padding = {pad, pad};
  attrs.groups = groups;
  attrs.channels = oc;
  attrs.kernelSize = std::vector<int64_t>{k, k};
  return attrs;
}

// conv2d + bias + relu6, MobileNet's unit.
Expr convUnit(Expr x, int64_t c, int64_t oc, int64_t k, int64_t stride, int64_t groups,
              uint64_t seed, bool activation = true) {
  Expr y = relay::nn::conv2d(x, constantOf({oc, c / groups, k, k}, seed),
                             convAttrs(oc, k, stride, k / 2, groups));
  y = relay::nn::biasAdd(y, constantOf({oc}, seed + 1));
  return activation ? relay::clip(y, 0, 6) : y;
}

// The implementation each kernel's conv2d got, in kernel order.
std::vector<std::string> convImplementations(const Built& built) {
  std::vector<std::string> names;
  for (const KernelStrategy& k : built.strategies)
    for (const relay::strategy::StrategyChoice& c : k.choices)
      if (c.op == "nn.conv2d") names.push_back(c.chosenName());
  return names;
}

// An inverted residual block: the expansion reads the graph input (stays NCHW), the depthwise
// conv is blocked, the projection follows it, the residual add and the result come back.
TEST(X86AlterOpLayout, InvertedResidualBlockIsBlockedAfterTheDepthwiseConv) {
  const Expr x = relay::var("x", {1, 16, 14, 14});
  Expr y = convUnit(x, 16, 96, 1, 1, 1, 10);
  y = convUnit(y, 96, 96, 3, 1, 96, 20);
  y = relay::add(convUnit(y, 96, 16, 1, 1, 1, 30, false), x);
  const relay::IRModule mod = moduleOf(y);
  EXPECT_TRUE(matchesInterpreter(mod, 5));
  const Built built = build(mod, codegen::hostTarget());
  // 196 pixels are not whole 16-pixel panels: a product over pixels with AVX2 only.
  const bool partialPanels = relay::strategy::pointwisePartialPanels(codegen::hostTarget());
  EXPECT_EQ(convImplementations(built),
            (std::vector<std::string>{partialPanels ? "conv2d_1x1.x86" : "conv2d_nchw_pack.x86",
                                      "depthwise_conv2d_NCHWc.x86", "conv2d_NCHWc.x86"}));
}

// AlterOpLayout for an AVX-512 CPU (16 float lanes) whatever the host: the blocks depend on the
// vector width.
relay::IRModule alterForAvx512(const relay::IRModule& before) {
  relay::PassContext ctx;
  ctx.optLevel = 3;
  ctx.target = codegen::withHostDefaults(target::Target::parse(
      "llvm -mcpu=skylake-avx512 -mattr=+avx512f,+avx512bw,+avx512dq,+avx512vl,+avx2,+fma"));
  return (*relay::alterOpLayoutPass())(before, ctx);
}

// The rule's rewrite, printed: OIHW1i16o depthwise weights, NCHW16c -> NCHW8c for 24 outputs.
TEST(X86AlterOpLayout, RuleRewriteGolden) {
  relay::strategy::registerStrategies();
  const relay::IRModule before = relay::parseModule(
      R"(def @main(%x: Tensor[(1, 32, 8, 8), float32], %w1: Tensor[(32, 1, 3, 3), float32], %w2: Tensor[(24, 32, 1, 1), float32]) {
  %0 = nn.conv2d(%x, %w1, padding=[1, 1, 1, 1], groups=32);
  %1 = clip(%0, a_min=0f, a_max=6f);
  nn.conv2d(%1, %w2, padding=[0, 0, 0, 0])
})");
  const relay::IRModule after = alterForAvx512(before);
  EXPECT_EQ(
      tessera::test::printBare(after),
      R"(def @main(%x: Tensor[(1, 32, 8, 8), float32], %w1: Tensor[(32, 1, 3, 3), float32], %w2: Tensor[(24, 32, 1, 1), float32]) -> Tensor[(1, 24, 8, 8), float32] {
  %0 = layout_transform(%x, src_layout="NCHW", dst_layout="NCHW16c");
  %1 = layout_transform(%w1, src_layout="OIHW", dst_layout="OIHW1i16o");
  %2 = nn.conv2d(%0, %1, padding=[1, 1, 1, 1], groups=32, data_layout="NCHW16c", kernel_layout="OIHW1i16o");
  %3 = clip(%2, a_min=0f, a_max=6f);
  %4 = layout_transform(%w2, src_layout="OIHW", dst_layout="OIHW16i8o");
  %5 = nn.conv2d(%3, %4, padding=[0, 0, 0, 0], data_layout="NCHW16c", kernel_layout="OIHW16i8o", out_layout="NCHW8c");
  layout_transform(%5, src_layout="NCHW8c", dst_layout="NCHW")
}
)");
  EXPECT_TRUE(tessera::test::sameBehaviour(before, after, 3, 1e-5, 1e-5));
}

// ResNet's chains of 3x3 convolutions keep NCHW (Winograd and packed kernels are faster there).
TEST(X86AlterOpLayout, PlainConvChainIsLeftAlone) {
  Expr y = convUnit(relay::var("x", {1, 16, 10, 10}), 16, 32, 3, 1, 1, 40);
  y = convUnit(y, 32, 32, 3, 2, 1, 50);
  const relay::IRModule mod = moduleOf(y);
  const Built built = build(mod, codegen::hostTarget());
  for (const std::string& name : convImplementations(built))
    EXPECT_EQ(name.find("NCHWc"), std::string::npos) << name;
  EXPECT_TRUE(matchesInterpreter(mod, 6));
}

// MobileNet's stem (3 input channels) feeds a depthwise conv, which is blocked on its own: the
// stem takes its input as one block of 3 channels and hands the depthwise conv NCHW16c directly.
TEST(X86AlterOpLayout, StemFeedingABlockedConsumerComesOutBlocked) {
  Expr y = convUnit(relay::var("x", {1, 3, 24, 24}), 3, 32, 3, 2, 1, 80);
  y = convUnit(y, 32, 32, 3, 1, 32, 90);
  const relay::IRModule mod = moduleOf(y);
  EXPECT_TRUE(matchesInterpreter(mod, 8));
  EXPECT_EQ(convImplementations(build(mod, codegen::hostTarget())),
            (std::vector<std::string>{"conv2d_NCHWc.x86", "depthwise_conv2d_NCHWc.x86"}));
}

// The rewrite of a stem whose consumer is blocked: one transform of the 3-channel input, none
// between the stem and the depthwise conv (whose bias is added before the clip, operand first).
TEST(X86AlterOpLayout, StemRewriteGolden) {
  relay::strategy::registerStrategies();
  const relay::IRModule before = relay::parseModule(
      R"(def @main(%x: Tensor[(1, 3, 8, 8), float32], %w1: Tensor[(32, 3, 3, 3), float32], %b: Tensor[(32, 1, 1), float32], %w2: Tensor[(32, 1, 3, 3), float32]) {
  %0 = nn.conv2d(%x, %w1, strides=[2, 2], padding=[1, 1, 1, 1]);
  %1 = add(%b, %0);
  %2 = clip(%1, a_min=0f, a_max=6f);
  nn.conv2d(%2, %w2, padding=[1, 1, 1, 1], groups=32)
})");
  const relay::IRModule after = alterForAvx512(before);
  EXPECT_EQ(
      tessera::test::printBare(after),
      R"(def @main(%x: Tensor[(1, 3, 8, 8), float32], %w1: Tensor[(32, 3, 3, 3), float32], %b: Tensor[(32, 1, 1), float32], %w2: Tensor[(32, 1, 3, 3), float32]) -> Tensor[(1, 32, 4, 4), float32] {
  %0 = expand_dims(%b, axis=0);
  %1 = layout_transform(%x, src_layout="NCHW", dst_layout="NCHW3c");
  %2 = layout_transform(%w1, src_layout="OIHW", dst_layout="OIHW3i16o");
  %3 = layout_transform(%0, src_layout="NCHW", dst_layout="NCHW16c");
  %4 = nn.conv2d(%1, %2, strides=[2, 2], padding=[1, 1, 1, 1], data_layout="NCHW3c", kernel_layout="OIHW3i16o", out_layout="NCHW16c");
  %5 = add(%3, %4);
  %6 = clip(%5, a_min=0f, a_max=6f);
  %7 = layout_transform(%w2, src_layout="OIHW", dst_layout="OIHW1i16o");
  %8 = nn.conv2d(%6, %7, padding=[1, 1, 1, 1], groups=32, data_layout="NCHW16c", kernel_layout="OIHW1i16o");
  layout_transform(%8, src_layout="NCHW16c", dst_layout="NCHW")
}
)");
  EXPECT_TRUE(tessera::test::sameBehaviour(before, after, 3, 1e-5, 1e-5));
}

// ResNet's stem feeds a max pool and plain convolutions, which stay NCHW: so does the stem.
TEST(X86AlterOpLayout, StemFeedingPlainConvsStaysNCHW) {
  Expr y = convUnit(relay::var("x", {1, 3, 32, 32}), 3, 16, 7, 2, 1, 100);
  relay::nn::MaxPool2DAttrs pool;
  pool.poolSize = {3, 3};
  pool.strides = {2, 2};
  pool.padding = {1, 1, 1, 1};
  y = relay::nn::maxPool2d(y, pool);
  y = convUnit(y, 16, 16, 3, 1, 1, 110);
  const relay::IRModule mod = moduleOf(y);
  EXPECT_TRUE(matchesInterpreter(mod, 9));
  for (const std::string& name : convImplementations(build(mod, codegen::hostTarget())))
    EXPECT_EQ(name.find("NCHWc"), std::string::npos) << name;
}

struct DepthwiseCase {
  int64_t c, h, w, stride, k, next;  // next: output channels of a following 1x1 conv (0: none)
};

class X86BlockedDepthwise : public ::testing::TestWithParam<DepthwiseCase> {};

TEST_P(X86BlockedDepthwise, MatchesInterpreter) {
  const DepthwiseCase c = GetParam();
  Expr y = convUnit(relay::var("x", {1, c.c, c.h, c.w}), c.c, c.c, c.k, c.stride, c.c, 60);
  if (c.next > 0) y = convUnit(y, c.c, c.next, 1, 1, 1, 70, false);
  const relay::IRModule mod = moduleOf(y);
  EXPECT_TRUE(matchesInterpreter(mod, 7));
  const std::vector<std::string> names = convImplementations(build(mod, codegen::hostTarget()));
  ASSERT_FALSE(names.empty());
  EXPECT_EQ(names[0], "depthwise_conv2d_NCHWc.x86");
  // Output channels that do not block by 8 keep NCHW: a product over pixels where its panels
  // allow (with AVX2 a partial last one), else the plain kernel.
  const int64_t pixels = ((c.h + c.stride - 1) / c.stride) * ((c.w + c.stride - 1) / c.stride);
  const bool overPixels =
      pixels % 16 == 0 ||
      (pixels >= 16 && relay::strategy::pointwisePartialPanels(codegen::hostTarget()));
  if (c.next > 0)
    EXPECT_EQ(names.back(), c.next % 8 == 0 ? "conv2d_NCHWc.x86"
                            : overPixels    ? "conv2d_1x1.x86"
                                            : "conv2d_nchw.x86");
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, X86BlockedDepthwise,
    ::testing::Values(DepthwiseCase{32, 14, 14, 1, 3, 16},  // MobileNetV2's units
                      DepthwiseCase{16, 15, 15, 2, 3, 0},   // stride 2, odd size
                      DepthwiseCase{24, 9, 7, 1, 3, 24},    // 8-channel blocks
                      DepthwiseCase{48, 7, 7, 2, 3, 40},    // 7 columns, 16 -> 8 blocks
                      DepthwiseCase{64, 6, 6, 1, 5, 20},    // 5x5 window, unblockable next
                      DepthwiseCase{16, 20, 29, 1, 1, 0},   // 1x1 depthwise (no padding)
                      DepthwiseCase{32, 14, 14, 1, 3, 64},  // tiles of two channel blocks
                      DepthwiseCase{16, 7, 9, 1, 3, 96}));  // 6 blocks, 9 columns

}  // namespace
}  // namespace tessera::driver::test
