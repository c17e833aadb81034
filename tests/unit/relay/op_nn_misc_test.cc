// nn.* reference kernels and type relations: activations, pooling, padding, flattening, registry
// rows. Shares its helpers with op_nn_test.cc (op_nn_test_util.h); labels follow
// docs/spec/ops/nn.md.
#include "op_nn_test_util.h"

namespace tessera::relay {
namespace {

// --- activations ---------------------------------------------------------------------------------

TEST(NnActivation, ReluAndLeakyReluOnFloatsAndInts) {
  EXPECT_EQ(run("nn.relu", {t({3}, {-1, 0, 2.5})}), (Values{0, 0, 2.5}));
  EXPECT_EQ(run("nn.relu", {t({2}, {-5, 7}, kI8)}), (Values{0, 7}));
  EXPECT_EQ(run("nn.relu", {t({1}, {200}, DataType::uint8())}), (Values{200}));
  EXPECT_EQ(run("nn.leaky_relu", {t({2}, {-4, 2})}), (Values{-1, 2}));
  EXPECT_EQ(run("nn.leaky_relu", {t({2}, {-5, 3}, kI32)}, makeAttrs(LeakyReluAttrs{.alpha = 0.5})),
            (Values{-2, 3}));  // -2.5 truncated toward zero
  EXPECT_EQ(typeOf("nn.relu", {tt({2, 3}, kI8)}), "Tensor[(2, 3), int8]");
}

TEST(NnActivation, SoftmaxAndLogSoftmax) {
  const double third = std::log(3.0);
  expectNear(run("nn.softmax", {t({2, 2}, {0, third, 1000, 1000})}), {0.25, 0.75, 0.5, 0.5});
  expectNear(run("nn.log_softmax", {t({2}, {0, third})}), {std::log(0.25), std::log(0.75)});
  // axis=0 normalises down the columns.
  expectNear(run("nn.softmax", {t({2, 1}, {0, third})}, makeAttrs(SoftmaxAttrs{.axis = 0})),
             {0.25, 0.75});
  EXPECT_EQ(typeOf("nn.softmax", {tt({2, 4})}), "Tensor[(2, 4), float32]");
}

TEST(NnActivationErrors, softmax_c1_AxisOutOfRange) {
  expectTypeError("nn.softmax", {tt({2, 4})}, makeAttrs(SoftmaxAttrs{.axis = 2}), "softmax_c1",
                  {"axis 2", "(2, 4)"});
}

TEST(NnActivationErrors, log_softmax_c1_AxisOutOfRange) {
  expectTypeError("nn.log_softmax", {tt({2, 4})}, makeAttrs(SoftmaxAttrs{.axis = -3}),
                  "log_softmax_c1", {"axis -3", "(2, 4)"});
}

// --- pooling -------------------------------------------------------------------------------------

TEST(NnPool, MaxPoolPadsWithLowestAndHonoursCeilMode) {
  NDArray d = t({1, 1, 4, 4}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16});
  auto p2 = makeAttrs(MaxPool2DAttrs{.poolSize = {2, 2}, .strides = {2, 2}});
  EXPECT_EQ(run("nn.max_pool2d", {d}, p2), (Values{6, 8, 14, 16}));
  // Padding counts as the lowest value, not 0: all-negative inputs stay negative.
  auto padded = makeAttrs(MaxPool2DAttrs{.poolSize = {2, 2}, .padding = {1}});
  EXPECT_EQ(run("nn.max_pool2d", {t({1, 1, 2, 2}, {-1, -2, -3, -4})}, padded),
            (Values{-1, -1, -2, -1, -1, -2, -3, -3, -4}));
  NDArray nine = t({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  EXPECT_EQ(run("nn.max_pool2d", {nine}, p2), (Values{5}));
  auto ceil = makeAttrs(MaxPool2DAttrs{.poolSize = {2, 2}, .strides = {2, 2}, .ceilMode = true});
  EXPECT_EQ(run("nn.max_pool2d", {nine}, ceil), (Values{5, 6, 8, 9}));
  EXPECT_EQ(run("nn.max_pool2d", {t({1, 1, 1, 2}, {-128, -7}, kI8)},
                makeAttrs(MaxPool2DAttrs{.poolSize = {1, 2}})),
            (Values{-7}));
  // NHWC: H and W are found by name.
  auto nhwc = makeAttrs(MaxPool2DAttrs{.poolSize = {2, 2}, .layout = "NHWC"});
  EXPECT_EQ(run("nn.max_pool2d", {t({1, 2, 2, 2}, {1, 8, 2, 7, 3, 6, 4, 5})}, nhwc),
            (Values{4, 8}));
  EXPECT_EQ(printedAttrs(nn::maxPool2d(var("x", {1, 1, 4, 4}), {.poolSize = {2}, .strides = {2}})),
            "pool_size=[2, 2], strides=[2, 2], padding=[0, 0, 0, 0]");
}

TEST(NnPool, AvgPoolCountIncludePadAndCeilOverhang) {
  NDArray d = t({1, 1, 2, 2}, {1, 2, 3, 4});
  auto real = makeAttrs(AvgPool2DAttrs{.poolSize = {2, 2}, .padding = {1}});
  EXPECT_EQ(run("nn.avg_pool2d", {d}, real), (Values{1, 1.5, 2, 2, 2.5, 3, 3, 3.5, 4}));
  auto withPad =
      makeAttrs(AvgPool2DAttrs{.poolSize = {2, 2}, .padding = {1}, .countIncludePad = true});
  EXPECT_EQ(run("nn.avg_pool2d", {d}, withPad),
            (Values{0.25, 0.75, 0.5, 1, 2.5, 1.5, 0.75, 1.75, 1}));
  // The ceil-mode overhang is never counted, even with count_include_pad.
  auto ceil = makeAttrs(AvgPool2DAttrs{
      .poolSize = {2, 2}, .strides = {2, 2}, .ceilMode = true, .countIncludePad = true});
  EXPECT_EQ(run("nn.avg_pool2d", {t({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9})}, ceil),
            (Values{3, 4.5, 7.5, 9}));
  // Integer averages truncate: 10 / 4 = 2.
  EXPECT_EQ(run("nn.avg_pool2d", {t({1, 1, 2, 2}, {1, 2, 3, 4}, kI32)},
                makeAttrs(AvgPool2DAttrs{.poolSize = {2, 2}})),
            (Values{2}));
  EXPECT_EQ(
      typeOf("nn.avg_pool2d", {tt({1, 3, 8, 8})},
             makeAttrs(AvgPool2DAttrs{.poolSize = {3, 3}, .strides = {2, 2}, .ceilMode = true})),
      "Tensor[(1, 3, 4, 4), float32]");
}

TEST(NnPool, GlobalAndAdaptivePools) {
  NDArray d = t({1, 2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  EXPECT_EQ(run("nn.global_avg_pool2d", {d}), (Values{2.5, 6.5}));
  EXPECT_EQ(run("nn.global_max_pool2d", {d}), (Values{4, 8}));
  EXPECT_EQ(typeOf("nn.global_avg_pool2d", {tt({1, 2, 5, 7})}), "Tensor[(1, 2, 1, 1), float32]");
  NDArray nine = t({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  // Windows rows/cols [0, 2) and [1, 3).
  EXPECT_EQ(
      run("nn.adaptive_avg_pool2d", {nine}, makeAttrs(AdaptivePool2DAttrs{.outputSize = {2, 2}})),
      (Values{3, 4, 6, 7}));
  EXPECT_EQ(
      run("nn.adaptive_avg_pool2d", {nine}, makeAttrs(AdaptivePool2DAttrs{.outputSize = {1}})),
      (Values{5}));
  EXPECT_EQ(typeOf("nn.adaptive_avg_pool2d", {tt({1, 1, 3, 3})}), "Tensor[(1, 1, 3, 3), float32]");
}

TEST(NnPoolErrors, pool2d_c1_LayoutWithoutUnsplitHW) {
  expectTypeError("nn.max_pool2d", {tt({1, 1, 4})},
                  makeAttrs(MaxPool2DAttrs{.poolSize = {2, 2}, .layout = "NCW"}), "pool2d_c1",
                  {"NCW"});
  expectTypeError("nn.global_avg_pool2d", {tt({1, 2, 4})}, nullptr, "pool2d_c1",
                  {"(1, 2, 4)", "NCHW"});
}

TEST(NnPoolErrors, pool2d_c2_BadWindowAttributes) {
  expectTypeError("nn.avg_pool2d", {tt({1, 1, 4, 4})},
                  makeAttrs(AvgPool2DAttrs{.poolSize = {2, 2}, .padding = {1, 1, 1}}), "pool2d_c2",
                  {"[1, 1, 1]"});
  expectTypeError("nn.adaptive_avg_pool2d", {tt({1, 1, 4, 4})},
                  makeAttrs(AdaptivePool2DAttrs{.outputSize = {1, 2, 3}}), "pool2d_c2",
                  {"[1, 2, 3]", "(1, 1, 4, 4)"});
}

TEST(NnPoolErrors, pool2d_c3_WindowLargerThanPaddedInput) {
  expectTypeError("nn.max_pool2d", {tt({1, 1, 3, 3})},
                  makeAttrs(MaxPool2DAttrs{.poolSize = {5, 5}}), "pool2d_c3", {"(1, 1, 3, 3)"});
}

// --- nn.pad and nn.batch_flatten -----------------------------------------------------------------

TEST(NnPad, ConstantEdgeAndReflect) {
  auto widths = [](std::vector<std::vector<int64_t>> w, std::string mode = "constant") {
    return makeAttrs(PadAttrs{.padWidth = std::move(w), .padMode = std::move(mode)});
  };
  // An int32 pad value on float data is cast at run time (TVM's `nn.pad(%x, 0)`).
  EXPECT_EQ(
      run("nn.pad", {t({1, 2}, {1, 2}), NDArray::scalarInt(7, kI32)}, widths({{0, 0}, {1, 2}})),
      (Values{7, 1, 2, 7, 7}));
  NDArray v = t({3}, {1, 2, 3});
  NDArray zero = NDArray::scalar(0, kF32);
  EXPECT_EQ(run("nn.pad", {v, zero}, widths({{2, 1}}, "edge")), (Values{1, 1, 1, 2, 3, 3}));
  EXPECT_EQ(run("nn.pad", {v, zero}, widths({{2, 2}}, "reflect")), (Values{3, 2, 1, 2, 3, 2, 1}));
  EXPECT_EQ(typeOf("nn.pad", {tt({1, 2}), scalarType(kI32)}, widths({{0, 0}, {1, 2}})),
            "Tensor[(1, 5), float32]");
}

TEST(NnPadErrors, pad_c1_OnePairPerAxis) {
  expectTypeError("nn.pad", {tt({1, 2}), scalarType(kF32)},
                  makeAttrs(PadAttrs{.padWidth = {{1, 1}}}), "pad_c1", {"[[1, 1]]", "(1, 2)"});
}

TEST(NnPadErrors, pad_c2_NegativeWidth) {
  expectTypeError("nn.pad", {tt({2}), scalarType(kF32)}, makeAttrs(PadAttrs{.padWidth = {{-1, 0}}}),
                  "pad_c2", {"[[-1, 0]]", "(2)"});
}

TEST(NnPadErrors, pad_c3_PadValueNotScalar) {
  expectTypeError("nn.pad", {tt({2}), tt({1})}, makeAttrs(PadAttrs{.padWidth = {{1, 0}}}), "pad_c3",
                  {"Tensor[(1), float32]"});
}

TEST(NnPadErrors, pad_c4_ModeAndReflectWidth) {
  expectTypeError("nn.pad", {tt({2}), scalarType(kF32)},
                  makeAttrs(PadAttrs{.padWidth = {{1, 0}}, .padMode = "wrap"}), "pad_c4", {"wrap"});
  expectTypeError("nn.pad", {tt({2}), scalarType(kF32)},
                  makeAttrs(PadAttrs{.padWidth = {{2, 0}}, .padMode = "reflect"}), "pad_c4",
                  {"(2)"});
}

TEST(NnBatchFlatten, KeepsValuesAndFlattensTypes) {
  EXPECT_EQ(run("nn.batch_flatten", {t({2, 1, 2}, {1, 2, 3, 4})}), (Values{1, 2, 3, 4}));
  EXPECT_EQ(typeOf("nn.batch_flatten", {tt({2, 3, 4})}), "Tensor[(2, 12), float32]");
  EXPECT_EQ(typeOf("nn.batch_flatten", {tensorType(Shape{Dim::any(), 3, 4}, kF32)}),
            "Tensor[(?, 12), float32]");
  EXPECT_EQ(typeOf("nn.batch_flatten", {tensorType(Shape{2, Dim::any(), 4}, kF32)}),
            "Tensor[(2, ?), float32]");
  EXPECT_TRUE(OpRegistry::global().find("nn.batch_flatten")->reshapeOnly);
}

TEST(NnBatchFlattenErrors, batch_flatten_c1_Scalar) {
  expectTypeError("nn.batch_flatten", {scalarType(kF32)}, nullptr, "batch_flatten_c1", {"()"});
}

// --- registry rows -------------------------------------------------------------------------------

TEST(NnRegistry, PatternsAndAttrsTypeKeysFollowTvm) {
  struct Row {
    const char* op;
    OpPattern pattern;
    const char* typeKey;
  };
  const Row rows[] = {
      {"nn.conv2d", OpPattern::kOutEWiseFusable, "relay.attrs.Conv2DAttrs"},
      {"nn.dense", OpPattern::kOutEWiseFusable, "relay.attrs.DenseAttrs"},
      {"nn.batch_matmul", OpPattern::kOutEWiseFusable, "relay.attrs.BatchMatmulAttrs"},
      {"nn.batch_norm", OpPattern::kOutEWiseFusable, "relay.attrs.BatchNormAttrs"},
      {"nn.layer_norm", OpPattern::kOpaque, "relay.attrs.LayerNormAttrs"},
      {"nn.bias_add", OpPattern::kBroadcast, "relay.attrs.BiasAddAttrs"},
      {"nn.dropout", OpPattern::kOpaque, "relay.attrs.DropoutAttrs"},
      {"nn.relu", OpPattern::kElemWise, ""},
      {"nn.leaky_relu", OpPattern::kElemWise, "relay.attrs.LeakyReluAttrs"},
      {"nn.softmax", OpPattern::kOutEWiseFusable, "relay.attrs.SoftmaxAttrs"},
      {"nn.log_softmax", OpPattern::kOutEWiseFusable, "relay.attrs.SoftmaxAttrs"},
      {"nn.max_pool2d", OpPattern::kOutEWiseFusable, "relay.attrs.MaxPool2DAttrs"},
      {"nn.avg_pool2d", OpPattern::kOutEWiseFusable, "relay.attrs.AvgPool2DAttrs"},
      {"nn.global_avg_pool2d", OpPattern::kOutEWiseFusable, "relay.attrs.GlobalPool2DAttrs"},
      {"nn.global_max_pool2d", OpPattern::kOutEWiseFusable, "relay.attrs.GlobalPool2DAttrs"},
      {"nn.adaptive_avg_pool2d", OpPattern::kOutEWiseFusable, "relay.attrs.AdaptivePool2DAttrs"},
      {"nn.pad", OpPattern::kInjective, "relay.attrs.PadAttrs"},
      {"nn.batch_flatten", OpPattern::kInjective, ""},
  };
  for (const Row& row : rows) {
    const OpDef* def = OpRegistry::global().find(row.op);
    ASSERT_NE(def, nullptr) << row.op;
    EXPECT_EQ(def->pattern, row.pattern) << row.op;
    EXPECT_EQ(def->attrs.typeKey, row.typeKey) << row.op;
  }
}

TEST(NnRegistry, RequiredAttributesMustBeGivenInText) {
  OpRegistry::global();  // registers the attrs types for parsing
  std::string error;
  EXPECT_EQ(makeAttrs("relay.attrs.MaxPool2DAttrs", {}, error), nullptr);
  EXPECT_NE(error.find("pool_size"), std::string::npos) << error;
  error.clear();
  EXPECT_EQ(makeAttrs("relay.attrs.PadAttrs", {}, error), nullptr);
  EXPECT_NE(error.find("pad_width"), std::string::npos) << error;
  error.clear();
  EXPECT_NE(makeAttrs("relay.attrs.DenseAttrs", {}, error), nullptr) << error;
}

}  // namespace
}  // namespace tessera::relay
