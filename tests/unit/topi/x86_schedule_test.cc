// The default x86 schedules (topi/x86/) and weight packing (relay/strategy/packed_weights.h):
// dense and conv2d with constant weights, over shapes that fit the register tiles exactly and
// shapes that do not (odd rows and widths, channel counts that are not whole vectors, strides,
// padding, dilation), each with and without an epilogue, built for the host and compared with
// the reference interpreter; plus checks that the schedule really applied (packed parameters,
// vectorized tiles) and that kernels it does not recognise still compute the right result.
#include <gtest/gtest.h>

#include "../driver/build_test_util.h"
#include "driver/pipeline.h"
#include "lower/relay/lower_primitive.h"
#include "relay/builder.h"
#include "relay/strategy/packed_weights.h"
#include "relay/strategy/schedule_kernel.h"
#include "relay/strategy/strategy.h"
#include "tir/printer/printer.h"
#include "tir/transform/lower.h"
#include "topi/x86/schedule.h"

namespace tessera::driver::test {
namespace {

using relay::Expr;

relay::IRModule moduleOf(const Expr& body) {
  return relay::inferTypes(relay::IRModule::fromExpr(relay::function(body)));
}

Expr constantOf(const std::vector<int64_t>& shape, uint64_t seed) {
  return relay::constant(tessera::test::randomTensor(shape, DataType::float32(), seed));
}

// A square conv2d's attrs: `oc` outputs, k x k window, stride, padding, dilation, groups.
relay::Conv2DAttrs convAttrs(int64_t oc, int64_t k, int64_t stride = 1, int64_t pad = 0,
                             int64_t dilation = 1, int64_t groups = 1) {
  relay::Conv2DAttrs attrs;
  attrs.strides = {stride, stride};
  attrs.padding = {pad, pad};
  attrs.dilation = {dilation, dilation};
  attrs.groups = groups;
  attrs.channels = oc;
  attrs.kernelSize = std::vector<int64_t>{k, k};
  return attrs;
}

// The parameters of a build with a packed weight's rank (dense: 3, conv2d: 5).
size_t packedParams(const Built& built, int rank) {
  size_t n = 0;
  for (const auto& [name, value] : built.params) n += value.ndim() == rank;
  return n;
}

struct DenseCase {
  int64_t m, n, k;
  bool epilogue;
};

class X86Dense : public ::testing::TestWithParam<DenseCase> {};

TEST_P(X86Dense, MatchesInterpreter) {
  const DenseCase c = GetParam();
  Expr y = relay::nn::dense(relay::var("x", {c.m, c.k}), constantOf({c.n, c.k}, 7));
  if (c.epilogue) y = relay::nn::relu(relay::nn::biasAdd(y, constantOf({c.n}, 8)));
  const relay::IRModule mod = moduleOf(y);
  EXPECT_TRUE(matchesInterpreter(mod, 11));
  const Built built = build(mod, codegen::hostTarget());
  // Channel counts with a whole-vector or small block are packed; others keep their layout.
  const bool packable = c.n % 8 == 0 || c.n <= 32;
  EXPECT_EQ(packedParams(built, 3), packable ? 1u : 0u);
}

INSTANTIATE_TEST_SUITE_P(Shapes, X86Dense,
                         ::testing::Values(DenseCase{1, 128, 784, true},  // the MLP layer
                                           DenseCase{1, 10, 128, true},   // small N: one block
                                           DenseCase{1, 1000, 96, true},  // a classifier head
                                           DenseCase{7, 48, 33, false},   // odd rows and depth
                                           DenseCase{16, 64, 64, true},   // 8x32 register tiles
                                           DenseCase{5, 24, 17, true},    // N not 16/32-divisible
                                           DenseCase{3, 100, 9, false},   // not packable
                                           DenseCase{64, 96, 40, false}));

struct ConvCase {
  int64_t c, h, w, oc, k, stride, pad, dilation;
  bool epilogue;
};

class X86Conv2d : public ::testing::TestWithParam<ConvCase> {};

TEST_P(X86Conv2d, MatchesInterpreter) {
  const ConvCase c = GetParam();
  const relay::Conv2DAttrs attrs = convAttrs(c.oc, c.k, c.stride, c.pad, c.dilation);
  Expr y = relay::nn::conv2d(relay::var("x", {1, c.c, c.h, c.w}),
                             constantOf({c.oc, c.c, c.k, c.k}, 3), attrs);
  if (c.epilogue) y = relay::nn::relu(relay::nn::biasAdd(y, constantOf({c.oc}, 4)));
  const relay::IRModule mod = moduleOf(y);
  EXPECT_TRUE(matchesInterpreter(mod, 5));
  // Pointwise convolutions over whole pixel vectors are matrix products on the plain weight;
  // with AVX2 (16 vector registers) also over a partial last panel.
  const int64_t pixels = c.h * c.w;
  const bool pointwise =
      c.k == 1 && c.stride == 1 && c.pad == 0 && c.dilation == 1 &&
      (pixels % 16 == 0 ||
       (pixels >= 16 && relay::strategy::pointwisePartialPanels(codegen::hostTarget())));
  EXPECT_EQ(packedParams(build(mod, codegen::hostTarget()), 5),
            c.oc % 8 == 0 && !pointwise ? 1u : 0u);
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, X86Conv2d,
    ::testing::Values(ConvCase{3, 17, 17, 16, 7, 2, 3, 1, true},      // ResNet stem, odd size
                      ConvCase{16, 14, 14, 32, 3, 1, 1, 1, true},     // 3x3, 14 columns per tile
                      ConvCase{8, 13, 11, 24, 3, 2, 1, 1, false},     // odd width, 8-lane blocks
                      ConvCase{16, 9, 9, 16, 1, 1, 0, 1, true},       // 1x1, no padding
                      ConvCase{4, 12, 12, 16, 3, 1, 2, 2, false},     // dilation
                      ConvCase{6, 8, 8, 10, 3, 1, 1, 1, true},        // 10 channels: not packed
                      ConvCase{16, 8, 8, 24, 1, 1, 0, 1, true},       // pointwise, 64 pixels
                      ConvCase{24, 28, 28, 36, 1, 1, 0, 1, false},    // pointwise, 784 pixels
                      ConvCase{40, 4, 12, 13, 1, 1, 0, 1, true},      // pointwise, odd channels
                      ConvCase{24, 7, 7, 64, 1, 1, 0, 1, true},       // 1x1 at 7x7
                      ConvCase{40, 14, 14, 44, 1, 1, 0, 1, true},     // 1x1 at 14x14
                      ConvCase{32, 15, 15, 96, 1, 2, 0, 1, true},     // strided 1x1, 3 blocks
                      ConvCase{16, 11, 11, 64, 3, 2, 1, 1, false}));  // strided 3x3

const char* const kAvx512Target =
    "llvm -mcpu=skylake-avx512 -mattr=+avx512f,+avx512bw,+avx512dq,+avx512vl,+avx2,+fma";
const char* const kAvx2Target = "llvm -mcpu=haswell -mattr=+avx2,+fma";

// The channel block of a build's packed weight (its last dim), 0 when nothing was packed.
int64_t packedBlock(const relay::IRModule& mod, const std::string& target) {
  const Built built = build(mod, codegen::withHostDefaults(target::Target::parse(target)));
  for (const auto& [name, value] : built.params)
    if (value.ndim() == 5) return value.shape()[4];
  return 0;
}

// The packed conv2d's channel block is two vector registers when they divide the output channels
// (32 with AVX-512, 16 with AVX2), else one, else 8.
TEST(X86Schedule, PackedConvBlocksAreTwoVectorsWide) {
  const relay::IRModule mod = moduleOf(relay::nn::conv2d(
      relay::var("x", {1, 16, 9, 9}), constantOf({64, 16, 3, 3}, 9), convAttrs(64, 3, 2, 1)));
  EXPECT_EQ(packedBlock(mod, kAvx512Target), 32);
  EXPECT_EQ(packedBlock(mod, kAvx2Target), 16);
}

// Register tiles count AVX2's 16 vector registers: accumulators, weight vectors and the broadcast
// input of a tile fit, so a tile of two-vector columns holds at most 6 columns there (7 with 32
// registers). Where the output's width has no such divisor, the weight gets a one-vector block.
TEST(X86Schedule, Avx2TilesFitSixteenRegisters) {
  topi::x86::ScheduleOptions avx2;
  avx2.vectorBytes = 32;
  avx2.vectorRegisters = 16;
  const topi::x86::ScheduleOptions avx512;
  EXPECT_EQ(topi::x86::packedConvColumns(56, 16, avx2), 4);
  EXPECT_EQ(topi::x86::packedConvColumns(7, 16, avx2), 1);
  EXPECT_EQ(topi::x86::packedConvColumns(7, 8, avx2), 7);
  EXPECT_EQ(topi::x86::packedConvColumns(56, 32, avx512), 7);
  // Dense rows take the limit with a partial last tile when no divisor comes near it.
  EXPECT_EQ(topi::x86::packedDenseRows(49, 16, avx2), 6);
  EXPECT_EQ(topi::x86::packedDenseRows(49, 8, avx2), 7);
  EXPECT_EQ(topi::x86::packedDenseRows(64, 16, avx2), 6);
  EXPECT_EQ(topi::x86::packedDenseRows(48, 16, avx2), 6);
  EXPECT_EQ(topi::x86::packedDenseRows(64, 32, avx512), 8);
  EXPECT_EQ(topi::x86::packedDenseRows(49, 32, avx512), 7);

  // A strided 3x3 conv to 7 columns: 8-channel blocks with AVX2, 32 with AVX-512.
  const relay::IRModule strided = moduleOf(relay::nn::conv2d(
      relay::var("x", {1, 16, 14, 14}), constantOf({32, 16, 3, 3}, 9), convAttrs(32, 3, 2, 1)));
  EXPECT_EQ(packedBlock(strided, kAvx2Target), 8);
  EXPECT_EQ(packedBlock(strided, kAvx512Target), 32);
  // Winograd at 14x14 has 49 tiles (rows of its products), at 28x28 196: 16-channel blocks with
  // AVX2 (6 rows, the last tile partial: 12 accumulators against 8-channel blocks' 7 rows).
  auto winograd = [](int64_t size) {
    return moduleOf(relay::nn::conv2d(relay::var("x", {1, 16, size, size}),
                                      constantOf({32, 16, 3, 3}, 9), convAttrs(32, 3, 1, 1)));
  };
  EXPECT_EQ(packedBlock(winograd(14), kAvx2Target), 16);
  EXPECT_EQ(packedBlock(winograd(28), kAvx2Target), 16);
  EXPECT_EQ(packedBlock(winograd(14), kAvx512Target), 32);
}

// The AVX2 tiles compute what the interpreter does, on any host that runs AVX2 code.
TEST(X86Schedule, Avx2TilesMatchInterpreter) {
  if (!codegen::hostTarget().hasFeature("avx2") || !codegen::hostTarget().hasFeature("fma"))
    GTEST_SKIP() << "the host cannot run AVX2 code";
  const target::Target avx2 = codegen::withHostDefaults(target::Target::parse(kAvx2Target));
  auto convRelu = [](int64_t c, int64_t size, int64_t oc, int64_t k, int64_t stride) {
    return moduleOf(relay::nn::relu(relay::nn::biasAdd(
        relay::nn::conv2d(relay::var("x", {1, c, size, size}), constantOf({oc, c, k, k}, 3),
                          convAttrs(oc, k, stride, k / 2)),
        constantOf({oc}, 4))));
  };
  EXPECT_TRUE(matchesInterpreter(convRelu(16, 14, 32, 3, 2), 5, 1e-4, 1e-5, 3, avx2));
  EXPECT_TRUE(matchesInterpreter(convRelu(16, 14, 32, 3, 1), 5, 1e-4, 1e-5, 3, avx2));
  EXPECT_TRUE(matchesInterpreter(convRelu(16, 28, 32, 3, 1), 5, 1e-4, 1e-5, 3, avx2));
  EXPECT_TRUE(matchesInterpreter(convRelu(24, 14, 48, 1, 2), 5, 1e-4, 1e-5, 3, avx2));
  EXPECT_TRUE(matchesInterpreter(convRelu(16, 16, 64, 1, 1), 5, 1e-4, 1e-5, 3, avx2));
  EXPECT_TRUE(matchesInterpreter(
      moduleOf(relay::nn::dense(relay::var("x", {12, 40}), constantOf({48, 40}, 7))), 5, 1e-4, 1e-5,
      3, avx2));
  // 13 rows: tiles of 6 and a partial one where 8 column blocks feed the threads, whole tiles
  // of one row where 3 do not.
  for (const int64_t columns : {128, 48})
    EXPECT_TRUE(matchesInterpreter(moduleOf(relay::nn::relu(relay::nn::dense(
                                       relay::var("x", {13, 40}), constantOf({columns, 40}, 7)))),
                                   5, 1e-4, 1e-5, 3, avx2))
        << columns;
}

// Winograd F(2x2, 3x3): the weight is transformed at compile time into (4, 4, O/ob, I, ob).
TEST(X86Schedule, Winograd3x3UsesTransformedWeights) {
  const relay::Conv2DAttrs attrs = convAttrs(32, 3, 1, 1);
  const relay::IRModule mod = moduleOf(relay::nn::relu(
      relay::nn::conv2d(relay::var("x", {1, 16, 12, 12}), constantOf({32, 16, 3, 3}, 3), attrs)));
  const Built built = build(mod, codegen::hostTarget());
  bool transformed = false;
  for (const auto& [name, value] : built.params)
    transformed =
        transformed || (value.ndim() == 5 && value.shape()[0] == 4 && value.shape()[1] == 4);
  EXPECT_TRUE(transformed);
  EXPECT_TRUE(matchesInterpreter(mod, 8));
}

// Grouped convolutions, and depthwise ones whose channels do not block, take the direct schedule
// (conv2d_nchw, one row at a time); AlterOpLayout blocks the others
// (x86_alter_layout_test.cc).
struct GroupedCase {
  int64_t c, h, w, oc, groups, k, stride, pad;
  bool epilogue;
};

class X86GroupedConv2d : public ::testing::TestWithParam<GroupedCase> {};

TEST_P(X86GroupedConv2d, MatchesInterpreter) {
  const GroupedCase c = GetParam();
  const relay::Conv2DAttrs attrs = convAttrs(c.oc, c.k, c.stride, c.pad, 1, c.groups);
  Expr y = relay::nn::conv2d(relay::var("x", {1, c.c, c.h, c.w}),
                             constantOf({c.oc, c.c / c.groups, c.k, c.k}, 6), attrs);
  if (c.epilogue) y = relay::clip(relay::nn::biasAdd(y, constantOf({c.oc}, 4)), 0, 6);
  const relay::IRModule mod = moduleOf(y);
  EXPECT_TRUE(matchesInterpreter(mod, 5));
  std::string chosen;  // the blocked conv has layout_transform kernels around it
  for (const KernelStrategy& k : build(mod, codegen::hostTarget()).strategies)
    for (const relay::strategy::StrategyChoice& choice : k.choices)
      if (choice.op == "nn.conv2d") chosen = choice.chosenName();
  const bool blocked = c.groups == c.c && c.oc == c.c && c.c % 8 == 0;
  EXPECT_EQ(chosen, blocked ? "depthwise_conv2d_NCHWc.x86" : "conv2d_nchw.x86");
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, X86GroupedConv2d,
    ::testing::Values(GroupedCase{32, 14, 14, 32, 32, 3, 1, 1, true},  // MobileNetV2 depthwise
                      GroupedCase{16, 15, 15, 16, 16, 3, 2, 1, true},  // stride 2, odd size
                      GroupedCase{8, 9, 7, 16, 8, 3, 1, 1, false},     // channel multiplier 2
                      GroupedCase{8, 10, 10, 12, 2, 3, 1, 0, false},   // two groups
                      GroupedCase{12, 9, 9, 12, 12, 3, 1, 1, true}));  // 12: does not block

// Products whose right operand is not a constant pack it inside the kernel (T_pack_b) and take
// the dense schedule: batch_matmul with and without transposing b, and a dense over an input.
struct BatchCase {
  int64_t batch, m, n, k;
  bool transposeB;
};

class X86BatchMatmul : public ::testing::TestWithParam<BatchCase> {};

TEST_P(X86BatchMatmul, MatchesInterpreter) {
  const BatchCase c = GetParam();
  const std::vector<int64_t> b = c.transposeB ? std::vector<int64_t>{c.batch, c.n, c.k}
                                              : std::vector<int64_t>{c.batch, c.k, c.n};
  Expr y = relay::nn::batchMatmul(relay::var("a", {c.batch, c.m, c.k}), relay::var("b", b),
                                  DataType::voidType(), false, c.transposeB);
  EXPECT_TRUE(matchesInterpreter(moduleOf(relay::nn::softmax(y)), 3));
}

INSTANTIATE_TEST_SUITE_P(Shapes, X86BatchMatmul,
                         ::testing::Values(BatchCase{4, 16, 16, 8, false},    // attention x V
                                           BatchCase{4, 16, 32, 8, true},     // Q x K^T
                                           BatchCase{3, 5, 24, 7, true},      // odd rows
                                           BatchCase{2, 6, 10, 9, false},     // 10 columns
                                           BatchCase{1, 4, 100, 3, false}));  // no block: plain

// A weight used by two calls is packed and stored once.
TEST(X86Schedule, SharedWeightIsPackedOnce) {
  const Expr w = constantOf({32, 32}, 12);
  const Expr h = relay::nn::relu(relay::nn::dense(relay::var("x", {4, 32}), w));
  const relay::IRModule mod = moduleOf(relay::nn::relu(relay::nn::dense(h, w)));
  EXPECT_TRUE(matchesInterpreter(mod, 6));
  EXPECT_EQ(packedParams(build(mod, codegen::hostTarget()), 3), 1u);
}

TEST(X86Schedule, DenseOverAnInputIsPackedInTheKernel) {
  const relay::IRModule mod = moduleOf(relay::nn::relu(relay::nn::dense(
      relay::reshape(relay::var("x", {2, 3, 40}), {6, 40}), relay::var("w", {64, 40}))));
  EXPECT_TRUE(matchesInterpreter(mod, 4));
}

// A conv2d whose weight is an input (not a constant) is not packed and gets the generic schedule.
TEST(X86Schedule, ConvWithWeightInputIsNotPacked) {
  const relay::Conv2DAttrs attrs = convAttrs(16, 3, 1, 1);
  const relay::IRModule mod = moduleOf(
      relay::nn::conv2d(relay::var("x", {1, 8, 10, 10}), relay::var("w", {16, 8, 3, 3}), attrs));
  EXPECT_TRUE(matchesInterpreter(mod, 9));
  EXPECT_EQ(packedParams(build(mod, codegen::hostTarget()), 5), 0u);
}

// The last primitive function of `mod` after the graph passes, lowered for `target` with the
// given parameters constant (a null func when the module has none).
lower::LoweredFunction lowerOnlyKernel(const relay::IRModule& mod, const target::Target& target,
                                       std::vector<size_t> constantParams) {
  relay::PassContext ctx;
  const relay::IRModule fused = driver::optimize(mod, ctx);
  relay::Function primitive;
  relay::postOrderVisit(fused.main(), [&](const Expr& e) {
    if (const auto* f = e->as<relay::FunctionNode>(); f && f->attrs.has("Primitive"))
      primitive = relay::exprAs<relay::FunctionNode>(e);
  });
  if (!primitive) return {};
  return lower::lowerPrimitive(primitive,
                               {.target = &target, .constantParams = std::move(constantParams)});
}

// The schedule itself: the packed dense becomes a register tile (init + update blocks, k
// outermost, the lanes vectorized) and runs its tiles in parallel.
TEST(X86Schedule, DenseTileShape) {
  const relay::IRModule mod = moduleOf(
      relay::nn::relu(relay::nn::dense(relay::var("x", {16, 64}), constantOf({64, 64}, 2))));
  const target::Target target =
      codegen::withHostDefaults(target::Target::parse("llvm -mattr=+avx512f -num-cores=2"));
  const lower::LoweredFunction lowered = lowerOnlyKernel(mod, target, {1});
  ASSERT_TRUE(lowered.func);
  ASSERT_EQ(lowered.packedParams.size(), 1u);
  EXPECT_EQ(lowered.packedParams[0].packing.block, 32);
  EXPECT_EQ(lowered.packedParams[0].packing.kind, relay::strategy::PackKind::kDense);
  // The kernel is identified by the implementation that produced it, which schedules it.
  const AttrValue* impl = lowered.func->attrs.find(relay::strategy::kImplementationAttr);
  ASSERT_TRUE(impl);
  EXPECT_EQ(impl->asString(), "dense_pack.x86");
  relay::strategy::AnchorReport report;
  const std::string s =
      tir::toScript(relay::strategy::scheduleKernel(lowered.func, target, &report));
  EXPECT_TRUE(report.answer.applies) << report.answer.reason;
  EXPECT_NE(s.find("T_dense_pack_init"), std::string::npos) << s;
  EXPECT_NE(s.find("T.vectorized(32)"), std::string::npos) << s;
  EXPECT_NE(s.find("T.unroll(8)"), std::string::npos) << s;
  EXPECT_NE(s.find("T.parallel("), std::string::npos) << s;
}

// A batch-1 dense (a classifier head, 1000 = 125 blocks of 8) would be one chain of dependent
// FMAs per block: the tile takes 5 blocks, each its own accumulator vector (2.6x faster on Zen
// 4), and the initialization and output stage slice the accumulators by the same vectors.
TEST(X86Schedule, BatchOneDenseTileTakesSeveralColumnBlocks) {
  const relay::IRModule mod =
      moduleOf(relay::nn::dense(relay::var("x", {1, 64}), constantOf({1000, 64}, 2)));
  const target::Target target =
      codegen::withHostDefaults(target::Target::parse("llvm -mattr=+avx512f -num-cores=2"));
  const lower::LoweredFunction lowered = lowerOnlyKernel(mod, target, {1});
  ASSERT_TRUE(lowered.func);
  ASSERT_EQ(lowered.packedParams.size(), 1u);
  EXPECT_EQ(lowered.packedParams[0].packing.block, 8);
  relay::strategy::AnchorReport report;
  const std::string s =
      tir::toScript(relay::strategy::scheduleKernel(lowered.func, target, &report));
  EXPECT_TRUE(report.answer.applies) << report.answer.reason;
  EXPECT_NE(s.find("T.parallel(25)"), std::string::npos) << s;
  size_t unrolled = 0;
  for (size_t at = s.find("T.unroll(5)"); at != std::string::npos;
       at = s.find("T.unroll(5)", at + 1))
    ++unrolled;
  EXPECT_EQ(unrolled, 3u) << s;  // initialization, update, output stage
  EXPECT_EQ(s.find("T.vectorized(40)"), std::string::npos) << s;
  EXPECT_TRUE(matchesInterpreter(mod, 3));
}

// With AVX2 a pointwise conv2d whose pixels are not whole 16-pixel panels (ResNet's 7x7 and
// 14x14) is still a product over pixels: 12 accumulators (6 channels x 2 vectors) against the
// packed tile's 7 on a 7-column row. The last panel is partial and the channel tiles need not
// divide the channels: LoopPartition peels both off, so the main tiles stay vector code. With
// AVX-512 the packed tile holds 14 accumulators at full lanes and these stay packed.
TEST(X86Schedule, Avx2PointwiseTakesPartialPixelPanels) {
  const target::Target avx2 =
      codegen::withHostDefaults(target::Target::parse(std::string(kAvx2Target) + " -num-cores=2"));
  const target::Target avx512 = codegen::withHostDefaults(target::Target::parse(kAvx512Target));
  EXPECT_TRUE(relay::strategy::pointwisePartialPanels(avx2));
  EXPECT_FALSE(relay::strategy::pointwisePartialPanels(avx512));
  for (const int64_t size : {7, 14}) {
    const relay::IRModule mod = moduleOf(relay::nn::relu(
        relay::nn::biasAdd(relay::nn::conv2d(relay::var("x", {1, 32, size, size}),
                                             constantOf({40, 32, 1, 1}, 3), convAttrs(40, 1)),
                           constantOf({40}, 4))));
    EXPECT_EQ(packedBlock(mod, kAvx2Target), 0) << size;
    EXPECT_GT(packedBlock(mod, kAvx512Target), 0) << size;
    const lower::LoweredFunction lowered = lowerOnlyKernel(mod, avx2, {1});
    ASSERT_TRUE(lowered.func);
    const AttrValue* impl = lowered.func->attrs.find(relay::strategy::kImplementationAttr);
    ASSERT_TRUE(impl);
    EXPECT_EQ(impl->asString(), "conv2d_1x1.x86");
    relay::strategy::AnchorReport report;
    const tir::PrimFunc scheduled = relay::strategy::scheduleKernel(lowered.func, avx2, &report);
    EXPECT_TRUE(report.answer.applies) << report.answer.reason;
    const std::string flat = tir::toScript(tir::transform::lower(scheduled));
    // The main tiles: 16-pixel input vectors times broadcast weights.
    EXPECT_NE(flat.find("* T.Broadcast(p1_1["), std::string::npos) << flat;
    if (codegen::hostTarget().hasFeature("avx2") && codegen::hostTarget().hasFeature("fma")) {
      EXPECT_TRUE(matchesInterpreter(mod, 5, 1e-4, 1e-5, 3, avx2)) << size;
    }
  }
}

// The generic schedule of the one kernel of `mod` for an AVX-512 target with 2 cores, printed.
std::string genericSchedule(const relay::IRModule& mod) {
  relay::PassContext ctx;
  relay::Function primitive;
  relay::postOrderVisit(driver::optimize(mod, ctx).main(), [&](const Expr& e) {
    if (const auto* f = e->as<relay::FunctionNode>(); f && f->attrs.has("Primitive"))
      primitive = relay::exprAs<relay::FunctionNode>(e);
  });
  if (!primitive) return "no kernel";
  const target::Target target =
      codegen::withHostDefaults(target::Target::parse("llvm -mattr=+avx512f -num-cores=2"));
  const lower::LoweredFunction lowered = lower::lowerPrimitive(primitive, {.target = &target});
  return tir::toScript(relay::strategy::scheduleKernel(lowered.func, target, nullptr));
}

// The only kernel of `mod` scheduled for `target` by its anchor schedule, as TVMScript (empty
// when that schedule does not apply).
std::string scheduledKernel(const relay::IRModule& mod, const target::Target& target) {
  const lower::LoweredFunction lowered = lowerOnlyKernel(mod, target, {});
  if (!lowered.func) return "";
  relay::strategy::AnchorReport report;
  const std::string s =
      tir::toScript(relay::strategy::scheduleKernel(lowered.func, target, &report));
  return report.answer.applies ? s : "";
}

// The blocked conv2d's tile spans two channel blocks (one broadcast input value feeds two FMAs):
// 7 columns x 2 blocks of 16 lanes with AVX-512, the block loop unrolled inside the reduction.
TEST(X86Schedule, BlockedConvTileSpansTwoChannelBlocks) {
  relay::Conv2DAttrs attrs = convAttrs(64, 1);
  attrs.dataLayout = "NCHW16c";
  attrs.kernelLayout = "OIHW16i16o";
  const relay::IRModule mod =
      moduleOf(relay::clip(relay::nn::conv2d(relay::var("x", {1, 2, 14, 14, 16}),
                                             constantOf({4, 2, 1, 1, 16, 16}, 4), attrs),
                           0, 6));
  EXPECT_TRUE(matchesInterpreter(mod, 10));
  const target::Target target =
      codegen::withHostDefaults(target::Target::parse("llvm -mattr=+avx512f -num-cores=1"));
  const std::string s = scheduledKernel(mod, target);
  const size_t update = s.find("conv2d_NCHWc_update");
  ASSERT_NE(update, std::string::npos) << s;
  const std::string above = s.substr(0, update);
  EXPECT_NE(above.rfind("T.unroll(2)"), std::string::npos) << s;
  EXPECT_NE(above.rfind("T.unroll(7)"), std::string::npos) << s;
  EXPECT_NE(above.rfind("T.vectorized(16)"), std::string::npos) << s;
}

// With AVX2's 16 registers two 8-channel blocks of a 7-column row would leave one column per
// tile: the tile spans one block and all seven columns.
TEST(X86Schedule, Avx2BlockedConvTileTakesOneBlockOnSevenColumns) {
  relay::Conv2DAttrs attrs = convAttrs(32, 1);
  attrs.dataLayout = "NCHW8c";
  attrs.kernelLayout = "OIHW8i8o";
  const relay::IRModule mod = moduleOf(relay::clip(
      relay::nn::conv2d(relay::var("x", {1, 4, 7, 7, 8}), constantOf({4, 4, 1, 1, 8, 8}, 4), attrs),
      0, 6));
  const target::Target target =
      codegen::withHostDefaults(target::Target::parse(std::string(kAvx2Target) + " -num-cores=1"));
  const std::string s = scheduledKernel(mod, target);
  const size_t update = s.find("conv2d_NCHWc_update");
  ASSERT_NE(update, std::string::npos) << s;
  const std::string above = s.substr(0, update);
  EXPECT_EQ(above.rfind("T.unroll(2)"), std::string::npos) << s;
  EXPECT_NE(above.rfind("T.unroll(7)"), std::string::npos) << s;
  EXPECT_NE(above.rfind("T.vectorized(8)"), std::string::npos) << s;
  if (codegen::hostTarget().hasFeature("avx2") && codegen::hostTarget().hasFeature("fma")) {
    EXPECT_TRUE(matchesInterpreter(mod, 10, 1e-4, 1e-5, 3, target));
  }
}

// Elementwise kernels over short rows (14 columns: LLVM unrolls such a loop and leaves it scalar)
// run the trailing dimensions that every operand reads elementwise, or broadcasts over, as one
// loop, which LLVM vectorizes; an operand that reads them otherwise keeps the rows apart.
TEST(X86Schedule, ShortElementwiseRowsAreOneLoop) {
  const Expr x = relay::var("x", {1, 64, 14, 14}), y = relay::var("y", {1, 64, 14, 14});
  const relay::IRModule plain = moduleOf(relay::nn::relu(relay::add(x, y)));
  EXPECT_TRUE(matchesInterpreter(plain, 3));
  EXPECT_NE(genericSchedule(plain).find("T.parallel(12544)"), std::string::npos)
      << genericSchedule(plain);

  // A per-channel operand broadcasts over the rows and columns: those two are one loop.
  const relay::IRModule perChannel =
      moduleOf(relay::multiply(relay::add(x, y), constantOf({64, 1, 1}, 5)));
  EXPECT_TRUE(matchesInterpreter(perChannel, 4));
  const std::string channels = genericSchedule(perChannel);
  EXPECT_NE(channels.find("in T.parallel(64)"), std::string::npos) << channels;
  EXPECT_NE(channels.find("_fused in range(196)"), std::string::npos) << channels;

  // One value per row: the columns stay a loop of their own.
  const relay::IRModule perRow = moduleOf(relay::add(x, constantOf({1, 1, 14, 1}, 6)));
  EXPECT_TRUE(matchesInterpreter(perRow, 5));
  EXPECT_EQ(genericSchedule(perRow).find("range(196)"), std::string::npos)
      << genericSchedule(perRow);
}

}  // namespace
}  // namespace tessera::driver::test

