// The int8 convolution on AMX tiles (topi/nn_int8_amx.h, topi/x86/schedule_int8_amx.cc,
// topi/x86/tensor_intrin_amx.cc): int8 and uint8 data, constant int8 weights, int32 output, alone
// and with the requantizing epilogue relay.quantize's realize produces, over the shapes the AMX
// compute takes (3x3, 5x5 and 1x1, padding or not, stride 2 through phase images, strided 1x1,
// channels that are not whole steps of 64, windows folded into few input channels (the stem),
// images whose rows do not fill the last unit of 32 pixels, batch 2). Each is compiled for the host
// and compared bit for bit with the reference interpreter; on a host with AMX-INT8 the tests also
// check that the AMX implementation was chosen and that its kernel issues tile products, and that
// the shapes it does not take fall to the VNNI kernels.
#include <gtest/gtest.h>

#include <random>

#include "int8_kernel_test_util.h"
#include "runtime/amx_permission.h"
#include "topi/nn_int8_amx.h"

namespace tessera::driver::test {
namespace {

using relay::Expr;

bool hostHasAmx() {
  const target::Target host = codegen::hostTarget();
  return host.hasFeature("amx-int8") && host.hasFeature("amx-tile") &&
         runtime::requestAmxTileData();
}

struct AmxCase {
  int64_t n, c, h, w, oc, k, stride, pad;
  bool epilogue;
  DataType dtype = DataType::int8();
  bool amx = true;  ///< whether the AMX compute takes the shape
};

relay::IRModule convModule(const AmxCase& c) {
  relay::Conv2DAttrs attrs;
  attrs.strides = {c.stride, c.stride};
  attrs.padding = {c.pad, c.pad};
  attrs.channels = c.oc;
  attrs.kernelSize = std::vector<int64_t>{c.k, c.k};
  attrs.outDtype = DataType::int32();
  Expr y = relay::nn::conv2d(relay::var("x", tensorType({c.n, c.c, c.h, c.w}, c.dtype)),
                             int8Constant({c.oc, c.c, c.k, c.k}, 3), attrs);
  if (c.epilogue)
    y = requantize(y,
                   relay::constant(tessera::test::randomTensor({c.oc, 1, 1}, DataType::int32(), 11,
                                                               -5000, 5000)),
                   -9);
  return relay::inferTypes(relay::IRModule::fromExpr(relay::function(y)));
}

class X86Int8AmxConv2d : public ::testing::TestWithParam<AmxCase> {};

TEST_P(X86Int8AmxConv2d, MatchesInterpreterBitForBit) {
  const AmxCase c = GetParam();
  const relay::IRModule mod = convModule(c);
  EXPECT_TRUE(matchesInterpreter(mod, 5));
  if (!hostHasAmx()) GTEST_SKIP() << "the host has no AMX-INT8: VNNI or generic kernels only";
  const BuiltKernels k = kernelsOf(mod);
  EXPECT_EQ(k.mentions("nn.conv2d: conv2d_nchw_int8_amx.x86"), c.amx)
      << ::testing::PrintToString(k.implementations);
  EXPECT_EQ(k.calls(c.dtype == DataType::uint8() ? "llvm.x86.tdpbsud" : "llvm.x86.tdpbssd"), c.amx);
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, X86Int8AmxConv2d,
    ::testing::Values(AmxCase{1, 64, 14, 14, 64, 3, 1, 1, true},   // ResNet 3x3, 2 units of 32
                      AmxCase{1, 64, 56, 56, 64, 3, 1, 1, true},   // ResNet's first stage
                      AmxCase{1, 128, 7, 7, 32, 3, 1, 1, false},   // 7x7: 61 of 64 pixels read
                      AmxCase{2, 64, 9, 11, 64, 3, 1, 0, true},    // batch 2, unpadded, odd
                      AmxCase{1, 96, 10, 10, 32, 3, 1, 1, true},   // 96 channels: 1.5 steps
                      AmxCase{1, 40, 6, 6, 64, 3, 1, 1, false},    // 40 channels: a partial step
                      AmxCase{1, 256, 14, 14, 64, 1, 1, 0, true},  // pointwise
                      AmxCase{1, 64, 28, 28, 128, 1, 2, 0, true},  // strided pointwise
                      AmxCase{1, 64, 13, 13, 32, 1, 2, 0, false},  // strided, odd size
                      AmxCase{1, 64, 8, 8, 32, 3, 1, 1, true, DataType::uint8()},
                      AmxCase{1, 64, 5, 7, 32, 3, 1, 2, true},     // padding 2
                      AmxCase{1, 64, 14, 14, 64, 3, 2, 1, true},   // 3x3 stride 2: phases
                      AmxCase{1, 64, 56, 56, 128, 3, 2, 1, true},  // ResNet's stage 2 entry
                      AmxCase{1, 96, 15, 13, 32, 3, 2, 1, false},  // odd sizes, stride 2
                      AmxCase{2, 64, 12, 12, 32, 3, 2, 0, false, DataType::uint8()},
                      AmxCase{1, 64, 17, 17, 64, 5, 2, 2, true},  // 5x5 stride 2
                      // Not taken: stride 3, 16 output channels, 16 input channels.
                      AmxCase{1, 64, 14, 14, 64, 3, 3, 1, true, DataType::int8(), false},
                      AmxCase{1, 64, 8, 8, 16, 3, 1, 1, true, DataType::int8(), false},
                      // Few input channels: the window folds into the channels.
                      AmxCase{1, 16, 8, 8, 32, 3, 1, 1, true},
                      AmxCase{1, 3, 32, 32, 64, 7, 2, 3, true},  // ResNet's stem, smaller
                      AmxCase{2, 8, 9, 11, 32, 3, 2, 1, false, DataType::uint8()},
                      AmxCase{1, 3, 8, 8, 32, 3, 1, 1, false, DataType::int8(), false}));

// Random shapes the AMX compute takes or declines (channels 8 to 160, images 4 to 20 pixels a
// side, kernels 1 to 5, strides 1 and 2, padding 0 to 2, int8 and uint8): bit-exact compiled.
TEST(X86Int8AmxConv2d, RandomShapesMatchTheInterpreter) {
  std::mt19937 rng(20261126);
  auto pick = [&](std::vector<int64_t> v) { return v[rng() % v.size()]; };
  int taken = 0;
  for (int i = 0; i < 24; ++i) {
    AmxCase c{1 + static_cast<int64_t>(rng() % 2),
              pick({8, 24, 32, 40, 64, 96, 160}),
              pick({4, 7, 9, 13, 20}),
              pick({5, 7, 11, 16, 20}),
              pick({32, 64, 96}),
              pick({1, 3, 5}),
              pick({1, 2}),
              pick({0, 1, 2}),
              rng() % 2 == 0,
              rng() % 3 == 0 ? DataType::uint8() : DataType::int8()};
    if (c.h + 2 * c.pad < c.k || c.w + 2 * c.pad < c.k) continue;
    SCOPED_TRACE(::testing::Message()
                 << "n " << c.n << " c " << c.c << " " << c.h << "x" << c.w << " oc " << c.oc
                 << " k " << c.k << " s " << c.stride << " p " << c.pad << " " << c.dtype.name());
    const relay::IRModule mod = convModule(c);
    EXPECT_TRUE(matchesInterpreter(mod, 100 + i));
    if (hostHasAmx()) taken += kernelsOf(mod).mentions("nn.conv2d: conv2d_nchw_int8_amx.x86");
  }
  if (hostHasAmx()) EXPECT_GT(taken, 8);  // most of them take the AMX kernel
}

TEST(X86Int8AmxGeometry, ReadsEveryTapOfEveryOutputPixelInsideTheRepackedImage) {
  topi::Conv2DParams p;
  p.padding = {1, 1, 1, 1};
  const std::optional<topi::AmxConvGeometry> g =
      topi::amxConvGeometry({1, 64, 56, 56}, {64, 64, 3, 3}, p);
  ASSERT_TRUE(g);
  EXPECT_EQ(g->pitch, 58);
  EXPECT_EQ(g->outHeight, 56);
  EXPECT_EQ(g->outWidth, 56);
  // The last output pixel, 55 * 58 + 55 = 3245, rounded up to whole units.
  EXPECT_EQ(g->pixels, 3264);
  EXPECT_EQ(g->reach, 2 * 58 + 2);
  // 3264 + 118 pixels, to whole rows of 58.
  EXPECT_EQ(g->dataPixels, 59 * 58);
  EXPECT_EQ(g->steps, 9);
  EXPECT_EQ(g->groups, 16);
  EXPECT_EQ(g->blocks, 4);
  // Stride 2: 4 phase images of 29 x 29 (58 / 2), output pixel m reads phase (ky % 2, kx % 2) at
  // m + (ky / 2) * 29 + kx / 2.
  p.strides = {2, 2};
  const std::optional<topi::AmxConvGeometry> s2 =
      topi::amxConvGeometry({1, 64, 56, 56}, {128, 64, 3, 3}, p);
  ASSERT_TRUE(s2);
  EXPECT_EQ(s2->stride, 2);
  EXPECT_EQ(s2->pitch, 29);
  EXPECT_EQ(s2->outHeight, 28);
  EXPECT_EQ(s2->pixels, 832);                            // 27 * 29 + 28 = 811, to whole units of 32
  EXPECT_EQ(s2->tapOffset(2, 1), s2->phasePixels + 29);  // phase (0, 1), pixel (1, 0)
  EXPECT_EQ(s2->tapOffset(1, 2), 2 * s2->phasePixels + 1);  // phase (1, 0), pixel (0, 1)
  EXPECT_EQ(s2->phasePixels % 29, 0);
  EXPECT_EQ(s2->dataPixels, 4 * s2->phasePixels);
  p.strides = {3, 3};
  EXPECT_FALSE(topi::amxConvGeometry({1, 64, 56, 56}, {64, 64, 3, 3}, p));
}

TEST(X86Int8AmxWeight, PacksSixteenChannelsTimesSixtyFourBytesPerTile) {
  NDArray w = tessera::test::randomTensor({32, 70, 3, 3}, DataType::int8(), 9, -128, 128);
  NDArray packed = topi::packInt8WeightAmx(w);
  ASSERT_EQ(packed.shape(), (std::vector<int64_t>{2, 18, 16, 64}));
  const auto* src = static_cast<const int8_t*>(w.data());
  const auto* dst = static_cast<const int8_t*>(packed.data());
  auto at = [&](int64_t b, int64_t s, int64_t l, int64_t i) {
    return dst[((b * 18 + s) * 16 + l) * 64 + i];
  };
  // Channel 65 of output channel 17 at tap (2, 1): chunk 1, step (1 * 3 + 2) * 3 + 1 = 16.
  EXPECT_EQ(at(1, 16, 1, 1), src[((17 * 70 + 65) * 3 + 2) * 3 + 1]);
  EXPECT_EQ(at(0, 0, 0, 0), src[0]);
  // Channels past 70 are zero.
  EXPECT_EQ(at(1, 16, 1, 6), 0);
}

}  // namespace
}  // namespace tessera::driver::test
