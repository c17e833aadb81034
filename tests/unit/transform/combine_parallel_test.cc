// CombineParallelConv2D and CombineParallelDense: golden before/after texts, differential checks
// (float32, rtol = atol = 1e-4: the combined conv sums in the same order, the slack is for the
// reference kernel) and the cases the pass must leave alone.
#include <gtest/gtest.h>

#include "pass_test_util.h"
#include "relay/transform/pass_table.h"
#include "relay/transform/passes.h"
#include "test_util.h"

namespace tessera::relay {
namespace {

using test::printBare;
using test::runPass;

TEST(CombineParallelConv2D, ThreeBranchesBecomeOneConvAndSlices) {
  IRModule before = parseModule(
      R"(def @main(%x: Tensor[(1, 3, 6, 6), float32], %w1: Tensor[(4, 3, 3, 3), float32], %w2: Tensor[(2, 3, 3, 3), float32], %w3: Tensor[(5, 3, 3, 3), float32]) {
  %0 = nn.conv2d(%x, %w1, padding=[1, 1, 1, 1]);
  %1 = nn.conv2d(%x, %w2, padding=[1, 1, 1, 1]);
  %2 = nn.conv2d(%x, %w3, padding=[1, 1, 1, 1]);
  (%0, %1, %2)
})");
  IRModule after = runPass(combineParallelConv2dPass(), before);
  EXPECT_EQ(
      printBare(after),
      R"(def @main(%x: Tensor[(1, 3, 6, 6), float32], %w1: Tensor[(4, 3, 3, 3), float32], %w2: Tensor[(2, 3, 3, 3), float32], %w3: Tensor[(5, 3, 3, 3), float32]) -> (Tensor[(1, 4, 6, 6), float32], Tensor[(1, 2, 6, 6), float32], Tensor[(1, 5, 6, 6), float32]) {
  %0 = (%w1, %w2, %w3);
  %1 = concatenate(%0);
  %2 = nn.conv2d(%x, %1, padding=[1, 1, 1, 1], channels=11);
  %3 = strided_slice(%2, begin=[0, 0], end=[-1, 4], strides=[1, 1], slice_mode="size", axes=None);
  %4 = strided_slice(%2, begin=[0, 4], end=[-1, 2], strides=[1, 1], slice_mode="size", axes=None);
  %5 = strided_slice(%2, begin=[0, 6], end=[-1, 5], strides=[1, 1], slice_mode="size", axes=None);
  (%3, %4, %5)
}
)");
  EXPECT_TRUE(test::sameBehaviour(before, after, 3, 1e-4, 1e-4));
}

TEST(CombineParallelConv2D, DifferentFollowersStayPerBranch) {
  // At depth 1 the branches continue with relu, add and add: not the same op, so (as in TVM)
  // only the convolutions are combined.
  IRModule before = parseModule(
      R"(def @main(%x: Tensor[(1, 2, 5, 5), float32], %w1: Tensor[(3, 2, 1, 1), float32], %w2: Tensor[(3, 2, 1, 1), float32], %w3: Tensor[(3, 2, 1, 1), float32]) {
  %0 = nn.conv2d(%x, %w1);
  %1 = nn.relu(%0);
  %2 = nn.conv2d(%x, %w2);
  %3 = nn.conv2d(%x, %w3);
  %4 = add(%1, %2);
  add(%4, %3)
})");
  IRModule after = runPass(combineParallelConv2dPass(), before);
  EXPECT_EQ(
      printBare(after),
      R"(def @main(%x: Tensor[(1, 2, 5, 5), float32], %w1: Tensor[(3, 2, 1, 1), float32], %w2: Tensor[(3, 2, 1, 1), float32], %w3: Tensor[(3, 2, 1, 1), float32]) -> Tensor[(1, 3, 5, 5), float32] {
  %0 = (%w1, %w2, %w3);
  %1 = concatenate(%0);
  %2 = nn.conv2d(%x, %1, channels=9);
  %3 = strided_slice(%2, begin=[0, 0], end=[-1, 3], strides=[1, 1], slice_mode="size", axes=None);
  %4 = nn.relu(%3);
  %5 = strided_slice(%2, begin=[0, 3], end=[-1, 3], strides=[1, 1], slice_mode="size", axes=None);
  %6 = add(%4, %5);
  %7 = strided_slice(%2, begin=[0, 6], end=[-1, 3], strides=[1, 1], slice_mode="size", axes=None);
  add(%6, %7)
}
)");
  EXPECT_TRUE(test::sameBehaviour(before, after, 3, 1e-4, 1e-4));
}

