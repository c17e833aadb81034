// DeadCodeElimination: golden before/after texts and differential checks (exact: integer graphs).
#include <gtest/gtest.h>

#include "pass_test_util.h"
#include "relay/transform/passes.h"
#include "test_util.h"

namespace tessera::relay {
namespace {

using test::printBare;
using test::runPass;

TEST(DeadCodeElimination, UnusedPureBindingIsRemoved) {
  IRModule before = parseModule(R"(def @main(%x: Tensor[(3), int32]) {
  let %a = add(%x, 1);
  let %b = multiply(%x, 2);
  %b
})");
  IRModule after = runPass(deadCodeEliminationPass(), before);
  EXPECT_EQ(printBare(after), R"(def @main(%x: Tensor[(3), int32]) -> Tensor[(3), int32] {
  let %b: Tensor[(3), int32] = multiply(%x, 2);
  %b
}
)");
  EXPECT_TRUE(test::sameBehaviour(before, after, 3, 0, 0));
}

TEST(DeadCodeElimination, ChainsOfDeadBindingsCollapse) {
  // %b is only used by the dead %c, so it becomes dead once %c is gone.
  IRModule before = parseModule(R"(def @main(%x: Tensor[(3), int32]) {
  let %b = add(%x, 1);
  let %c = multiply(%b, 2);
  %x
})");
  IRModule after = runPass(deadCodeEliminationPass(), before);
  EXPECT_EQ(printBare(after), R"(def @main(%x: Tensor[(3), int32]) -> Tensor[(3), int32] {
  %x
}
)");
  EXPECT_TRUE(test::sameBehaviour(before, after, 3, 0, 0));
}

TEST(DeadCodeElimination, ImpureBindingIsKept) {
  IRModule before = parseModule(R"(def @main(%x: Tensor[(3), float32]) {
  let %d = nn.dropout(%x);
  %x
})");
  IRModule after = runPass(deadCodeEliminationPass(), before);
  EXPECT_EQ(printBare(after), printBare(before));
}

}  // namespace
}  // namespace tessera::relay
