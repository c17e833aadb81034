// FoldScaleAxis: golden before/after texts, differential checks (float32, rtol 1e-4 / atol 1e-4:
// folding reorders float multiplications), and seed 003's conv + batch_norm + relu pipeline.
#include <gtest/gtest.h>

#include "pass_test_util.h"
#include "relay/transform/passes.h"
#include "test_util.h"

namespace tessera::relay {
namespace {

using test::printBare;
using test::runPass;

/// Binds every parameter except `keep` to seeded random values; variances (names ending in
/// "_var") are drawn from [0.1, 1) so the batch_norm is finite.
IRModule bindRandom(const IRModule& m, const std::string& keep) {
  std::map<std::string, NDArray> params;
  uint64_t seed = 1;
  for (const Var& p : m.main()->params) {
    if (p->nameHint == keep) continue;
    const auto* t = p->checkedType->as<TensorTypeNode>();
    const bool isVar = p->nameHint.ends_with("_var");
    params[p->nameHint] =
        test::randomTensor(*staticShape(t->shape), t->dtype, seed++, isVar ? 0.1 : -1.0, 1.0);
  }
  return bindParams(m, params);
}

const char* kConvScale =
    R"(def @main(%x: Tensor[(1, 2, 6, 6), float32], %w: Tensor[(4, 2, 3, 3), float32], %s: Tensor[(4, 1, 1), float32]) {
  %0 = nn.conv2d(%x, %w, padding=[1, 1], channels=4, kernel_size=[3, 3]);
  multiply(%0, %s)
})";

TEST(FoldScaleAxis, BackwardFoldsMultiplyIntoConvWeight) {
  IRModule before = bindRandom(parseModule(kConvScale), "x");
  IRModule after = runPass(backwardFoldScaleAxisPass(), before);
  EXPECT_EQ(printBare(after),
            R"(def @main(%x: Tensor[(1, 2, 6, 6), float32]) -> Tensor[(1, 4, 6, 6), float32] {
  %0 = squeeze(meta[relay.Constant][1], axis=[1, 2]);
  %1 = expand_dims(%0, axis=1, num_newaxis=3);
  %2 = multiply(meta[relay.Constant][0], %1);
  nn.conv2d(%x, %2, padding=[1, 1], channels=4, kernel_size=[3, 3])
}
)");
  EXPECT_TRUE(test::sameBehaviour(before, after, 3, 1e-4, 1e-4));
}

TEST(FoldScaleAxis, BackwardThroughBiasAddAndRelu) {
  IRModule before = bindRandom(
      parseModule(
          R"(def @main(%x: Tensor[(1, 2, 5, 5), float32], %w: Tensor[(3, 2, 3, 3), float32], %b: Tensor[(3), float32], %s: Tensor[(3, 1, 1), float32]) {
  %0 = nn.conv2d(%x, %w, channels=3, kernel_size=[3, 3]);
  %1 = nn.bias_add(%0, %b);
  multiply(%1, %s)
})"),
      "x");
  IRModule after = runPass(backwardFoldScaleAxisPass(), before);
  EXPECT_EQ(printBare(after),
            R"(def @main(%x: Tensor[(1, 2, 5, 5), float32]) -> Tensor[(1, 3, 3, 3), float32] {
  %0 = squeeze(meta[relay.Constant][1], axis=[1, 2]);
  %1 = expand_dims(%0, axis=1, num_newaxis=3);
  %2 = multiply(meta[relay.Constant][0], %1);
  %3 = nn.conv2d(%x, %2, channels=3, kernel_size=[3, 3]);
  %4 = multiply(meta[relay.Constant][2], %0);
  nn.bias_add(%3, %4)
}
)");
  EXPECT_TRUE(test::sameBehaviour(before, after, 3, 1e-4, 1e-4));
}