TEST(CombineParallelConv2D, MatchingFollowersAreCombined) {
  // add + relu in every branch: the biases are concatenated on the channel axis (axis 0 of a
  // (C, 1, 1) bias); the multiply by a scalar-like (1, 1, 1) does not carry the channel, so the
  // combination stops before it.
  IRModule before = parseModule(
      R"(def @main(%x: Tensor[(1, 2, 4, 4), float32], %w1: Tensor[(3, 2, 1, 1), float32], %w2: Tensor[(2, 2, 1, 1), float32], %w3: Tensor[(3, 2, 1, 1), float32], %b1: Tensor[(3, 1, 1), float32], %b2: Tensor[(2, 1, 1), float32], %b3: Tensor[(3, 1, 1), float32], %s: Tensor[(1, 1, 1), float32]) {
  %0 = nn.conv2d(%x, %w1);
  %1 = add(%0, %b1);
  %2 = nn.relu(%1);
  %3 = multiply(%2, %s);
  %4 = nn.conv2d(%x, %w2);
  %5 = add(%4, %b2);
  %6 = nn.relu(%5);
  %7 = multiply(%6, %s);
  %8 = nn.conv2d(%x, %w3);
  %9 = add(%8, %b3);
  %10 = nn.relu(%9);
  %11 = multiply(%10, %s);
  (%3, %7, %11)
})");
  IRModule after = runPass(combineParallelConv2dPass(), before);
  EXPECT_EQ(
      printBare(after),
      R"(def @main(%x: Tensor[(1, 2, 4, 4), float32], %w1: Tensor[(3, 2, 1, 1), float32], %w2: Tensor[(2, 2, 1, 1), float32], %w3: Tensor[(3, 2, 1, 1), float32], %b1: Tensor[(3, 1, 1), float32], %b2: Tensor[(2, 1, 1), float32], %b3: Tensor[(3, 1, 1), float32], %s: Tensor[(1, 1, 1), float32]) -> (Tensor[(1, 3, 4, 4), float32], Tensor[(1, 2, 4, 4), float32], Tensor[(1, 3, 4, 4), float32]) {
  %0 = (%w1, %w2, %w3);
  %1 = concatenate(%0);
  %2 = (%b1, %b2, %b3);
  %3 = nn.conv2d(%x, %1, channels=8);
  %4 = concatenate(%2);
  %5 = add(%3, %4);
  %6 = nn.relu(%5);
  %7 = strided_slice(%6, begin=[0, 0], end=[-1, 3], strides=[1, 1], slice_mode="size", axes=None);
  %8 = strided_slice(%6, begin=[0, 3], end=[-1, 2], strides=[1, 1], slice_mode="size", axes=None);
  %9 = strided_slice(%6, begin=[0, 5], end=[-1, 3], strides=[1, 1], slice_mode="size", axes=None);
  %10 = multiply(%7, %s);
  %11 = multiply(%8, %s);
  %12 = multiply(%9, %s);
  (%10, %11, %12)
}
)");
  EXPECT_TRUE(test::sameBehaviour(before, after, 3, 1e-4, 1e-4));
}

TEST(CombineParallelConv2D, TwoBranchesAreBelowTheDefaultMinimum) {
  IRModule before = parseModule(
      R"(def @main(%x: Tensor[(1, 3, 4, 4), float32], %w1: Tensor[(4, 3, 1, 1), float32], %w2: Tensor[(2, 3, 1, 1), float32]) {
  %0 = nn.conv2d(%x, %w1);
  %1 = nn.conv2d(%x, %w2);
  (%0, %1)
})");
  IRModule after = runPass(combineParallelConv2dPass(), before);
  EXPECT_EQ(printBare(after), printBare(runPass(inferTypePass(), before)));
  IRModule lowered = runPass(combineParallelConv2dPass(2), before);
  EXPECT_NE(printBare(lowered), printBare(after));
  EXPECT_TRUE(test::sameBehaviour(before, lowered, 3, 1e-4, 1e-4));
}

