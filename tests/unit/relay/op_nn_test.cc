// The nn.* ops: reference kernels against hand-computed values, type relations (including the
// argument types they assign), TVM's builder normalisation and printing, and one negative test per
// constraint label of docs/spec/ops/nn.md (the label is in the test's name).
#include "op_nn_test_util.h"

namespace tessera::relay {
namespace {

// --- nn.conv2d -----------------------------------------------------------------------------------

TEST(NnConv2d, PlainKernelMatchesHandValues) {
  // Weight [[1, 0], [0, 1]]: out[y, x] = in[y, x] + in[y + 1, x + 1].
  NDArray d = t({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  NDArray w = t({1, 1, 2, 2}, {1, 0, 0, 1});
  EXPECT_EQ(run("nn.conv2d", {d, w}), (Values{6, 8, 12, 14}));
}

TEST(NnConv2d, StridesPaddingAndDilation) {
  NDArray d = t({1, 1, 4, 4}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16});
  NDArray ones = t({1, 1, 2, 2}, {1, 1, 1, 1});
  // Stride 2, padding 1: windows cover input rows/cols {-1,0}, {1,2}, {3,4}.
  EXPECT_EQ(run("nn.conv2d", {d, ones}, makeAttrs(Conv2DAttrs{.strides = {2, 2}, .padding = {1}})),
            (Values{1, 5, 4, 14, 34, 20, 13, 29, 16}));
  // Dilation 2: taps at offsets 0 and 2.
  EXPECT_EQ(run("nn.conv2d", {d, ones}, makeAttrs(Conv2DAttrs{.dilation = {2, 2}})),
            (Values{24, 28, 40, 44}));
  // 4-value padding (top, left, bottom, right) = (1, 0, 0, 0): one zero row on top only.
  NDArray small = t({1, 1, 2, 2}, {1, 2, 3, 4});
  EXPECT_EQ(run("nn.conv2d", {small, ones}, makeAttrs(Conv2DAttrs{.padding = {1, 0, 0, 0}})),
            (Values{3, 10}));
  EXPECT_EQ(typeOf("nn.conv2d", {tt({1, 1, 2, 2}), tt({1, 1, 2, 2})},
                   makeAttrs(Conv2DAttrs{.padding = {1, 0, 0, 0}})),
            "Tensor[(1, 1, 2, 1), float32]");
}

TEST(NnConv2d, GroupsAndDepthwise) {
  // groups=2: output channel k reads input channels of group k.
  NDArray d = t({1, 4, 1, 1}, {1, 2, 3, 4});
  NDArray w = t({2, 2, 1, 1}, {1, 1, 1, -1});
  EXPECT_EQ(run("nn.conv2d", {d, w}, makeAttrs(Conv2DAttrs{.groups = 2})), (Values{3, -1}));
  // Depthwise (groups == Cin == weight O): each channel scaled by its own weight.
  NDArray d2 = t({1, 2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  EXPECT_EQ(run("nn.conv2d", {d2, t({2, 1, 1, 1}, {2, -1})}, makeAttrs(Conv2DAttrs{.groups = 2})),
            (Values{2, 4, 6, 8, -5, -6, -7, -8}));
  // Depthwise with multiplier 2: weight (Cin, 2, 1, 1); output channel c * 2 + q uses w[c, q].
  auto mult = makeAttrs(Conv2DAttrs{.groups = 2, .channels = 4, .kernelSize = {{1, 1}}});
  EXPECT_EQ(run("nn.conv2d", {t({1, 2, 1, 1}, {3, 5}), t({2, 2, 1, 1}, {1, 2, 3, 4})}, mult),
            (Values{3, 6, 15, 20}));
  EXPECT_EQ(typeOf("nn.conv2d", {tt({1, 2, 1, 1}), tt({2, 2, 1, 1})}, mult),
            "Tensor[(1, 4, 1, 1), float32]");
}

// Re-blocks (N, C, H, W) with C = cb * 16 to NCHW1n16c: (N, C/16, H, W, 1, 16).
NDArray packData(const NDArray& a) {
  const auto& s = a.shape();
  NDArray out = NDArray::empty({s[0], s[1] / 16, s[2], s[3], 1, 16}, a.dtype());
  for (int64_t n = 0; n < s[0]; ++n)
    for (int64_t c = 0; c < s[1]; ++c)
      for (int64_t h = 0; h < s[2]; ++h)
        for (int64_t w = 0; w < s[3]; ++w)
          out.setFloat((((n * (s[1] / 16) + c / 16) * s[2] + h) * s[3] + w) * 16 + c % 16,
                       a.getFloat(((n * s[1] + c) * s[2] + h) * s[3] + w));
  return out;
}

TEST(NnConv2d, PackedLayoutsEqualThePlainConvOnReblockedData) {
  // Seed 000's shapes: NCHW1n16c data (1, 16, 4, 4) and OIHW16o16i kernel (48, 16, 3, 3).
  NDArray d = test::randomTensor({1, 16, 4, 4}, kF32, 1);
  NDArray w = test::randomTensor({48, 16, 3, 3}, kF32, 2);
  NDArray plain = evalOp("nn.conv2d", {d, w}, makeAttrs(Conv2DAttrs{.padding = {1}})).tensor();
  NDArray wp = NDArray::empty({3, 1, 3, 3, 16, 16}, kF32);
  for (int64_t o = 0; o < 48; ++o)
    for (int64_t i = 0; i < 16; ++i)
      for (int64_t k = 0; k < 9; ++k)
        wp.setFloat((((o / 16) * 1 + i / 16) * 9 + k) * 256 + (o % 16) * 16 + i % 16,
                    w.getFloat((o * 16 + i) * 9 + k));
  auto packed = makeAttrs(Conv2DAttrs{.padding = {1, 1, 1, 1},
                                      .channels = 48,
                                      .kernelSize = {{3, 3}},
                                      .dataLayout = "NCHW1n16c",
                                      .kernelLayout = "OIHW16o16i"});
  NDArray got = evalOp("nn.conv2d", {packData(d), wp}, packed).tensor();
  EXPECT_EQ(got.shape(), (std::vector<int64_t>{1, 3, 4, 4, 1, 16}));
  EXPECT_TRUE(allClose(got, packData(plain), 1e-5, 1e-5));
  // The relation assigns the packed weight type from channels and kernel_size.
  std::string out;
  auto types = assigned("nn.conv2d", {tt({1, 1, 4, 4, 1, 16}), incompleteType()}, packed, &out);
  EXPECT_EQ(types[1], "Tensor[(3, 1, 3, 3, 16, 16), float32]");
  EXPECT_EQ(out, "Tensor[(1, 3, 4, 4, 1, 16), float32]");
}

TEST(NnConv2d, Int8WithInt32OutDtypeIsExactAndNarrowerOutDtypesWrap) {
  NDArray d = t({1, 4, 1, 1}, {127, 127, 127, -128}, kI8);
  NDArray w = t({1, 4, 1, 1}, {127, 127, 127, 127}, kI8);
  // 3 * 16129 - 16256 = 32131; with all +127 inputs 64516, which int16 wraps to -1020.
  EXPECT_EQ(run("nn.conv2d", {d, w}, makeAttrs(Conv2DAttrs{.outDtype = kI32})), (Values{32131}));
  NDArray d2 = t({1, 4, 1, 1}, {127, 127, 127, 127}, kI8);
  EXPECT_EQ(run("nn.conv2d", {d2, w}, makeAttrs(Conv2DAttrs{.outDtype = kI32})), (Values{64516}));
  auto i16 = makeAttrs(Conv2DAttrs{.outDtype = DataType::int16()});
  EXPECT_EQ(run("nn.conv2d", {d2, w}, i16), (Values{-1020}));
  EXPECT_EQ(typeOf("nn.conv2d", {tt({1, 4, 1, 1}, kI8), tt({1, 4, 1, 1}, kI8)},
                   makeAttrs(Conv2DAttrs{.outDtype = kI32})),
            "Tensor[(1, 1, 1, 1), int32]");
}

TEST(NnConv2d, AssignsTheWeightTypeFromChannelsAndKernelSize) {
  auto attrs = makeAttrs(Conv2DAttrs{.padding = {1}, .channels = 16, .kernelSize = {{3, 3}}});
  std::string out;
  auto types = assigned("nn.conv2d", {tt({1, 3, 8, 8}), incompleteType()}, attrs, &out);
  EXPECT_EQ(types[1], "Tensor[(16, 3, 3, 3), float32]");
  EXPECT_EQ(out, "Tensor[(1, 16, 8, 8), float32]");
  EXPECT_EQ(typeOf("nn.conv2d", {tt({1, 3, 8, 8}), incompleteType()}, attrs),
            "Tensor[(1, 16, 8, 8), float32]");
  // Without channels/kernel_size the relation waits for the weight.
  assigned("nn.conv2d", {tt({1, 3, 8, 8}), incompleteType()}, nullptr, &out);
  EXPECT_EQ(out, "undecided");
  // End to end through InferType with the builder: the untyped weight gets an annotation.
  Var w = var("w");
  Expr conv = nn::conv2d(var("x", {1, 3, 8, 8}), w,
                         {.strides = {2}, .padding = {1}, .channels = 16, .kernelSize = {{3}}});
  IRModule m = inferTypes(IRModule::fromExpr(conv));
  ASSERT_EQ(m.main()->params.size(), 2u);
  EXPECT_EQ(typeToString(m.main()->params[1]->typeAnnotation), "Tensor[(16, 3, 3, 3), float32]");
  EXPECT_EQ(typeToString(m.main()->retType), "Tensor[(1, 16, 4, 4), float32]");
}

TEST(NnConv2d, RelationHandlesOtherLayoutsAndUnknownDims) {
  auto nhwc = makeAttrs(Conv2DAttrs{.padding = {1}, .dataLayout = "NHWC", .kernelLayout = "HWIO"});
  EXPECT_EQ(typeOf("nn.conv2d", {tt({1, 8, 8, 3}), tt({3, 3, 3, 16})}, nhwc),
            "Tensor[(1, 8, 8, 16), float32]");
  EXPECT_EQ(typeOf("nn.conv2d", {tensorType(Shape{Dim::any(), 3, 8, 8}, kF32), tt({16, 3, 3, 3})}),
            "Tensor[(?, 16, 6, 6), float32]");
  auto outLayout = makeAttrs(Conv2DAttrs{.outLayout = "NHWC"});
  EXPECT_EQ(typeOf("nn.conv2d", {tt({1, 3, 5, 4}), tt({2, 3, 3, 3})}, outLayout),
            "Tensor[(1, 3, 2, 2), float32]");
  // NHWC data with HWIO weights computes the same function as NCHW/OIHW.
  NDArray d = t({1, 2, 2, 1}, {1, 2, 3, 4});        // NHWC, one channel
  NDArray w = t({2, 2, 1, 1}, {1, 10, 100, 1000});  // HWIO
  auto hw = makeAttrs(Conv2DAttrs{.dataLayout = "NHWC", .kernelLayout = "HWIO"});
  EXPECT_EQ(run("nn.conv2d", {d, w}, hw), (Values{4321}));
}

TEST(NnConv2d, BuilderNormalisesPaddingLikeTvmPython) {
  Var x = var("x", {1, 3, 8, 8});
  Var w = var("w");
  EXPECT_EQ(printedAttrs(nn::conv2d(x, w)), "padding=[0, 0, 0, 0]");
  EXPECT_EQ(
      printedAttrs(nn::conv2d(x, w, {.padding = {1, 1}, .channels = 16, .kernelSize = {{3, 3}}})),
      "padding=[1, 1, 1, 1], channels=16, kernel_size=[3, 3]");
  EXPECT_EQ(printedAttrs(nn::conv2d(x, w, {.strides = {2}, .padding = {1, 2}})),
            "strides=[2, 2], padding=[1, 2, 1, 2]");
  EXPECT_EQ(printedAttrs(nn::conv2d(x, w, {.padding = {0, 1, 2, 3}, .outDtype = kI32})),
            "padding=[0, 1, 2, 3], out_dtype=\"int32\"");
  // Attrs built directly keep TVM's 2-value default, which is not printed.
  EXPECT_EQ(makeAttrs(Conv2DAttrs{})->nonDefaultString(), "");
}

TEST(NnConv2dErrors, conv2d_c1_BadLayout) {
  expectTypeError("nn.conv2d", {tt({1, 3, 8, 8}), tt({4, 3, 3, 3})},
                  makeAttrs(Conv2DAttrs{.dataLayout = "NCHX"}), "conv2d_c1", {"NCHX", "NCHW"});
  expectTypeError("nn.conv2d", {tt({1, 3, 8, 8}), tt({4, 3, 3, 3})},
                  makeAttrs(Conv2DAttrs{.kernelLayout = "OIHW16"}), "conv2d_c1", {"OIHW16"});
}

TEST(NnConv2dErrors, conv2d_c2_ShapeDoesNotFitLayout) {
  expectTypeError("nn.conv2d", {tt({1, 3, 8, 8}), tt({4, 3, 3})}, nullptr, "conv2d_c2",
                  {"(4, 3, 3)", "OIHW"});
  expectTypeError("nn.conv2d", {tt({1, 1, 4, 4, 1, 8}), tt({16, 8, 3, 3})},
                  makeAttrs(Conv2DAttrs{.dataLayout = "NCHW1n16c"}), "conv2d_c2",
                  {"(1, 1, 4, 4, 1, 8)", "NCHW1n16c"});
}

TEST(NnConv2dErrors, conv2d_c3_InputChannelsDisagree) {
  expectTypeError("nn.conv2d", {tt({1, 3, 8, 8}), tt({16, 4, 3, 3})}, nullptr, "conv2d_c3",
                  {"(1, 3, 8, 8)", "(16, 4, 3, 3)"});
  // Also when channels/kernel_size are set and the weight is known.
  expectTypeError("nn.conv2d", {tt({1, 3, 8, 8}), tt({16, 4, 3, 3})},
                  makeAttrs(Conv2DAttrs{.channels = 16, .kernelSize = {{3, 3}}}), "conv2d_c3",
                  {"(1, 3, 8, 8)", "(16, 4, 3, 3)"});
  expectTypeError("nn.conv2d", {tt({1, 3, 8, 8}), tt({16, 1, 3, 3})},
                  makeAttrs(Conv2DAttrs{.groups = 2}), "conv2d_c3", {"(1, 3, 8, 8)", "groups=2"});
}

TEST(NnConv2dErrors, conv2d_c4_BadAttributeValues) {
  const std::vector<Type> args = {tt({1, 3, 8, 8}), tt({4, 3, 3, 3})};
  expectTypeError("nn.conv2d", args, makeAttrs(Conv2DAttrs{.strides = {1, 1, 1}}), "conv2d_c4",
                  {"strides", "[1, 1, 1]"});
  expectTypeError("nn.conv2d", args, makeAttrs(Conv2DAttrs{.padding = {1, 1, 1}}), "conv2d_c4",
                  {"padding", "[1, 1, 1]"});
  expectTypeError("nn.conv2d", args, makeAttrs(Conv2DAttrs{.groups = 0}), "conv2d_c4", {"groups"});
}

TEST(NnConv2dErrors, conv2d_c5_AttributesDisagreeWithTheWeight) {
  expectTypeError("nn.conv2d", {tt({1, 3, 8, 8}), tt({16, 3, 3, 3})},
                  makeAttrs(Conv2DAttrs{.channels = 8}), "conv2d_c5",
                  {"channels=8", "(16, 3, 3, 3)", "(1, 3, 8, 8)"});
  expectTypeError("nn.conv2d", {tt({1, 3, 8, 8}), tt({16, 3, 3, 3})},
                  makeAttrs(Conv2DAttrs{.channels = 16, .kernelSize = {{5, 5}}}), "conv2d_c5",
                  {"kernel_size=[5, 5]", "(16, 3, 3, 3)"});
}

TEST(NnConv2dErrors, conv2d_c6_KernelLargerThanPaddedInput) {
  expectTypeError("nn.conv2d", {tt({1, 3, 3, 3}), tt({4, 3, 5, 5})}, nullptr, "conv2d_c6",
                  {"(1, 3, 3, 3)", "(4, 3, 5, 5)"});
}

// --- nn.dense and nn.batch_matmul ----------------------------------------------------------------

TEST(NnDense, KernelTypeAndUnitsAssignment) {
  NDArray x = t({2, 3}, {1, 2, 3, 4, 5, 6});
  NDArray w = t({2, 3}, {1, 0, -1, 1, 1, 1});
  EXPECT_EQ(run("nn.dense", {x, w}), (Values{-2, 6, -2, 15}));
  EXPECT_EQ(run("nn.dense", {t({2, 1, 3}, {1, 2, 3, 4, 5, 6}), w}), (Values{-2, 6, -2, 15}));
  EXPECT_EQ(typeOf("nn.dense", {tt({2, 1, 3}), tt({2, 3})}), "Tensor[(2, 1, 2), float32]");
  // int8 x int8 accumulated in int32: 3 * 127 * 127 = 48387 exceeds int16.
  auto i32 = makeAttrs(DenseAttrs{.outDtype = kI32});
  EXPECT_EQ(
      run("nn.dense", {t({1, 3}, {127, 127, 127}, kI8), t({1, 3}, {127, 127, 127}, kI8)}, i32),
      (Values{48387}));
  std::string out;
  auto types =
      assigned("nn.dense", {tt({1, 3}), incompleteType()}, makeAttrs(DenseAttrs{.units = 4}), &out);
  EXPECT_EQ(types[1], "Tensor[(4, 3), float32]");
  EXPECT_EQ(out, "Tensor[(1, 4), float32]");
  // units has no default, so it always prints.
  EXPECT_EQ(printedAttrs(nn::dense(var("x", {1, 3}), var("w"))), "units=None");
  EXPECT_EQ(printedAttrs(nn::dense(var("x", {1, 3}), var("w"), {.units = 4})), "units=4");
}

// VTA's packed form (a Tessera extension): x (1, 4) in blocks of 2, W (4, 4) blocked (2, 2, 2, 2).
TEST(NnDense, PackedFormTypeAndKernel) {
  NDArray x = t({1, 2, 1, 2}, {1, 2, 3, 4});
  NDArray w = t({2, 2, 2, 2}, {1, 0, 0, 1, 0, 0, 0, 0, 1, 1, 0, 0, 1, 1, 0, 2});
  EXPECT_EQ(run("nn.dense", {x, w}), (Values{1, 2, 10, 8}));  // x W^T, packed (1, 2, 1, 2)
  EXPECT_EQ(typeOf("nn.dense", {tt({3, 2, 1, 2}), tt({5, 2, 2, 2})}),
            "Tensor[(3, 5, 1, 2), float32]");
  std::string out;
  assigned("nn.dense", {tt({1, 2, 1, 2}), tt({2, 2, 2, 2})}, makeAttrs(DenseAttrs{.units = 4}),
           &out);
  EXPECT_EQ(out, "Tensor[(1, 2, 1, 2), float32]");
}

TEST(NnDenseErrors, dense_c4_PackedOperandsDisagree) {
  expectTypeError("nn.dense", {tt({1, 4}), tt({2, 2, 2, 2})}, nullptr, "dense_c4",
                  {"(1, 4)", "(2, 2, 2, 2)"});
  expectTypeError("nn.dense", {tt({1, 3, 1, 2}), tt({2, 2, 2, 2})}, nullptr, "dense_c4",
                  {"K blocks"});
  expectTypeError("nn.dense", {tt({1, 2, 1, 2}), tt({2, 2, 2, 2})},
                  makeAttrs(DenseAttrs{.units = 3}), "dense_c3", {"units=3"});
}

TEST(NnDenseErrors, dense_c1_WeightNot2D) {
  expectTypeError("nn.dense", {tt({1, 3}), tt({2, 3, 1})}, nullptr, "dense_c1", {"(2, 3, 1)"});
}

TEST(NnDenseErrors, dense_c2_InputFeaturesDisagree) {
  expectTypeError("nn.dense", {tt({1, 3}), tt({2, 4})}, nullptr, "dense_c2", {"(1, 3)", "(2, 4)"});
}

TEST(NnDenseErrors, dense_c3_UnitsDisagreeWithWeight) {
  expectTypeError("nn.dense", {tt({1, 3}), tt({2, 3})}, makeAttrs(DenseAttrs{.units = 3}),
                  "dense_c3", {"units=3", "(2, 3)"});
}

TEST(NnBatchMatmul, TransposesBroadcastAndPrinting) {
  NDArray a = t({1, 2, 2}, {1, 2, 3, 4});
  NDArray b = t({1, 2, 2}, {5, 6, 7, 8});
  auto nt = makeAttrs(BatchMatmulAttrs{.transposeB = true});
  EXPECT_EQ(run("nn.batch_matmul", {a, b}, nt), (Values{17, 23, 39, 53}));
  EXPECT_EQ(run("nn.batch_matmul", {a, b}), (Values{19, 22, 43, 50}));  // declared default: NN
  auto tn = makeAttrs(BatchMatmulAttrs{.transposeA = true});
  EXPECT_EQ(run("nn.batch_matmul", {a, b}, tn), (Values{26, 30, 38, 44}));
  // A batch extent of 1 broadcasts.
  EXPECT_EQ(run("nn.batch_matmul", {t({2, 1, 2}, {1, 2, 3, 4}), t({1, 1, 2}, {1, 1})}, nt),
            (Values{3, 7}));
  EXPECT_EQ(typeOf("nn.batch_matmul", {tt({2, 3, 4}), tt({1, 5, 4})}, nt),
            "Tensor[(2, 3, 5), float32]");
  EXPECT_EQ(printedAttrs(nn::batchMatmul(var("a", {1, 2, 2}), var("b", {1, 2, 2}))),
            "transpose_b=True");
}

TEST(NnBatchMatmulErrors, batch_matmul_c1_NotRank3) {
  expectTypeError("nn.batch_matmul", {tt({2, 2}), tt({1, 2, 2})}, nullptr, "batch_matmul_c1",
                  {"(2, 2)", "(1, 2, 2)"});
}

TEST(NnBatchMatmulErrors, batch_matmul_c2_BatchesDisagree) {
  expectTypeError("nn.batch_matmul", {tt({2, 2, 2}), tt({3, 2, 2})}, nullptr, "batch_matmul_c2",
                  {"(2, 2, 2)", "(3, 2, 2)"});
}

TEST(NnBatchMatmulErrors, batch_matmul_c3_ReductionDisagrees) {
  expectTypeError("nn.batch_matmul", {tt({1, 2, 3}), tt({1, 2, 2})},
                  makeAttrs(BatchMatmulAttrs{.transposeB = true}), "batch_matmul_c3",
                  {"(1, 2, 3)", "(1, 2, 2)"});
}

// --- normalisation, bias, dropout ----------------------------------------------------------------

TEST(NnBatchNorm, KernelTupleAndAssignedParameterTypes) {
  NDArray x = t({1, 2, 1, 2}, {1, 2, 3, 4});
  NDArray gamma = t({2}, {1, 2}), beta = t({2}, {0, 1}), mean = t({2}, {1, 3}),
          var = t({2}, {4, 1});
  Value out =
      evalOp("nn.batch_norm", {x, gamma, beta, mean, var}, makeAttrs(BatchNormAttrs{.epsilon = 0}));
  ASSERT_TRUE(out.isTuple());
  // Channel 0: (x - 1) / 2; channel 1: (x - 3) / 1 * 2 + 1.
  EXPECT_EQ(valuesOf(out.fields()[0].tensor()), (Values{0, 0.5, 1, 3}));
  EXPECT_EQ(valuesOf(out.fields()[1].tensor()), (Values{1, 3}));
  EXPECT_EQ(valuesOf(out.fields()[2].tensor()), (Values{4, 1}));
  auto plain = makeAttrs(BatchNormAttrs{.epsilon = 0, .center = false, .scale = false});
  EXPECT_EQ(
      valuesOf(evalOp("nn.batch_norm", {x, gamma, beta, mean, var}, plain).fields()[0].tensor()),
      (Values{0, 0.5, 0, 1}));
  // axis=-1 normalises along the last axis.
  auto last = makeAttrs(BatchNormAttrs{.axis = -1, .epsilon = 0});
  EXPECT_EQ(
      valuesOf(evalOp("nn.batch_norm", {x, gamma, beta, mean, var}, last).fields()[0].tensor()),
      (Values{0, -1, 1, 3}));
  std::string ty;
  auto types = assigned(
      "nn.batch_norm",
      {tt({1, 3, 4, 4}), incompleteType(), incompleteType(), incompleteType(), incompleteType()},
      nullptr, &ty);
  for (size_t i = 1; i <= 4; ++i) EXPECT_EQ(types[i], "Tensor[(3), float32]");
  EXPECT_EQ(ty, "(Tensor[(1, 3, 4, 4), float32], Tensor[(3), float32], Tensor[(3), float32])");
}

TEST(NnBatchNormErrors, batch_norm_c1_AxisOutOfRange) {
  expectTypeError("nn.batch_norm", {tt({1, 3}), tt({3}), tt({3}), tt({3}), tt({3})},
                  makeAttrs(BatchNormAttrs{.axis = 2}), "batch_norm_c1", {"axis 2", "(1, 3)"});
}

TEST(NnBatchNormErrors, batch_norm_c2_ParameterShape) {
  expectTypeError("nn.batch_norm", {tt({1, 3}), tt({4}), tt({3}), tt({3}), tt({3})}, nullptr,
                  "batch_norm_c2", {"gamma", "Tensor[(4), float32]", "(1, 3)"});
}

TEST(NnLayerNorm, NormalisesEachLine) {
  // Rows [1, 3] and [0, 4]: mean 2, variances 1 and 4, so both normalise to [-1, 1].
  auto noEps = makeAttrs(LayerNormAttrs{.epsilon = 0});
  EXPECT_EQ(run("nn.layer_norm", {t({2, 2}, {1, 3, 0, 4}), t({2}, {2, 1}), t({2}, {0, 10})}, noEps),
            (Values{-2, 11, -2, 11}));
  // axis=0 normalises columns: [1, 3] -> [-1, 1] and [2, 2] -> [0, 0] (epsilon keeps 0 / 0 away).
  auto cols = makeAttrs(LayerNormAttrs{.axis = 0, .center = false, .scale = false});
  expectNear(run("nn.layer_norm", {t({2, 2}, {1, 2, 3, 2}), t({2}, {1, 1}), t({2}, {0, 0})}, cols),
             {-1, 0, 1, 0}, 1e-4);
  std::string ty;
  auto types =
      assigned("nn.layer_norm", {tt({2, 5}), incompleteType(), incompleteType()}, nullptr, &ty);
  EXPECT_EQ(types[1], "Tensor[(5), float32]");
  EXPECT_EQ(ty, "Tensor[(2, 5), float32]");
}

TEST(NnLayerNormErrors, layer_norm_c1_AxisOutOfRange) {
  expectTypeError("nn.layer_norm", {tt({2, 5}), tt({5}), tt({5})},
                  makeAttrs(LayerNormAttrs{.axis = -3}), "layer_norm_c1", {"axis -3", "(2, 5)"});
}

TEST(NnLayerNormErrors, layer_norm_c2_ParameterShape) {
  expectTypeError("nn.layer_norm", {tt({2, 5}), tt({5}), tt({2})}, nullptr, "layer_norm_c2",
                  {"beta", "Tensor[(2), float32]", "(2, 5)"});
}

TEST(NnBiasAdd, AddsAlongTheAxisAndWraps) {
  NDArray x = t({1, 2, 2}, {1, 2, 3, 4});
  EXPECT_EQ(run("nn.bias_add", {x, t({2}, {10, 20})}), (Values{11, 12, 23, 24}));
  EXPECT_EQ(run("nn.bias_add", {x, t({2}, {10, 20})}, makeAttrs(BiasAddAttrs{.axis = -1})),
            (Values{11, 22, 13, 24}));
  EXPECT_EQ(run("nn.bias_add", {t({1, 1}, {127}, kI8), t({1}, {1}, kI8)}), (Values{-128}));
  std::string ty;
  auto types = assigned("nn.bias_add", {tt({1, 6, 2}), incompleteType()}, nullptr, &ty);
  EXPECT_EQ(types[1], "Tensor[(6), float32]");
}

TEST(NnBiasAddErrors, bias_add_c1_AxisOutOfRange) {
  expectTypeError("nn.bias_add", {tt({1, 2, 2}), tt({2})}, makeAttrs(BiasAddAttrs{.axis = 3}),
                  "bias_add_c1", {"axis 3", "(1, 2, 2)"});
}

TEST(NnBiasAddErrors, bias_add_c2_BiasShape) {
  expectTypeError("nn.bias_add", {tt({1, 2, 2}), tt({3})}, nullptr, "bias_add_c2",
                  {"bias", "Tensor[(3), float32]", "(1, 2, 2)"});
}

TEST(NnDropout, IdentityWithAllOnesMaskAndStateful) {
  NDArray x = t({3}, {1, -2, 3});
  Value out = evalOp("nn.dropout", {x});
  EXPECT_EQ(valuesOf(out.fields()[0].tensor()), (Values{1, -2, 3}));
  EXPECT_EQ(valuesOf(out.fields()[1].tensor()), (Values{1, 1, 1}));
  EXPECT_EQ(typeOf("nn.dropout", {tt({3})}), "(Tensor[(3), float32], Tensor[(3), float32])");
  EXPECT_TRUE(OpRegistry::global().find("nn.dropout")->stateful);
  // Like relay.nn.dropout, the builder projects field 0; dropoutRaw is the call itself.
  EXPECT_NE(nn::dropout(var("x", {3}))->as<TupleGetItemNode>(), nullptr);
  EXPECT_NE(nn::dropoutRaw(var("x", {3}))->as<CallNode>(), nullptr);
}

}  // namespace
}  // namespace tessera::relay
