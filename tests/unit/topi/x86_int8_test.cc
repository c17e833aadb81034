// The int8 kernels on AVX-512 VNNI (topi/nn_int8.h, topi/x86/schedule_int8.cc): conv2d and dense
// of int8 and uint8 data with constant int8 weights and int32 output, alone and with the
// requantizing epilogue relay.quantize's realize produces, over shapes that fit the tiles and
// shapes that do not (input channels that are not groups of 4, odd widths, strides, padding,
// dilation, pointwise over whole pixel vectors or not, rows that are not whole tiles). Each is
// compiled for the host and compared bit for bit with the reference interpreter; the tests also
// check that the VNNI implementation was chosen and that its kernel calls vpdpbusd. The same
// cases run in the pair form (int16 weights, vpmaddwd) for the host without VNNI, as an AVX2 CPU
// builds them, and in the byte form (vpmaddubsw) where the data is proven to lie in [0, 127].
#include <gtest/gtest.h>

#include <regex>
#include <set>

#include "int8_kernel_test_util.h"
#include "topi/nn_int8.h"

namespace tessera::driver::test {
namespace {

using relay::Expr;

// The host with `features` turned off.
target::Target hostWithout(const std::vector<std::string>& features) {
  target::Target t = codegen::hostTarget();
  for (const std::string& feature : features) {
    const std::string on = "+" + feature;
    const size_t at = ("," + t.features + ",").find("," + on + ",");
    if (at != std::string::npos) t.features.replace(at, on.size(), "-" + feature);
  }
  return t;
}

// The host without AMX, so that the VNNI kernels are what these tests build on every host
// (tests/unit/topi/x86_int8_amx_test.cc has the AMX ones).
target::Target vnniTarget() {
  return hostWithout({"amx-int8", "amx-tile"});
}

// The host without VNNI or AMX: an AVX2 CPU's pair-form kernels.
target::Target pairTarget() {
  return hostWithout({"amx-int8", "amx-tile", "avx512vnni"});
}

// An AVX2 build of `mod` (no VNNI): bit for bit against the interpreter, `implementation` chosen,
// `intrinsic` called and, for a convolution, its data repacking vectorized (`repackStore`: the
// store of 16 columns of a channel into the stage's groups).
void expectAvx2Kernels(const relay::IRModule& mod, uint64_t seed, const std::string& implementation,
                       const std::string& intrinsic, const std::string& repackStore) {
  if (!pairTarget().hasFeature("avx2")) GTEST_SKIP() << "the host has no AVX2";
  EXPECT_TRUE(matchesInterpreter(mod, seed, 1e-4, 1e-5, 3, pairTarget()));
  const BuiltKernels k = kernelsOf(mod, pairTarget());
  EXPECT_TRUE(k.mentions(implementation)) << ::testing::PrintToString(k.implementations);
  EXPECT_TRUE(k.calls(intrinsic));
  EXPECT_FALSE(k.callsVnni());
  if (implementation.find("conv2d") != std::string::npos)
    EXPECT_TRUE(std::regex_search(k.tir, std::regex(repackStore))) << k.tir;
}

// The pair form: vpmaddwd on int16 pairs, every other int16 of `data_i16` stored.
void expectPairKernels(const relay::IRModule& mod, uint64_t seed,
                       const std::string& implementation) {
  expectAvx2Kernels(mod, seed, implementation, "llvm.x86.avx2.pmadd.wd",
                    R"(data_i16\[[^\]]*:2\] = )");
}

// The byte form: vpmaddubsw on the uint8 groups of `data_u7`, every 4th byte stored.
void expectByteKernels(const relay::IRModule& mod, uint64_t seed,
                       const std::string& implementation) {
  expectAvx2Kernels(mod, seed, implementation, "llvm.x86.avx2.pmadd.ub.sw",
                    R"(data_u7\[[^\]]*:4\] = )");
}

// The data of the byte form's tests: `x` clipped to [lo, hi] (within [0, 127]), as a kernel of its
// own, so that the convolution's kernel learns the range from its call site.
Expr clippedInput(const std::vector<int64_t>& shape, DataType dtype, double lo, double hi) {
  return relay::callOp("clip", {relay::var("x", tensorType(shape, dtype))},
                       {{"a_min", AttrValue::floating(lo)}, {"a_max", AttrValue::floating(hi)}});
}

bool hostHasVnni() {
  const target::Target host = codegen::hostTarget();
  return host.hasFeature("avx512vnni") && host.hasFeature("avx512bw");
}

relay::IRModule moduleOf(const Expr& body) {
  return relay::inferTypes(relay::IRModule::fromExpr(relay::function(body)));
}

struct ConvCase {
  int64_t c, h, w, oc, k, stride, pad, dilation;
  bool epilogue;
  DataType dtype = DataType::int8();
};

// The row expected for the case with the packing's suffix ("vnni", "bytes_avx2", "avx2"):
// pointwise convolutions are products over pixels (the last vector of 16 padded), and so are
// stem-like ones (up to 16 channel groups x taps, rows of whole vectors) with the taps as
// reduction steps.
std::string implementationOf(const ConvCase& c, const std::string& suffix) {
  const int64_t oh = (c.h + 2 * c.pad - (c.k - 1) * c.dilation - 1) / c.stride + 1;
  const int64_t ow = (c.w + 2 * c.pad - (c.k - 1) * c.dilation - 1) / c.stride + 1;
  const int64_t pixels = oh * ow, padding = (pixels + 15) / 16 * 16 - pixels;
  const bool pointwise = c.k == 1 && c.pad == 0 && (padding * 8 <= pixels || c.c <= 384);
  const bool stemLike = c.k > 1 && (c.c + 3) / 4 * c.k * c.k <= 16 && ow % 16 == 0;
  const std::string kind = pointwise ? "1x1" : stemLike ? "pixels" : "nchw";
  return "nn.conv2d: conv2d_" + kind + "_int8_" + suffix + ".x86";
}

// The case's convolution of `data` (null: a parameter x of the case's shape and dtype).
relay::IRModule convModule(const ConvCase& c, Expr data = nullptr) {
  relay::Conv2DAttrs attrs;
  attrs.strides = {c.stride, c.stride};
  attrs.padding = {c.pad, c.pad};
  attrs.dilation = {c.dilation, c.dilation};
  attrs.channels = c.oc;
  attrs.kernelSize = std::vector<int64_t>{c.k, c.k};
  attrs.outDtype = DataType::int32();
  if (!data) data = relay::var("x", tensorType({1, c.c, c.h, c.w}, c.dtype));
  Expr y = relay::nn::conv2d(data, int8Constant({c.oc, c.c, c.k, c.k}, 3), attrs);
  if (c.epilogue) y = requantize(y, channelBias(c.oc, 4));
  return moduleOf(y);
}

class X86Int8Conv2d : public ::testing::TestWithParam<ConvCase> {};

TEST_P(X86Int8Conv2d, MatchesInterpreterBitForBit) {
  const ConvCase c = GetParam();
  const relay::IRModule mod = convModule(c);
  EXPECT_TRUE(matchesInterpreter(mod, 5, 1e-4, 1e-5, 3, vnniTarget()));
  if (!hostHasVnni()) GTEST_SKIP() << "the host has no AVX-512 VNNI: generic int8 kernels only";
  const BuiltKernels k = kernelsOf(mod, vnniTarget());
  EXPECT_TRUE(k.mentions(implementationOf(c, "vnni")))
      << ::testing::PrintToString(k.implementations);
  EXPECT_TRUE(k.callsVnni()) << ::testing::PrintToString(k.implementations);
  // The data repacking is vector code: per channel of a group, 16 bytes stored to every 4th
  // byte (the vectorizer leaves a loop it cannot vectorize scalar, without a word).
  EXPECT_TRUE(std::regex_search(k.tir, std::regex(R"(data_u8\[[^\]]*:4\] = )"))) << k.tir;
  // A product over pixels starts its accumulators with the bias (a pointwise one adds it to the
  // compensation where the data is shifted): a zero start means the output stage adds it.
  const std::string form = implementationOf(c, "vnni");
  if (c.epilogue && form.find("nchw") == std::string::npos) {
    const std::string acc =
        form.find("1x1") != std::string::npos ? "conv2d_1x1_int8" : "conv2d_pixels_int8";
    EXPECT_FALSE(
        std::regex_search(k.tir, std::regex(acc + R"((_\d+)?\[[^\]]*\] = T\.Broadcast\(0,)")))
        << k.tir;
    // (The pixels form subtracts its compensation in the output stage; the pointwise one adds
    // nothing there.)
    if (form.find("1x1") != std::string::npos)
      EXPECT_FALSE(std::regex_search(k.tir, std::regex(acc + R"((_\d+)?\[[^\]]*\] \+)"))) << k.tir;
  }
  // The channel-lane form writes its output stage in vectors of a row's columns (whole blocks of
  // 16 channels): a scalar loop spent about 20 instructions per output.
  if (form.find("nchw") != std::string::npos && c.oc % 32 == 0)
    EXPECT_TRUE(std::regex_search(
        k.tir, std::regex(R"((T_cast|T_conv2d_int8_unpack)(_\d+)?\[[^\]]*:[^\]]*\] = )")))
        << k.tir;
  // An image stem (one group of input channels) in the channel-lane form takes two blocks of 16
  // channels a tile: its products read two weight vectors per step, not one.
  if (form.find("nchw") != std::string::npos && (c.c + 3) / 4 == 1 && c.oc % 32 == 0) {
    const std::regex weight(R"(vpdpbusd\.512".*T\.reinterpret\("int32x16", ([^\]]*)\]\)\))");
    std::set<std::string> weights;
    for (auto it = std::sregex_iterator(k.tir.begin(), k.tir.end(), weight);
         it != std::sregex_iterator(); ++it)
      weights.insert((*it)[1]);
    EXPECT_EQ(weights.size(), 2u) << k.tir;
  }
  // A strided pointwise one copies the pixels it reads first, a row per vector.
  if (c.k == 1 && c.stride > 1 && implementationOf(c, "vnni").find("1x1") != std::string::npos)
    EXPECT_TRUE(std::regex_search(k.tir, std::regex(R"(data_subsampled\[[^\]]*:[^\]]*\] = )")))
        << k.tir;
}