TEST(CombineParallelConv2D, IncompatibleAttrsSplitTheGroup) {
  // Different strides and a different kernel size: only the two 1x1 stride-1 convs match.
  IRModule before = parseModule(
      R"(def @main(%x: Tensor[(1, 3, 4, 4), float32], %w1: Tensor[(4, 3, 1, 1), float32], %w2: Tensor[(2, 3, 1, 1), float32], %w3: Tensor[(2, 3, 3, 3), float32]) {
  %0 = nn.conv2d(%x, %w1);
  %1 = nn.conv2d(%x, %w2, strides=[2, 2]);
  %2 = nn.conv2d(%x, %w3, padding=[1, 1, 1, 1]);
  %3 = nn.conv2d(%x, %w1);
  (%0, %1, %2, %3)
})");
  IRModule after = runPass(combineParallelConv2dPass(), before);
  EXPECT_EQ(printBare(after), printBare(runPass(inferTypePass(), before)));
}

TEST(CombineParallelConv2D, GroupedConvIsNotSupported) {
  IRModule before = parseModule(
      R"(def @main(%x: Tensor[(1, 4, 4, 4), float32], %w: Tensor[(4, 2, 1, 1), float32]) {
  %0 = nn.conv2d(%x, %w, groups=2);
  %1 = nn.conv2d(%x, %w, groups=2);
  %2 = nn.conv2d(%x, %w, groups=2);
  (%0, %1, %2)
})");
  IRModule after = runPass(combineParallelConv2dPass(), before);
  EXPECT_EQ(printBare(after), printBare(runPass(inferTypePass(), before)));
}

TEST(CombineParallelConv2D, RegisteredAtLevelFour) {
  EXPECT_EQ(passByName("CombineParallelConv2D")->info().optLevel, 4);
}

TEST(CombineParallelDense, ThreeSameShapedDenseBecomeBatchMatmul) {
  IRModule before = parseModule(
      R"(def @main(%x: Tensor[(2, 3), float32], %w1: Tensor[(4, 3), float32], %w2: Tensor[(4, 3), float32], %w3: Tensor[(4, 3), float32]) {
  %0 = nn.dense(%x, %w1, units=None);
  %1 = nn.dense(%x, %w2, units=None);
  %2 = nn.dense(%x, %w3, units=None);
  (%0, %1, %2)
})");
  IRModule after = runPass(combineParallelDensePass(), before);
  EXPECT_EQ(
      printBare(after),
      R"(def @main(%x: Tensor[(2, 3), float32], %w1: Tensor[(4, 3), float32], %w2: Tensor[(4, 3), float32], %w3: Tensor[(4, 3), float32]) -> (Tensor[(2, 4), float32], Tensor[(2, 4), float32], Tensor[(2, 4), float32]) {
  %0 = (%x, %x, %x);
  %1 = (%w1, %w2, %w3);
  %2 = stack(%0);
  %3 = stack(%1);
  %4 = nn.batch_matmul(%2, %3, transpose_b=True);
  %5 = split(%4, indices_or_sections=3);
  %6 = %5.0;
  %7 = %5.1;
  %8 = %5.2;
  %9 = squeeze(%6, axis=[0]);
  %10 = squeeze(%7, axis=[0]);
  %11 = squeeze(%8, axis=[0]);
  (%9, %10, %11)
}
)");
  EXPECT_TRUE(test::sameBehaviour(before, after, 3, 1e-4, 1e-4));
}

TEST(CombineParallelDense, DifferentWeightShapesAreNotStacked) {
  IRModule before = parseModule(
      R"(def @main(%x: Tensor[(2, 3), float32], %w1: Tensor[(4, 3), float32], %w2: Tensor[(5, 3), float32], %w3: Tensor[(4, 3), float32]) {
  %0 = nn.dense(%x, %w1, units=None);
  %1 = nn.dense(%x, %w2, units=None);
  %2 = nn.dense(%x, %w3, units=None);
  (%0, %1, %2)
})");
  IRModule after = runPass(combineParallelDensePass(), before);
  EXPECT_EQ(printBare(after), printBare(runPass(inferTypePass(), before)));
  EXPECT_EQ(passByName("CombineParallelDense")->info().optLevel, 4);
}

}  // namespace
}  // namespace tessera::relay
