// CanonicalizeOps: golden before/after texts and differential checks (float32, 1e-5).
#include <gtest/gtest.h>

#include "pass_test_util.h"
#include "relay/transform/passes.h"
#include "test_util.h"

namespace tessera::relay {
namespace {

using test::printBare;
using test::runPass;

TEST(CanonicalizeOps, BiasAddOnChannelsBecomesExpandDimsAdd) {
  IRModule before =
      parseModule(R"(def @main(%x: Tensor[(1, 4, 3, 3), float32], %b: Tensor[(4), float32]) {
  nn.bias_add(%x, %b)
})");
  IRModule after = runPass(canonicalizeOpsPass(), before);
  EXPECT_EQ(
      printBare(after),
      R"(def @main(%x: Tensor[(1, 4, 3, 3), float32], %b: Tensor[(4), float32]) -> Tensor[(1, 4, 3, 3), float32] {
  %0 = expand_dims(%b, axis=1, num_newaxis=2);
  add(%x, %0)
}
)");
  EXPECT_TRUE(test::sameBehaviour(before, after, 3, 1e-5, 1e-5));
}

TEST(CanonicalizeOps, BiasAddOnLastAxisNeedsNoExpandDims) {
  IRModule before =
      parseModule(R"(def @main(%x: Tensor[(2, 5), float32], %b: Tensor[(5), float32]) {
  nn.bias_add(%x, %b, axis=-1)
})");
  IRModule after = runPass(canonicalizeOpsPass(), before);
  EXPECT_EQ(
      printBare(after),
      R"(def @main(%x: Tensor[(2, 5), float32], %b: Tensor[(5), float32]) -> Tensor[(2, 5), float32] {
  add(%x, %b)
}
)");
  EXPECT_TRUE(test::sameBehaviour(before, after, 3, 1e-5, 1e-5));
}

TEST(CanonicalizeOps, IntegerBiasAddIsExact) {
  IRModule before = parseModule(R"(def @main(%x: Tensor[(2, 3, 2), int32], %b: Tensor[(3), int32]) {
  nn.bias_add(%x, %b)
})");
  IRModule after = runPass(canonicalizeOpsPass(), before);
  EXPECT_EQ(
      printBare(after),
      R"(def @main(%x: Tensor[(2, 3, 2), int32], %b: Tensor[(3), int32]) -> Tensor[(2, 3, 2), int32] {
  %0 = expand_dims(%b, axis=1);
  add(%x, %0)
}
)");
  EXPECT_TRUE(test::sameBehaviour(before, after, 3, 0, 0));
}

}  // namespace
}  // namespace tessera::relay