TEST(FoldScaleAxis, BackwardDense) {
  IRModule before = bindRandom(
      parseModule(
          R"(def @main(%x: Tensor[(2, 4), float32], %w: Tensor[(3, 4), float32], %s: Tensor[(3), float32]) {
  %0 = nn.dense(%x, %w, units=3);
  multiply(%0, %s)
})"),
      "x");
  IRModule after = runPass(foldScaleAxisPass(), before);
  EXPECT_EQ(printBare(after), R"(def @main(%x: Tensor[(2, 4), float32]) -> Tensor[(2, 3), float32] {
  nn.dense(%x, meta[relay.Constant][0], units=3)
}
)");
  EXPECT_TRUE(test::sameBehaviour(before, after, 3, 1e-4, 1e-4));
}

TEST(FoldScaleAxis, SharedConvOutputIsNotFolded) {
  // The conv has two consumers: scaling its weights would change the other one.
  IRModule before = parseModule(
      R"(def @main(%x: Tensor[(1, 2, 4, 4), float32], %w: Tensor[(2, 2, 1, 1), float32], %s: Tensor[(2, 1, 1), float32]) {
  %0 = nn.conv2d(%x, %w, channels=2, kernel_size=[1, 1]);
  %1 = multiply(%0, %s);
  add(%1, %0)
})");
  IRModule after = runPass(foldScaleAxisPass(), before);
  EXPECT_EQ(printBare(after), printBare(before));
}

TEST(FoldScaleAxis, ScaleOnAnotherAxisIsNotFolded) {
  IRModule before = parseModule(
      R"(def @main(%x: Tensor[(1, 2, 4, 4), float32], %w: Tensor[(2, 2, 1, 1), float32], %s: Tensor[(4), float32]) {
  %0 = nn.conv2d(%x, %w, channels=2, kernel_size=[1, 1]);
  multiply(%0, %s)
})");
  IRModule after = runPass(foldScaleAxisPass(), before);
  EXPECT_EQ(printBare(after), printBare(before));
}

/// A (C) vector of positive values as a (C, 1, 1) constant parameter binding.
IRModule bindPositiveScale(const IRModule& m, int channels) {
  std::vector<double> values;
  for (int c = 0; c < channels; ++c) values.push_back(0.5 + 0.25 * c);
  IRModule scaled =
      bindParams(m, {{"s", test::tensorOf({channels, 1, 1}, DataType::float32(), values)}});
  return bindRandom(scaled, "x");
}

TEST(FoldScaleAxis, ForwardFoldsPositiveScaleThroughReluIntoConv) {
  IRModule before = bindPositiveScale(
      parseModule(
          R"(def @main(%x: Tensor[(1, 2, 5, 5), float32], %s: Tensor[(2, 1, 1), float32], %w: Tensor[(3, 2, 3, 3), float32]) {
  %0 = multiply(%x, %s);
  %1 = nn.relu(%0);
  nn.conv2d(%1, %w, channels=3, kernel_size=[3, 3])
})"),
      2);
  IRModule after = runPass(forwardFoldScaleAxisPass(), before);
  EXPECT_EQ(printBare(after),
            R"(def @main(%x: Tensor[(1, 2, 5, 5), float32]) -> Tensor[(1, 3, 3, 3), float32] {
  %0 = squeeze(meta[relay.Constant][1], axis=[1, 2]);
  %1 = expand_dims(%0, axis=1, num_newaxis=2);
  %2 = nn.relu(%x);
  %3 = multiply(meta[relay.Constant][0], %1);
  nn.conv2d(%2, %3, channels=3, kernel_size=[3, 3])
}
)");
  EXPECT_TRUE(test::sameBehaviour(before, after, 3, 1e-4, 1e-4));
  IRModule folded = runPass(foldScaleAxisPass(), before);
  EXPECT_EQ(printBare(folded),
            R"(def @main(%x: Tensor[(1, 2, 5, 5), float32]) -> Tensor[(1, 3, 3, 3), float32] {
  %0 = nn.relu(%x);
  nn.conv2d(%0, meta[relay.Constant][0], channels=3, kernel_size=[3, 3])
}
)");
  EXPECT_TRUE(test::sameBehaviour(before, folded, 3, 1e-4, 1e-4));
}