TEST_P(X86Int8Conv2d, PairFormMatchesInterpreterBitForBit) {
  const ConvCase c = GetParam();
  expectPairKernels(convModule(c), 6, implementationOf(c, "avx2"));
}

// The same convolutions of data proven to lie in [0, 127] (a clip of the input) take the byte form.
TEST_P(X86Int8Conv2d, ByteFormMatchesInterpreterBitForBit) {
  const ConvCase c = GetParam();
  expectByteKernels(convModule(c, clippedInput({1, c.c, c.h, c.w}, c.dtype, 0, 127)), 7,
                    implementationOf(c, "bytes_avx2"));
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, X86Int8Conv2d,
    ::testing::Values(ConvCase{3, 17, 17, 16, 7, 2, 3, 1, true},  // stem: 3 channels, odd size
                      ConvCase{3, 32, 32, 64, 7, 2, 3, 1, true},  // ResNet's stem: 2 blocks
                      ConvCase{3, 24, 32, 32, 3, 2, 1, 1, true},  // MobileNetV2's stem, over pixels
                      ConvCase{3, 13, 16, 24, 3, 1, 1, 1, false},   // over pixels, 13 rows
                      ConvCase{4, 11, 32, 16, 3, 2, 2, 2, true},    // over pixels, dilation 2
                      ConvCase{6, 9, 17, 16, 2, 1, 0, 1, false},    // 2 groups x 4 taps
                      ConvCase{3, 24, 24, 32, 3, 2, 1, 1, true},    // rows of 12: channel blocks
                      ConvCase{16, 14, 14, 32, 3, 1, 1, 1, true},   // 3x3, 14 columns per tile
                      ConvCase{8, 13, 11, 16, 3, 2, 1, 1, false},   // odd width, stride 2
                      ConvCase{64, 7, 7, 64, 3, 1, 1, 1, true},     // ResNet's last stage shape
                      ConvCase{32, 9, 9, 16, 1, 1, 0, 1, true},     // 1x1, 81 pixels: 5 vectors
                      ConvCase{5, 12, 12, 16, 3, 1, 2, 2, false},   // dilation, 5 channels
                      ConvCase{24, 8, 29, 48, 1, 2, 0, 1, true},    // pointwise stride 2, wide
                      ConvCase{64, 28, 28, 32, 1, 2, 0, 1, true},   // ResNet's downsampling
                      ConvCase{20, 13, 11, 16, 1, 2, 0, 1, false},  // stride 2, odd sizes
                      ConvCase{512, 14, 14, 32, 1, 2, 0, 1, true},  // 7x7 out, long: lanes
                      ConvCase{8, 9, 10, 16, 1, 3, 0, 1, true, DataType::uint8()},  // stride 3
                      ConvCase{64, 8, 8, 32, 1, 1, 0, 1, true},    // 1x1 over 64 pixels
                      ConvCase{16, 8, 8, 24, 1, 1, 0, 1, true},    // 6 channels x 4 vectors
                      ConvCase{24, 4, 8, 40, 1, 1, 0, 1, false},   // 10 channels x 2 vectors
                      ConvCase{10, 4, 12, 48, 1, 1, 0, 1, false},  // 12 columns, whole vectors
                      ConvCase{160, 7, 7, 96, 1, 1, 0, 1, true},   // MobileNetV2's 7x7: 49 pixels
                      ConvCase{400, 7, 7, 32, 1, 1, 0, 1, true},   // 7x7, long: channel lanes
                      ConvCase{96, 14, 14, 40, 1, 1, 0, 1, true},  // 14x14: 196 pixels
                      ConvCase{10, 2, 24, 48, 1, 1, 0, 1, false},  // over pixels, 10 channels
                      ConvCase{20, 16, 16, 16, 1, 1, 0, 1, true, DataType::uint8()},
                      ConvCase{16, 9, 9, 24, 3, 1, 1, 1, true},    // 24 channels: a half block
                      ConvCase{8, 7, 7, 40, 3, 1, 1, 1, false},    // 2.5 blocks
                      ConvCase{256, 7, 7, 24, 3, 1, 1, 1, true},   // small image tile, 1.5 blocks
                      ConvCase{256, 7, 7, 64, 3, 1, 1, 1, false},  // small image, 2 blocks a tile
                      ConvCase{12, 4, 16, 10, 1, 1, 0, 1, true},   // over pixels, 10 channels
                      ConvCase{12, 6, 6, 32, 3, 1, 1, 1, false, DataType::uint8()},
                      ConvCase{7, 10, 10, 16, 3, 1, 1, 1, true, DataType::uint8()}));

