// SimplifyInference: golden before/after texts and differential checks (float32, rtol/atol 1e-5).
#include <gtest/gtest.h>

#include "pass_test_util.h"
#include "relay/transform/passes.h"
#include "test_util.h"

namespace tessera::relay {
namespace {

using test::printBare;
using test::runPass;

TEST(SimplifyInference, BatchNormExpandsAsTvm) {
  IRModule before = parseModule(
      R"(def @main(%x: Tensor[(1, 2, 3, 3), float32], %g: Tensor[(2), float32], %b: Tensor[(2), float32], %m: Tensor[(2), float32], %v: Tensor[(2), float32]) {
  %0 = nn.batch_norm(%x, %g, %b, %m, %v, epsilon=0.001f);
  %1 = %0.0;
  nn.relu(%1)
})");
  IRModule after = runPass(simplifyInferencePass(), before);
  EXPECT_EQ(
      printBare(after),
      R"(def @main(%x: Tensor[(1, 2, 3, 3), float32], %g: Tensor[(2), float32], %b: Tensor[(2), float32], %m: Tensor[(2), float32], %v: Tensor[(2), float32]) -> Tensor[(1, 2, 3, 3), float32] {
  %0 = add(%v, 0.001f);
  %1 = sqrt(%0);
  %2 = divide(1f, %1);
  %3 = multiply(%2, %g);
  %4 = expand_dims(%3, axis=1, num_newaxis=2);
  %5 = negative(%m);
  %6 = multiply(%5, %3);
  %7 = add(%6, %b);
  %8 = multiply(%x, %4);
  %9 = expand_dims(%7, axis=1, num_newaxis=2);
  %10 = add(%8, %9);
  nn.relu(%10)
}
)");
  EXPECT_TRUE(test::sameBehaviour(before, after, 3, 1e-5, 1e-5));
}

TEST(SimplifyInference, BatchNormWithoutScaleAndCenterOnLastAxis) {
  IRModule before = parseModule(
      R"(def @main(%x: Tensor[(4, 3), float32], %g: Tensor[(3), float32], %b: Tensor[(3), float32], %m: Tensor[(3), float32], %v: Tensor[(3), float32]) {
  %0 = nn.batch_norm(%x, %g, %b, %m, %v, axis=1, center=False, scale=False);
  %0.0
})");
  IRModule after = runPass(simplifyInferencePass(), before);
  EXPECT_EQ(
      printBare(after),
      R"(def @main(%x: Tensor[(4, 3), float32], %g: Tensor[(3), float32], %b: Tensor[(3), float32], %m: Tensor[(3), float32], %v: Tensor[(3), float32]) -> Tensor[(4, 3), float32] {
  %0 = add(%v, 1e-05f);
  %1 = sqrt(%0);
  %2 = divide(1f, %1);
  %3 = negative(%m);
  %4 = multiply(%x, %2);
  %5 = multiply(%3, %2);
  add(%4, %5)
}
)");
  EXPECT_TRUE(test::sameBehaviour(before, after, 3, 1e-5, 1e-5));
}

TEST(SimplifyInference, DropoutIsRemoved) {
  IRModule before = parseModule(R"(def @main(%x: Tensor[(2, 4), float32]) {
  %0 = nn.dropout(%x, rate=0.3f);
  %1 = %0.0;
  nn.relu(%1)
})");
  IRModule after = runPass(simplifyInferencePass(), before);
  EXPECT_EQ(printBare(after), R"(def @main(%x: Tensor[(2, 4), float32]) -> Tensor[(2, 4), float32] {
  nn.relu(%x)
}
)");
  EXPECT_TRUE(test::sameBehaviour(before, after, 3, 0, 0));
}