TEST(FoldScaleAxis, ForwardThroughAddDividesTheOtherSide) {
  IRModule before = bindPositiveScale(
      parseModule(
          R"(def @main(%x: Tensor[(1, 2, 4, 4), float32], %s: Tensor[(2, 1, 1), float32], %b: Tensor[(2, 1, 1), float32], %w: Tensor[(3, 2, 1, 1), float32]) {
  %0 = multiply(%x, %s);
  %1 = add(%0, %b);
  nn.conv2d(%1, %w, channels=3, kernel_size=[1, 1])
})"),
      2);
  IRModule after = runPass(foldScaleAxisPass(), before);
  EXPECT_EQ(printBare(after),
            R"(def @main(%x: Tensor[(1, 2, 4, 4), float32]) -> Tensor[(1, 3, 4, 4), float32] {
  %0 = add(%x, meta[relay.Constant][0]);
  nn.conv2d(%0, meta[relay.Constant][1], channels=3, kernel_size=[1, 1])
}
)");
  EXPECT_TRUE(test::sameBehaviour(before, after, 3, 1e-4, 1e-4));
}

TEST(FoldScaleAxis, ForwardScaleWithAnotherConsumerIsKept) {
  // The scaled value also feeds exp, which has no rule: the multiply must stay.
  IRModule before = parseModule(
      R"(def @main(%x: Tensor[(1, 2, 4, 4), float32], %s: Tensor[(2, 1, 1), float32], %w: Tensor[(3, 2, 1, 1), float32]) {
  %0 = multiply(%x, %s);
  %1 = nn.conv2d(%0, %w, channels=3, kernel_size=[1, 1]);
  (%1, exp(%0))
})");
  IRModule after = runPass(forwardFoldScaleAxisPass(), before);
  EXPECT_EQ(printBare(after), printBare(before));
}

TEST(FoldScaleAxis, RunTimeScaleIsNotFolded) {
  // A squeeze-excitation block (EfficientNet): the gate multiplying the expand conv's output is
  // computed at run time. Folding it would scale the project conv's whole weight on every
  // inference; it also used to copy the gate's original subgraph, and with it every conv above it
  // (efficientnet_b0: 81 convs became 126).
  IRModule before = bindRandom(
      parseModule(
          R"(def @main(%x: Tensor[(1, 4, 6, 6), float32], %w1: Tensor[(8, 4, 1, 1), float32], %w2: Tensor[(8, 8, 1, 1), float32], %w3: Tensor[(4, 8, 1, 1), float32]) {
  %0 = nn.conv2d(%x, %w1, channels=8, kernel_size=[1, 1]);
  %1 = nn.global_avg_pool2d(%0);
  %2 = nn.conv2d(%1, %w2, channels=8, kernel_size=[1, 1]);
  %3 = sigmoid(%2);
  %4 = multiply(%0, %3);
  nn.conv2d(%4, %w3, channels=4, kernel_size=[1, 1])
})"),
      "x");
  for (const Pass& pass : {forwardFoldScaleAxisPass(), backwardFoldScaleAxisPass()}) {
    IRModule after = runPass(pass, before);
    EXPECT_EQ(printBare(after), printBare(runPass(inferTypePass(), before)));
  }
  IRModule folded = runPass(foldScaleAxisPass(), before);
  EXPECT_TRUE(test::sameBehaviour(before, folded, 3, 1e-4, 1e-4));
}

/// Seed 003's conv block (conv 3x3 stride 2 pad 1, batch_norm, relu), as the seed prints it.
std::string seedBlock(int size) {
  const std::string in = "(1, 3, " + std::to_string(size) + ", " + std::to_string(size) + ")";
  return "def @main(%data: Tensor[" + in +
         ", float32], %graph_conv_weight: Tensor[(32, 3, 3, 3), float32], %graph_bn_gamma: "
         "Tensor[(32), float32], %graph_bn_beta: Tensor[(32), float32], %graph_bn_moving_mean: "
         "Tensor[(32), float32], %graph_bn_moving_var: Tensor[(32), float32]) {\n"
         "  %0 = nn.conv2d(%data, %graph_conv_weight, strides=[2, 2], padding=[1, 1], "
         "channels=32, kernel_size=[3, 3]);\n"
         "  %1 = nn.batch_norm(%0, %graph_bn_gamma, %graph_bn_beta, %graph_bn_moving_mean, "
         "%graph_bn_moving_var);\n"
         "  %2 = %1.0;\n"
         "  nn.relu(%2)\n"
         "}\n";
}