struct DenseCase {
  int64_t m, n, k;
  bool epilogue;
  DataType dtype = DataType::int8();
};

relay::IRModule denseModule(const DenseCase& c) {
  Expr y = relay::callOp(
      "nn.dense", {relay::var("x", tensorType({c.m, c.k}, c.dtype)), int8Constant({c.n, c.k}, 7)},
      {{"out_dtype", AttrValue::string("int32")}});
  if (c.epilogue) y = requantize(y, int32Bias(c.n, 8));
  return moduleOf(y);
}

class X86Int8Dense : public ::testing::TestWithParam<DenseCase> {};

TEST_P(X86Int8Dense, PairFormMatchesInterpreterBitForBit) {
  expectPairKernels(denseModule(GetParam()), 12, "nn.dense: dense_int8_avx2.x86");
}

TEST_P(X86Int8Dense, ByteFormMatchesInterpreterBitForBit) {
  const DenseCase c = GetParam();
  const Expr y = relay::callOp(
      "nn.dense", {clippedInput({c.m, c.k}, c.dtype, 0, 127), int8Constant({c.n, c.k}, 7)},
      {{"out_dtype", AttrValue::string("int32")}});
  expectByteKernels(moduleOf(c.epilogue ? requantize(y) : y), 13,
                    "nn.dense: dense_int8_bytes_avx2.x86");
}

