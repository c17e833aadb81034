// The int8 batch_matmul (topi/batch_matmul_int8.h) and depthwise conv2d
// (topi/depthwise_conv2d_int8.h) kernels on x86, and the int8 dense of N-D data: int8/uint8 x
// int8 -> int32, alone and with the requantizing epilogue relay.quantize's realize produces, over
// odd shapes (batch 1 and more, a broadcast batch, rows, columns and depths that are not whole
// tiles, every transpose; strides 1 to 3, padding, widths that are not whole vectors). Each is
// compiled for the host and compared bit for bit with the reference interpreter; the tests also
// check which implementation was chosen and, for the VNNI ones, that the kernel calls vpdpbusd.
#include <gtest/gtest.h>

#include <regex>

#include <array>
#include <cstring>

#include "int8_kernel_test_util.h"
#include "topi/batch_matmul_int8.h"
#include "topi/nn_int8.h"

namespace tessera::driver::test {
namespace {

using relay::Expr;

bool hostHasVnni() {
  const target::Target host = codegen::hostTarget();
  return host.hasFeature("avx512vnni") && host.hasFeature("avx512bw");
}

relay::IRModule moduleOf(const Expr& body) {
  return relay::inferTypes(relay::IRModule::fromExpr(relay::function(body)));
}

struct BatchMatmulCase {
  int64_t batchA, batchB, m, n, k;
  bool transposeA, transposeB;
  bool constantB;  // B a constant (packed at compile time) or a run-time input
  bool epilogue;
  DataType dtype = DataType::int8();
};

class X86Int8BatchMatmul : public ::testing::TestWithParam<BatchMatmulCase> {};

TEST_P(X86Int8BatchMatmul, MatchesInterpreterBitForBit) {
  const BatchMatmulCase c = GetParam();
  const std::vector<int64_t> as =
      c.transposeA ? std::vector<int64_t>{c.batchA, c.k, c.m} : std::vector{c.batchA, c.m, c.k};
  const std::vector<int64_t> bs =
      c.transposeB ? std::vector<int64_t>{c.batchB, c.n, c.k} : std::vector{c.batchB, c.k, c.n};
  Expr b = c.constantB ? int8Constant(bs, 9) : relay::var("b", tensorType(bs, DataType::int8()));
  Expr y = relay::nn::batchMatmul(relay::var("a", tensorType(as, c.dtype)), b, DataType::int32(),
                                  c.transposeA, c.transposeB);
  if (c.epilogue) y = requantize(y);
  const relay::IRModule mod = moduleOf(y);
  EXPECT_TRUE(matchesInterpreter(mod, 13));
  if (!hostHasVnni()) GTEST_SKIP() << "the host has no AVX-512 VNNI: generic int8 kernels only";
  const BuiltKernels k = kernelsOf(mod);
  EXPECT_TRUE(k.mentions("nn.batch_matmul: batch_matmul_int8_vnni.x86"))
      << ::testing::PrintToString(k.implementations);
  EXPECT_TRUE(k.callsVnni());
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, X86Int8BatchMatmul,
    ::testing::Values(
        // Attention as the ONNX importer writes it: Q K^T and softmax(.) V, both run-time.
        BatchMatmulCase{4, 4, 128, 128, 64, false, false, false, true},
        BatchMatmulCase{4, 4, 128, 64, 128, false, false, false, true},
        BatchMatmulCase{1, 1, 7, 20, 13, false, false, false, false},  // odd everything
        BatchMatmulCase{3, 3, 5, 33, 6, false, true, false, true},     // NT, 2 blocks + 1 column
        BatchMatmulCase{2, 2, 9, 16, 3, true, false, false, false},    // transposed A, depth 3
        BatchMatmulCase{2, 2, 11, 17, 9, true, true, false, true},     // both transposed
        BatchMatmulCase{3, 1, 6, 24, 8, false, false, false, false},   // B's batch broadcast
        BatchMatmulCase{1, 2, 8, 16, 12, false, true, false, true},    // A's batch broadcast
        BatchMatmulCase{2, 2, 10, 40, 35, false, false, false, true, DataType::uint8()},
        // Prime rows (ViT's 197 tokens): accumulators rounded up to whole tiles of 8 rows.
        BatchMatmulCase{2, 2, 197, 197, 64, false, false, false, true},
        BatchMatmulCase{1, 1, 13, 32, 5, true, true, false, false},
        BatchMatmulCase{2, 2, 11, 16, 8, false, true, true, true},
        // A constant B: CombineParallelDense's stacked weights (NT), or NN.
        BatchMatmulCase{3, 3, 4, 48, 20, false, true, true, true},
        BatchMatmulCase{2, 2, 5, 10, 7, false, false, true, false},
        BatchMatmulCase{2, 1, 16, 16, 64, true, true, true, true},
        BatchMatmulCase{2, 2, 3, 20, 9, false, true, true, false, DataType::uint8()}));

struct DepthwiseCase {
  int64_t c, h, w, k, stride;
  std::array<int64_t, 4> pad;  // top, left, bottom, right
  bool epilogue;
  DataType dtype = DataType::int8();
  int64_t batch = 1;
  bool proven = false;  // the data clipped to [0, 127] first, so its range is known
};

// The implementation a case should get on the host: the window form on AVX-512 VNNI with VBMI
// (horizontal stride 1 or 2; unsigned or proven data unshifted), the
// plain form otherwise.
std::string depthwiseImplementation(const DepthwiseCase& c) {
  const target::Target host = codegen::hostTarget();
  if (!hostHasVnni() || !host.hasFeature("avx512vbmi") || c.stride > 2)
    return "depthwise_conv2d_nchw_int8.x86";
  return c.dtype == DataType::uint8() || c.proven ? "depthwise_conv2d_nchw_int8_window.x86"
                                                  : "depthwise_conv2d_nchw_int8_window_shifted.x86";
}

// The case's convolution, requantized when `c.epilogue`.
relay::IRModule depthwiseModule(const DepthwiseCase& c) {
  relay::Conv2DAttrs attrs;
  attrs.strides = {c.stride, c.stride};
  attrs.padding = {c.pad[0], c.pad[1], c.pad[2], c.pad[3]};
  attrs.groups = c.c;
  attrs.channels = c.c;
  attrs.kernelSize = std::vector<int64_t>{c.k, c.k};
  attrs.outDtype = DataType::int32();
  Expr x = relay::var("x", tensorType({c.batch, c.c, c.h, c.w}, c.dtype));
  // A clip of its own kernel: the convolution's kernel learns the range from its call site.
  if (c.proven)
    x = relay::callOp("clip", {x},
                      {{"a_min", AttrValue::floating(0)}, {"a_max", AttrValue::floating(127)}});
  Expr y = relay::nn::conv2d(x, int8Constant({c.c, 1, c.k, c.k}, 3), attrs);
  if (c.epilogue) y = requantize(y, channelBias(c.c, 4));
  return moduleOf(y);
}

class X86Int8Depthwise : public ::testing::TestWithParam<DepthwiseCase> {};

TEST_P(X86Int8Depthwise, MatchesInterpreterBitForBit) {
  const DepthwiseCase c = GetParam();
  const relay::IRModule mod = depthwiseModule(c);
  EXPECT_TRUE(matchesInterpreter(mod, 5));
  const BuiltKernels k = kernelsOf(mod);
  const std::string chosen = depthwiseImplementation(c);
  EXPECT_TRUE(k.mentions("nn.conv2d: " + chosen + " "))
      << ::testing::PrintToString(k.implementations);
  EXPECT_TRUE(k.mentions("schedule: " + chosen)) << ::testing::PrintToString(k.implementations);
  if (chosen.find("window") != std::string::npos) {
    EXPECT_TRUE(k.callsVnni());
    EXPECT_TRUE(k.calls("llvm.x86.avx512.permvar.qi.512"));
    // The bias starts the accumulators (a zero start means the output stage adds it).
    if (c.epilogue) {
      const std::regex zeroStart(
          R"(depthwise_conv2d_int8_window(_\d+)?\[[^\]]*\] = T\.Broadcast\(0,)");
      EXPECT_FALSE(std::regex_search(k.tir, zeroStart)) << k.tir;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, X86Int8Depthwise,
    ::testing::Values(DepthwiseCase{32, 112, 112, 3, 1, {1, 1, 1, 1}, true},  // MobileNetV2's
                      DepthwiseCase{16, 28, 28, 3, 2, {1, 1, 1, 1}, true},    // stride 2
                      DepthwiseCase{8, 14, 14, 3, 1, {1, 1, 1, 1}, false},    // 14 of 16 lanes
                      DepthwiseCase{24, 7, 7, 3, 1, {1, 1, 1, 1}, true},      // 7 columns
                      DepthwiseCase{5, 13, 37, 3, 2, {1, 1, 1, 1}, false},    // odd, 3 vectors
                      DepthwiseCase{4, 11, 21, 3, 2, {0, 0, 1, 1}, true},     // TF-style padding
                      DepthwiseCase{3, 9, 70, 5, 1, {2, 2, 2, 2}, false},     // 5x5, 5 vectors
                      DepthwiseCase{6, 10, 10, 3, 1, {0, 0, 0, 0}, true},     // no padding
                      DepthwiseCase{4, 12, 40, 3, 3, {1, 2, 0, 1}, false},    // stride 3
                      DepthwiseCase{8, 15, 17, 3, 1, {1, 1, 1, 1}, true, DataType::uint8()},
                      DepthwiseCase{4, 9, 9, 3, 2, {1, 1, 1, 1}, true, DataType::int8(), 2},
                      // The window form: rows not a multiple of its 4, vectors not whole, 7x7
                      // (two tap groups), unpadded, stride 2 over 16 columns, a batch; data
                      // proven to lie in [0, 127] (unshifted) beside data that is not.
                      DepthwiseCase{
                          16, 56, 56, 3, 1, {1, 1, 1, 1}, true, DataType::int8(), 1, true},
                      DepthwiseCase{16, 56, 56, 3, 1, {1, 1, 1, 1}, true},
                      DepthwiseCase{9, 19, 33, 3, 2, {1, 1, 1, 1}, true, DataType::int8(), 1, true},
                      DepthwiseCase{4, 13, 50, 7, 1, {3, 3, 3, 3}, true},
                      DepthwiseCase{5, 10, 18, 3, 1, {0, 0, 0, 0}, false, DataType::int8(), 2},
                      DepthwiseCase{6, 33, 33, 3, 2, {0, 0, 1, 1}, true, DataType::uint8()},
                      DepthwiseCase{7, 6, 20, 5, 2, {2, 2, 2, 2}, true, DataType::int8(), 1, true},
                      // Small planes built several channels at a time (all 12 of a batch; 18
                      // strided), shifted data with its compensation per channel.
                      DepthwiseCase{12, 7, 7, 3, 1, {1, 1, 1, 1}, true, DataType::int8(), 2},
                      DepthwiseCase{18, 14, 14, 3, 2, {0, 0, 1, 1}, false}));

// The window form builds small padded planes a few channels at a time before their products, so
// that a plane's stores have reached the cache when the products load it back (MobileNetV2's 7x7
// layers on Zen 5: 0.64 of their time before).
TEST(X86Int8DepthwiseWindow, BuildsSmallPlanesAFewChannelsAtATime) {
  const DepthwiseCase c{60, 7, 7, 3, 1, {1, 1, 1, 1}, true, DataType::int8(), 1, true};
  if (depthwiseImplementation(c).find("window") == std::string::npos)
    GTEST_SKIP() << "the window form needs AVX-512 VNNI and VBMI";
  const relay::IRModule mod = depthwiseModule(c);
  EXPECT_TRUE(matchesInterpreter(mod, 5));
  // 10 padded rows of 19 bytes: 190 bytes a plane; 8192 / 190 = 43, so 30 of the 60 channels'
  // planes together.
  const BuiltKernels k = kernelsOf(mod);
  EXPECT_NE(k.tir.find("T.decl_buffer((5700,), \"uint8\""), std::string::npos) << k.tir;
}

// A dense of N-D data (a transformer's (tokens, batch, features) activations) is the int8 dense of
// the matrix of its rows.
struct DenseNdCase {
  std::vector<int64_t> data;  // (..., K)
  int64_t n;
  bool epilogue;
};

class X86Int8DenseNd : public ::testing::TestWithParam<DenseNdCase> {};

TEST_P(X86Int8DenseNd, MatchesInterpreterBitForBit) {
  const DenseNdCase c = GetParam();
  Expr y = relay::callOp("nn.dense",
                         {relay::var("x", tensorType(c.data, DataType::int8())),
                          int8Constant({c.n, c.data.back()}, 7)},
                         {{"out_dtype", AttrValue::string("int32")}});
  if (c.epilogue) y = requantize(y);
  const relay::IRModule mod = moduleOf(y);
  EXPECT_TRUE(matchesInterpreter(mod, 11));
  if (!hostHasVnni()) GTEST_SKIP() << "the host has no AVX-512 VNNI: generic int8 kernels only";
  const BuiltKernels k = kernelsOf(mod);
  EXPECT_TRUE(k.mentions("schedule: dense_int8_vnni.x86"))
      << ::testing::PrintToString(k.implementations);
  EXPECT_TRUE(k.callsVnni());
}

INSTANTIATE_TEST_SUITE_P(Shapes, X86Int8DenseNd,
                         ::testing::Values(DenseNdCase{{12, 1, 64}, 48, true},  // (L, batch, E)
                                           DenseNdCase{{1, 16, 32}, 64, true},  // (batch, L, E)
                                           DenseNdCase{{3, 5, 7}, 20, false},
                                           DenseNdCase{{2, 3, 2, 9}, 16, true}));

// The packing stores each batch as packInt8Weight stores the matrix, transposed or not.
TEST(X86Int8BatchMatmul, PackedBatchesArePackedMatrices) {
  const NDArray nt = tessera::test::randomTensor({2, 20, 9}, DataType::int8(), 4, -128, 128);
  NDArray nn = NDArray::empty({2, 9, 20}, DataType::int8());
  for (int64_t b = 0; b < 2; ++b)
    for (int64_t j = 0; j < 20; ++j)
      for (int64_t t = 0; t < 9; ++t)
        nn.setInt((b * 9 + t) * 20 + j, nt.getInt((b * 20 + j) * 9 + t));
  const NDArray p = topi::packInt8BatchWeight(nt, true);
  ASSERT_EQ(p.shape(), (std::vector<int64_t>{2, 2, 4, 16, 4}));
  const NDArray q = topi::packInt8BatchWeight(nn, false);
  ASSERT_EQ(q.shape(), p.shape());
  EXPECT_EQ(std::memcmp(p.data(), q.data(), p.nbytes()), 0);
  NDArray second = NDArray::empty({20, 9}, DataType::int8());
  std::memcpy(second.data(), static_cast<const int8_t*>(nt.data()) + 180, 180);
  const NDArray one = topi::packInt8Weight(second);
  EXPECT_EQ(
      std::memcmp(static_cast<const int8_t*>(p.data()) + p.nbytes() / 2, one.data(), one.nbytes()),
      0);
}

}  // namespace
}  // namespace tessera::driver::test