namespace tessera::driver::test {
namespace {

// Pooling windows of at most 9 taps are unrolled around the vector of output columns: the
// accumulator row then stays in registers over the window (ResNet's 3x3 stride-2 max pool over
// 64 x 112 x 112 on Zen 5: 0.71 -> 0.09 ms alone, 0.77 -> 0.20 ms in the model). Larger windows
// keep their loops. Padded, strided and ceil-mode windows match the interpreter.
TEST(X86Schedule, SmallPoolingWindowsAreUnrolledAroundTheColumnVector) {
  const Expr x = relay::var("x", {1, 8, 15, 13});
  relay::nn::MaxPool2DAttrs max;
  max.poolSize = {3, 3};
  max.strides = {2, 2};
  max.padding = {1, 1, 1, 1};
  const relay::IRModule maxPool = moduleOf(relay::nn::maxPool2d(x, max));
  EXPECT_TRUE(matchesInterpreter(maxPool, 6));
  const std::string text = genericSchedule(maxPool);
  EXPECT_NE(text.find("T.unroll(3)"), std::string::npos) << text;
  EXPECT_NE(text.find("T.vectorized(7)"), std::string::npos) << text;

  relay::nn::AvgPool2DAttrs avg;
  avg.poolSize = {3, 3};
  avg.strides = {2, 2};
  avg.padding = {1, 1, 1, 1};
  avg.ceilMode = true;
  EXPECT_TRUE(matchesInterpreter(moduleOf(relay::nn::avgPool2d(x, avg)), 7));

  relay::nn::MaxPool2DAttrs wide;
  wide.poolSize = {5, 5};
  const relay::IRModule widePool = moduleOf(relay::nn::maxPool2d(x, wide));
  EXPECT_TRUE(matchesInterpreter(widePool, 8));
  EXPECT_EQ(genericSchedule(widePool).find("T.unroll"), std::string::npos)
      << genericSchedule(widePool);
}

}  // namespace
}  // namespace tessera::driver::test