TEST_P(X86Int8Dense, MatchesInterpreterBitForBit) {
  const relay::IRModule mod = denseModule(GetParam());
  EXPECT_TRUE(matchesInterpreter(mod, 11));
  if (!hostHasVnni()) GTEST_SKIP() << "the host has no AVX-512 VNNI: generic int8 kernels only";
  const BuiltKernels k = kernelsOf(mod, vnniTarget());
  EXPECT_TRUE(k.mentions("nn.dense: dense_int8_vnni.x86"));
  EXPECT_TRUE(k.callsVnni());
}

INSTANTIATE_TEST_SUITE_P(Shapes, X86Int8Dense,
                         ::testing::Values(DenseCase{1, 128, 784, true},  // the MLP layer
                                           DenseCase{7, 48, 33, false},   // odd rows and depth
                                           DenseCase{16, 64, 64, true},   // whole 8-row tiles
                                           DenseCase{3, 16, 2, true},     // depth below 4
                                           DenseCase{1, 10, 128, true},   // 10 classes
                                           DenseCase{6, 40, 24, false},   // 2.5 blocks
                                           DenseCase{5, 32, 100, false, DataType::uint8()}));

// Calls the VNNI rows decline fall back to the other implementations and stay exact.
TEST(X86Int8, DeclinedCallsStayExact) {
  // A grouped convolution has no 4-channel reductions across its groups.
  relay::Conv2DAttrs attrs;
  attrs.channels = 16;
  attrs.groups = 2;
  attrs.kernelSize = std::vector<int64_t>{3, 3};
  attrs.outDtype = DataType::int32();
  const relay::IRModule grouped =
      moduleOf(relay::nn::conv2d(relay::var("x", tensorType({1, 8, 9, 9}, DataType::int8())),
                                 int8Constant({16, 4, 3, 3}, 1), attrs));
  EXPECT_TRUE(matchesInterpreter(grouped, 2));
  EXPECT_FALSE(kernelsOf(grouped, vnniTarget()).mentions("nn.conv2d: conv2d_nchw_int8_vnni.x86"));
  // A weight that is not a constant cannot be packed.
  const relay::IRModule variable =
      moduleOf(relay::callOp("nn.dense",
                             {relay::var("x", tensorType({4, 32}, DataType::int8())),
                              relay::var("w", tensorType({32, 32}, DataType::int8()))},
                             {{"out_dtype", AttrValue::string("int32")}}));
  EXPECT_TRUE(matchesInterpreter(variable, 3));
  EXPECT_FALSE(kernelsOf(variable, vnniTarget()).callsVnni());
}