TEST(SimplifyInference, LayerNormExpands) {
  IRModule before = parseModule(
      R"(def @main(%x: Tensor[(2, 5), float32], %g: Tensor[(5), float32], %b: Tensor[(5), float32]) {
  nn.layer_norm(%x, %g, %b)
})");
  IRModule after = runPass(simplifyInferencePass(), before);
  EXPECT_EQ(
      printBare(after),
      R"(def @main(%x: Tensor[(2, 5), float32], %g: Tensor[(5), float32], %b: Tensor[(5), float32]) -> Tensor[(2, 5), float32] {
  %0 = mean(%x, axis=[1], keepdims=True);
  %1 = subtract(%x, %0);
  %2 = multiply(%1, %1);
  %3 = mean(%2, axis=[1], keepdims=True);
  %4 = add(%3, 1e-05f);
  %5 = sqrt(%4);
  %6 = divide(%1, %5);
  %7 = multiply(%6, %g);
  add(%7, %b)
}
)");
  EXPECT_TRUE(test::sameBehaviour(before, after, 3, 1e-4, 1e-5));
}

TEST(SimplifyInference, OtherBatchNormOutputsAreKept) {
  IRModule before = parseModule(
      R"(def @main(%x: Tensor[(1, 2), float32], %g: Tensor[(2), float32], %b: Tensor[(2), float32], %m: Tensor[(2), float32], %v: Tensor[(2), float32]) {
  %0 = nn.batch_norm(%x, %g, %b, %m, %v);
  %0.1
})");
  IRModule after = runPass(simplifyInferencePass(), before);
  EXPECT_EQ(printBare(after), printBare(before));
}

// Relay text for `count` normalisations in a chain, each reading the previous one's result: every
// one after the first has a rewritten data argument, so the pass rebuilds it before expanding.
std::string layerNormChain(int count) {
  std::string text =
      "def @main(%x: Tensor[(3, 8), float32], %g: Tensor[(8), float32], %b: Tensor[(8), "
      "float32]) {\n  %0 = nn.layer_norm(%x, %g, %b);\n";
  for (int i = 1; i < count; ++i) {
    text += "  %" + std::to_string(i) + " = nn.layer_norm(%" + std::to_string(i - 1) +
            ", %g, %b, epsilon=0.001f);\n";
  }
  return text + "  %" + std::to_string(count - 1) + "\n}";
}

// The variance goes through abs so the random inputs give real square roots, not NaNs.
std::string batchNormChain(int count) {
  std::string text =
      "def @main(%x: Tensor[(2, 4, 3, 3), float32], %g: Tensor[(4), float32], %b: Tensor[(4), "
      "float32], %m: Tensor[(4), float32], %v: Tensor[(4), float32]) {\n  %0 = abs(%v);\n";
  std::string prev = "%x";
  for (int i = 0; i < count; ++i) {
    const std::string bn = "%" + std::to_string(2 * i + 1);
    const std::string out = "%" + std::to_string(2 * i + 2);
    text += "  " + bn + " = nn.batch_norm(" + prev + ", %g, %b, %m, %0);\n";
    text += "  " + out + " = " + bn + ".0;\n";
    prev = out;
  }
  return text + "  " + prev + "\n}";
}

// Crashed once: the pass read the rebuilt layer_norm call through a pointer into a destroyed
// temporary (every norm after the first in a chain is rebuilt).
TEST(SimplifyInference, LayerNormChainsExpandEveryNorm) {
  for (int count : {2, 3, 8}) {
    SCOPED_TRACE(count);
    IRModule before = parseModule(layerNormChain(count));
    IRModule after = runPass(simplifyInferencePass(), before);
    const std::string text = printBare(after);
    EXPECT_EQ(text.find("layer_norm"), std::string::npos) << text;
    EXPECT_TRUE(test::sameBehaviour(before, after, 3, 1e-4, 1e-5));
  }
}

TEST(SimplifyInference, BatchNormChainsExpandEveryNorm) {
  for (int count : {2, 3, 8}) {
    SCOPED_TRACE(count);
    IRModule before = parseModule(batchNormChain(count));
    IRModule after = runPass(simplifyInferencePass(), before);
    const std::string text = printBare(after);
    EXPECT_EQ(text.find("batch_norm"), std::string::npos) << text;
    EXPECT_TRUE(test::sameBehaviour(before, after, 3, 1e-4, 1e-5));
  }
}

}  // namespace
}  // namespace tessera::relay
