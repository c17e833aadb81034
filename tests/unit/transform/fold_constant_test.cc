// FoldConstant: golden before/after texts and differential checks (exact for integer graphs).
#include <gtest/gtest.h>

#include "pass_test_util.h"
#include "relay/builder.h"
#include "relay/transform/passes.h"
#include "test_util.h"

namespace tessera::relay {
namespace {

using test::printBare;
using test::runPass;

TEST(FoldConstant, ScalarChainCollapses) {
  IRModule before = parseModule(R"(def @main(%x: Tensor[(3), float32]) {
  %0 = add(2f, 3f);
  %1 = multiply(%0, 2f);
  multiply(%x, %1)
})");
  IRModule after = runPass(foldConstantPass(), before);
  EXPECT_EQ(printBare(after), R"(def @main(%x: Tensor[(3), float32]) -> Tensor[(3), float32] {
  multiply(%x, 10f)
}
)");
  EXPECT_TRUE(test::sameBehaviour(before, after, 3, 0, 0));
}

TEST(FoldConstant, IntegerGraphIsExact) {
  IRModule before = parseModule(R"(def @main(%x: Tensor[(2), int32]) {
  %0 = subtract(7, 3);
  %1 = negative(%0);
  add(%x, %1)
})");
  IRModule after = runPass(foldConstantPass(), before);
  EXPECT_EQ(printBare(after), R"(def @main(%x: Tensor[(2), int32]) -> Tensor[(2), int32] {
  add(%x, -4)
}
)");
  EXPECT_TRUE(test::sameBehaviour(before, after, 3, 0, 0));
}

TEST(FoldConstant, TupleProjectionAndConstantIf) {
  IRModule before = parseModule(R"(def @main(%x: Tensor[(2), float32], %y: Tensor[(2), float32]) {
  %0 = (%x, %y);
  %1 = %0.1;
  if (True) { add(%1, 1f) } else { %x }
})");
  IRModule after = runPass(foldConstantPass(), before);
  EXPECT_EQ(
      printBare(after),
      R"(def @main(%x: Tensor[(2), float32], %y: Tensor[(2), float32]) -> Tensor[(2), float32] {
  add(%y, 1f)
}
)");
  EXPECT_TRUE(test::sameBehaviour(before, after, 3, 0, 0));
}

TEST(FoldConstant, LetOfConstantIsSubstituted) {
  IRModule before = parseModule(R"(def @main(%x: Tensor[(2), float32]) {
  let %c = add(1f, 1f);
  multiply(%x, %c)
})");
  IRModule after = runPass(foldConstantPass(), before);
  EXPECT_EQ(printBare(after), R"(def @main(%x: Tensor[(2), float32]) -> Tensor[(2), float32] {
  multiply(%x, 2f)
}
)");
  EXPECT_TRUE(test::sameBehaviour(before, after, 3, 0, 0));
}

TEST(FoldConstant, StatefulOpsAreNotFolded) {
  // nn.dropout is stateful: TVM never evaluates it at compile time.
  Expr c = constant(test::tensorOf({2}, DataType::float32(), {1, 2}));
  Expr body = add(var("x", {2}), nn::dropout(c));
  IRModule before = IRModule::fromExpr(function(body));
  IRModule after = runPass(foldConstantPass(), before);
  EXPECT_NE(printBare(after).find("nn.dropout"), std::string::npos);
}

TEST(FoldConstant, PrimitiveFunctionBodiesAreLeftAlone) {
  IRModule before = parseModule(R"(def @main(%x: Tensor[(2), float32]) {
  %0 = fn (%p: Tensor[(2), float32], Primitive=1) {
    %1 = add(1f, 2f);
    add(%p, %1)
  };
  %0(%x)
})");
  IRModule after = runPass(foldConstantPass(), before);
  EXPECT_EQ(printBare(after), printBare(before));
}

}  // namespace
}  // namespace tessera::relay