// The byte form's pair sums at their extremes: data in [120, 127] against weights of -128 and of
// 127 reach -32512 and 32258, inside int16, so vpmaddubsw does not saturate. Data that may reach
// 128 (a uint8 input's relu) keeps the pair form.
TEST(X86Int8, ByteFormPairSumsStayInsideInt16) {
  if (!pairTarget().hasFeature("avx2")) GTEST_SKIP() << "the host has no AVX2";
  relay::Conv2DAttrs attrs;
  attrs.channels = 32;
  attrs.kernelSize = std::vector<int64_t>{1, 1};
  attrs.outDtype = DataType::int32();
  for (double w : {-128.0, 127.0}) {
    const Expr weight = relay::constant(
        tessera::test::tensorOf({32, 64, 1, 1}, DataType::int8(), std::vector<double>(2048, w)));
    for (DataType dtype : {DataType::int8(), DataType::uint8()}) {
      const relay::IRModule mod =
          moduleOf(relay::nn::conv2d(clippedInput({1, 64, 8, 8}, dtype, 120, 127), weight, attrs));
      EXPECT_TRUE(matchesInterpreter(mod, 21, 1e-4, 1e-5, 3, pairTarget()));
      EXPECT_TRUE(kernelsOf(mod, pairTarget()).mentions("conv2d_1x1_int8_bytes_avx2.x86"));
    }
  }
  const relay::IRModule wide = moduleOf(relay::nn::conv2d(
      relay::callOp("nn.relu", {relay::var("x", tensorType({1, 64, 8, 8}, DataType::uint8()))}),
      int8Constant({32, 64, 1, 1}, 5), attrs));
  EXPECT_TRUE(matchesInterpreter(wide, 22, 1e-4, 1e-5, 3, pairTarget()));
  EXPECT_TRUE(kernelsOf(wide, pairTarget()).mentions("conv2d_1x1_int8_avx2.x86"));
}