/// seed 003's my_optimize: Sequential{SimplifyInference, FoldConstant, FoldScaleAxis,
/// CanonicalizeOps, FoldConstant} under opt level 3.
IRModule seedOptimize(const IRModule& m) {
  return runPass(sequential({simplifyInferencePass(), foldConstantPass(), foldScaleAxisPass(),
                             canonicalizeOpsPass(), foldConstantPass()}),
                 m);
}

TEST(FoldScaleAxis, Seed003ConvBatchNormReluFoldsScaleIntoWeights) {
  IRModule before = bindRandom(parseModule(seedBlock(224)), "data");
  IRModule after = seedOptimize(before);
  // Better than the seed's print: the multiply is gone, folded into the conv weights.
  EXPECT_EQ(
      printModule(after),
      R"(def @main(%data: Tensor[(1, 3, 224, 224), float32] /* ty=Tensor[(1, 3, 224, 224), float32] */) -> Tensor[(1, 32, 112, 112), float32] {
  %0 = nn.conv2d(%data, meta[relay.Constant][0] /* ty=Tensor[(32, 3, 3, 3), float32] */, strides=[2, 2], padding=[1, 1], channels=32, kernel_size=[3, 3]) /* ty=Tensor[(1, 32, 112, 112), float32] */;
  %1 = add(%0, meta[relay.Constant][1] /* ty=Tensor[(32, 1, 1), float32] */) /* ty=Tensor[(1, 32, 112, 112), float32] */;
  nn.relu(%1) /* ty=Tensor[(1, 32, 112, 112), float32] */
}
)");
}

TEST(FoldScaleAxis, Seed003PipelineKeepsBehaviour) {
  IRModule before = bindRandom(parseModule(seedBlock(16)), "data");
  IRModule after = seedOptimize(before);
  EXPECT_EQ(printBare(after),
            R"(def @main(%data: Tensor[(1, 3, 16, 16), float32]) -> Tensor[(1, 32, 8, 8), float32] {
  %0 = nn.conv2d(%data, meta[relay.Constant][0], strides=[2, 2], padding=[1, 1], channels=32, kernel_size=[3, 3]);
  %1 = add(%0, meta[relay.Constant][1]);
  nn.relu(%1)
}
)");
  EXPECT_TRUE(test::sameBehaviour(before, after, 3, 1e-4, 1e-4));
}

TEST(FoldScaleAxis, Seed003WithoutScaleFoldingMatchesSeedPrint) {
  // At opt level 2 FoldScaleAxis and CanonicalizeOps do not run: conv2d, multiply, add, relu.
  IRModule before = bindRandom(parseModule(seedBlock(16)), "data");
  PassContext ctx;
  ctx.optLevel = 2;
  IRModule after = (*sequential({simplifyInferencePass(), foldConstantPass(), foldScaleAxisPass(),
                                 canonicalizeOpsPass(), foldConstantPass()}))(before, ctx);
  EXPECT_EQ(printBare(after),
            R"(def @main(%data: Tensor[(1, 3, 16, 16), float32]) -> Tensor[(1, 32, 8, 8), float32] {
  %0 = nn.conv2d(%data, meta[relay.Constant][0], strides=[2, 2], padding=[1, 1], channels=32, kernel_size=[3, 3]);
  %1 = multiply(%0, meta[relay.Constant][1]);
  %2 = add(%1, meta[relay.Constant][2]);
  nn.relu(%2)
}
)");
  EXPECT_TRUE(test::sameBehaviour(before, after, 3, 1e-4, 1e-4));
}

}  // namespace
}  // namespace tessera::relay