namespace tessera::driver::test {
namespace {

// An integer global pool (7 x 7, not whole vectors) is summed inside its division's loop, the
// window one loop left to LLVM's vectorizer; a float one keeps its order of additions and stays
// where it was.
TEST(X86Schedule, IntegerGlobalPoolSumsEachWindowInARegister) {
  const Expr x = relay::var("x", {1, 40, 7, 7}, DataType::int32());
  const relay::IRModule pool = moduleOf(relay::nn::globalAvgPool2d(x));
  EXPECT_TRUE(matchesInterpreter(pool, 9));
  const std::string text = genericSchedule(pool);
  EXPECT_NE(text.find("T.serial(49, annotations={\"pragma_llvm_vectorize\": 1})"),
            std::string::npos)
      << text;

  // An integer window with columns to vectorize across, read elementwise by a cast (ResNet's
  // quantized 3x3 stride-2 max pool and its requantization) stays vectorizeWindows': summed in its
  // consumer instead, it ran 38 times slower (60 us -> 2.3 ms in ResNet-18).
  relay::nn::MaxPool2DAttrs max;
  max.poolSize = {3, 3};
  max.strides = {2, 2};
  max.padding = {1, 1, 1, 1};
  const relay::IRModule maxPool = moduleOf(
      relay::cast(relay::nn::maxPool2d(relay::var("x", {1, 8, 15, 13}, DataType::int32()), max),
                  DataType::int8()));
  EXPECT_TRUE(matchesInterpreter(maxPool, 11));
  const std::string window = genericSchedule(maxPool);
  EXPECT_NE(window.find("T.vectorized(7)"), std::string::npos) << window;
  EXPECT_EQ(window.find("pragma_llvm_vectorize"), std::string::npos) << window;

  const relay::IRModule floatPool =
      moduleOf(relay::nn::globalAvgPool2d(relay::var("x", {1, 40, 7, 7})));
  EXPECT_TRUE(matchesInterpreter(floatPool, 10));
  EXPECT_EQ(genericSchedule(floatPool).find("pragma_llvm_vectorize"), std::string::npos);
}

}  // namespace
}  // namespace tessera::driver::test