// A requantized relu feeding the next convolution, as realize writes a network: the second
// kernel's call site proves its data small and takes the byte form; the first (signed data)
// keeps the pair form. A VNNI target keeps its own rows for both.
TEST(X86Int8, RequantizedReluFeedsTheByteForm) {
  relay::Conv2DAttrs attrs;
  attrs.channels = 32;
  attrs.padding = {1, 1};
  attrs.kernelSize = std::vector<int64_t>{3, 3};
  attrs.outDtype = DataType::int32();
  Expr first = relay::nn::conv2d(relay::var("x", tensorType({1, 16, 10, 10}, DataType::int8())),
                                 int8Constant({32, 16, 3, 3}, 8), attrs);
  Expr data = requantize(relay::callOp("nn.relu", {first}), nullptr, -9);
  data = relay::callOp("annotation.stop_fusion", {data});
  const relay::IRModule mod =
      moduleOf(requantize(relay::nn::conv2d(data, int8Constant({32, 32, 3, 3}, 9), attrs)));
  if (pairTarget().hasFeature("avx2")) {
    EXPECT_TRUE(matchesInterpreter(mod, 23, 1e-4, 1e-5, 3, pairTarget()));
    const BuiltKernels k = kernelsOf(mod, pairTarget());
    EXPECT_TRUE(k.mentions("conv2d_nchw_int8_avx2.x86"))
        << ::testing::PrintToString(k.implementations);
    EXPECT_TRUE(k.mentions("conv2d_nchw_int8_bytes_avx2.x86"));
  }
  if (!hostHasVnni()) GTEST_SKIP() << "the host has no AVX-512 VNNI";
  const BuiltKernels v = kernelsOf(mod, vnniTarget());
  EXPECT_FALSE(v.mentions("bytes_avx2")) << ::testing::PrintToString(v.implementations);
  EXPECT_TRUE(v.callsVnni());
}

// Two calls of one fused layer, the first on a plain int8 input, the second on the first's
// requantized relu (proven in [0, 127]): one kernel where that fact changes no choice (VNNI),
// two where it picks the byte form (AVX2 without VNNI).
TEST(X86Int8, DataFactsSplitKernelsOnlyWhereTheyChangeAChoice) {
  relay::Conv2DAttrs attrs;
  attrs.channels = 32;
  attrs.padding = {1, 1};
  attrs.kernelSize = std::vector<int64_t>{3, 3};
  attrs.outDtype = DataType::int32();
  auto layer = [&](Expr data, uint64_t seed) {
    Expr conv = relay::nn::conv2d(data, int8Constant({32, 32, 3, 3}, seed), attrs);
    return relay::callOp("annotation.stop_fusion",
                         {requantize(relay::callOp("nn.relu", {conv}), nullptr, -9)});
  };
  const relay::IRModule mod =
      moduleOf(layer(layer(relay::var("x", tensorType({1, 32, 10, 10}, DataType::int8())), 8), 9));
  if (pairTarget().hasFeature("avx2")) {
    EXPECT_EQ(build(mod, pairTarget()).kernels.size(), 2u);
    EXPECT_TRUE(matchesInterpreter(mod, 24, 1e-4, 1e-5, 3, pairTarget()));
  }
  if (!hostHasVnni()) GTEST_SKIP() << "the host has no AVX-512 VNNI";
  EXPECT_EQ(build(mod, vnniTarget()).kernels.size(), 1u);
  EXPECT_TRUE(matchesInterpreter(mod, 24, 1e-4, 1e-5, 3, vnniTarget()));
}

