// CanonicalizeCast: golden before/after texts and differential checks (exact: the same casts run).
#include <gtest/gtest.h>

#include "pass_test_util.h"
#include "relay/transform/passes.h"
#include "test_util.h"

namespace tessera::relay {
namespace {

using test::printBare;
using test::runPass;

TEST(CanonicalizeCast, EachElementwiseConsumerGetsItsOwnUpCast) {
  IRModule before = parseModule(R"(def @main(%x: Tensor[(4), int8]) {
  %0 = cast(%x, dtype="float32");
  %1 = exp(%0);
  %2 = negative(%0);
  (%1, %2)
})");
  IRModule after = runPass(canonicalizeCastPass(), before);
  EXPECT_EQ(printBare(after),
            R"(def @main(%x: Tensor[(4), int8]) -> (Tensor[(4), float32], Tensor[(4), float32]) {
  %0 = cast(%x, dtype="float32");
  %1 = cast(%x, dtype="float32");
  %2 = exp(%0);
  %3 = negative(%1);
  (%2, %3)
}
)");
  EXPECT_TRUE(test::sameBehaviour(before, after, 3, 0, 0));
}

TEST(CanonicalizeCast, DownCastsAndOpaqueConsumersAreLeftShared) {
  IRModule before = parseModule(R"(def @main(%x: Tensor[(2, 3), float32]) {
  %0 = cast(%x, dtype="float16");
  %1 = abs(%0);
  %2 = negative(%0);
  %3 = cast(%x, dtype="float64");
  %4 = sum(%3, axis=[1]);
  %5 = sum(%3, axis=[0]);
  (%1, %2, %4, %5)
})");
  IRModule after = runPass(canonicalizeCastPass(), before);
  EXPECT_EQ(printBare(after), printBare(before));
}

}  // namespace
}  // namespace tessera::relay
