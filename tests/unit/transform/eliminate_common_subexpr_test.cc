// EliminateCommonSubexpr: golden before/after texts and differential checks (float32 exact: the
// same operations run, only fewer times).
#include <gtest/gtest.h>

#include "pass_test_util.h"
#include "relay/transform/passes.h"
#include "test_util.h"

namespace tessera::relay {
namespace {

using test::printBare;
using test::runPass;

TEST(EliminateCommonSubexpr, EqualCallsAreMerged) {
  IRModule before = parseModule(R"(def @main(%x: Tensor[(4), float32]) {
  %0 = add(%x, 1f);
  %1 = add(%x, 1f);
  multiply(%0, %1)
})");
  IRModule after = runPass(eliminateCommonSubexprPass(), before);
  EXPECT_EQ(printBare(after), R"(def @main(%x: Tensor[(4), float32]) -> Tensor[(4), float32] {
  %0 = add(%x, 1f);
  multiply(%0, %0)
}
)");
  EXPECT_TRUE(test::sameBehaviour(before, after, 3, 0, 0));
}

TEST(EliminateCommonSubexpr, DifferentAttrsAreKept) {
  IRModule before = parseModule(R"(def @main(%x: Tensor[(2, 3), float32]) {
  %0 = sum(%x, axis=[0]);
  %1 = sum(%x, axis=[1]);
  (%0, %1)
})");
  IRModule after = runPass(eliminateCommonSubexprPass(), before);
  EXPECT_EQ(printBare(after), printBare(before));
}

TEST(EliminateCommonSubexpr, ChainsMergeAndProjectionsToo) {
  IRModule before = parseModule(R"(def @main(%x: Tensor[(4), int32]) {
  %0 = negative(%x);
  %1 = negative(%x);
  %2 = multiply(%0, 3);
  %3 = multiply(%1, 3);
  %4 = (%2, %3);
  %5 = %4.0;
  %6 = %4.0;
  add(%5, %6)
})");
  IRModule after = runPass(eliminateCommonSubexprPass(), before);
  EXPECT_EQ(printBare(after), R"(def @main(%x: Tensor[(4), int32]) -> Tensor[(4), int32] {
  %0 = negative(%x);
  %1 = multiply(%0, 3);
  %2 = (%1, %1);
  %3 = %2.0;
  add(%3, %3)
}
)");
  EXPECT_TRUE(test::sameBehaviour(before, after, 3, 0, 0));
}

TEST(EliminateCommonSubexpr, SkipPredicateIsHonoured) {
  IRModule before = parseModule(R"(def @main(%x: Tensor[(4), float32]) {
  %0 = exp(%x);
  %1 = exp(%x);
  add(%0, %1)
})");
  auto skipExp = [](const Expr& e) { return e->as<CallNode>()->op->as<OpNode>()->name == "exp"; };
  IRModule after = runPass(eliminateCommonSubexprPass(skipExp), before);
  EXPECT_EQ(printBare(after), printBare(before));
}

}  // namespace
}  // namespace tessera::relay