// The pair packing widens each weight to int16 in groups of 16 lanes x 2 channels, zero past the
// channels, with no compensation row.
TEST(X86Int8, PairPackingWidensToInt16) {
  NDArray w = tessera::test::tensorOf({17, 3}, DataType::int8(), std::vector<double>(51, -128));
  w.setInt(16 * 3 + 2, 127);  // channel 16 (block 1, lane 0), input 2 (group 1, k 0)
  const NDArray p = topi::packInt8WeightPairs(w);
  ASSERT_EQ(p.dtype(), DataType::int16());
  ASSERT_EQ(p.shape(), (std::vector<int64_t>{2, 2, 1, 1, 16, 2}));
  EXPECT_EQ(p.shape(), topi::packedInt8Shape({17, 3}, topi::Int8Form::kPairs));
  const auto* v = static_cast<const int16_t*>(p.data());
  auto at = [&](int64_t block, int64_t group, int64_t lane, int64_t k) {
    return v[((block * 2 + group) * 16 + lane) * 2 + k];
  };
  EXPECT_EQ(at(0, 0, 5, 1), -128);
  EXPECT_EQ(at(0, 1, 5, 0), -128);  // input 2
  EXPECT_EQ(at(0, 1, 5, 1), 0);     // input 3: padding
  EXPECT_EQ(at(1, 1, 0, 0), 127);
  EXPECT_EQ(at(1, 0, 1, 0), 0);  // channel 17: padding
}

// The byte packing is VNNI's groups without the compensation row.
TEST(X86Int8, BytePackingLeavesOutTheCompensationRow) {
  const NDArray w = tessera::test::randomTensor({20, 9, 3, 3}, DataType::int8(), 4, -128, 128);
  const NDArray vnni = topi::packInt8Weight(w), bytes = topi::packInt8Weight(w, false);
  ASSERT_EQ(bytes.shape(), (std::vector<int64_t>{2, 3, 3, 3, 16, 4}));
  EXPECT_EQ(bytes.shape(), topi::packedInt8Shape({20, 9, 3, 3}, topi::Int8Form::kBytes));
  const auto* v = static_cast<const int8_t*>(vnni.data());
  const auto* b = static_cast<const int8_t*>(bytes.data());
  const int64_t rowBytes = 3 * 3 * 16 * 4;  // one group of a block: KH x KW x 16 x 4
  for (int64_t block = 0; block < 2; ++block)
    for (int64_t i = 0; i < 3 * rowBytes; ++i)
      ASSERT_EQ(b[block * 3 * rowBytes + i], v[block * 4 * rowBytes + i]) << block << " " << i;
}

// The packing's compensation row decodes to -128 * the sum of each output channel's weights.
TEST(X86Int8, PackedWeightCarriesCompensation) {
  NDArray w = tessera::test::tensorOf({16, 5}, DataType::int8(), std::vector<double>(80, -128));
  w.setInt(3 * 5 + 4, 127);  // channel 3: 4 * -128 + 127
  const NDArray p = topi::packInt8Weight(w);
  ASSERT_EQ(p.shape(), (std::vector<int64_t>{1, 3, 1, 1, 16, 4}));
  const auto* bytes = static_cast<const uint8_t*>(p.data());
  auto compensation = [&](int64_t lane) {
    const uint8_t* b = bytes + ((2 * 16) + lane) * 4;  // row 2 (= ceil(5/4)), lane
    return static_cast<int32_t>(static_cast<uint32_t>(b[0]) | (static_cast<uint32_t>(b[1]) << 8) |
                                (static_cast<uint32_t>(b[2]) << 16) |
                                (static_cast<uint32_t>(b[3]) << 24));
  };
  EXPECT_EQ(compensation(0), -128 * 5 * -128);
  EXPECT_EQ(compensation(3), -128 * (4 * -128 + 127));
  // Channel 4 of group 1 is padding: zero.
  EXPECT_EQ(static_cast<int8_t>(bytes[((1 * 16) + 0) * 4 + 1]), 0);
  EXPECT_EQ(static_cast<int8_t>(bytes[((1 * 16) + 0) * 4 + 0]), -128);
}

}  // namespace
}  // namespace tessera::driver::test
