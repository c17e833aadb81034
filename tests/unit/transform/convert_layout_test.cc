// ConvertLayout: golden before/after texts and differential checks (float32, rtol = atol = 1e-5:
// only the summation order of conv2d may change).
#include <gtest/gtest.h>

#include "pass_test_util.h"
#include "relay/builder.h"
#include "relay/op/nn.h"
#include "relay/transform/pass_table.h"
#include "relay/transform/passes.h"
#include "relay/visit.h"
#include "test_util.h"

namespace tessera::relay {
namespace {

using test::printBare;
using test::runPass;

const DesiredLayouts kNhwc = {{"nn.conv2d", {"NHWC", "default"}}};

TEST(ConvertLayout, ConvReluChainKeepsOneTransformEachSide) {
  IRModule before = parseModule(
      R"(def @main(%x: Tensor[(1, 3, 6, 6), float32], %w1: Tensor[(4, 3, 3, 3), float32], %w2: Tensor[(5, 4, 1, 1), float32]) {
  %0 = nn.conv2d(%x, %w1, padding=[1, 1, 1, 1]);
  %1 = nn.relu(%0);
  nn.conv2d(%1, %w2, padding=[0, 0, 0, 0])
})");
  IRModule after = runPass(convertLayoutPass(kNhwc), before);
  EXPECT_EQ(
      printBare(after),
      R"(def @main(%x: Tensor[(1, 3, 6, 6), float32], %w1: Tensor[(4, 3, 3, 3), float32], %w2: Tensor[(5, 4, 1, 1), float32]) -> Tensor[(1, 5, 6, 6), float32] {
  %0 = layout_transform(%x, src_layout="NCHW", dst_layout="NHWC");
  %1 = layout_transform(%w1, src_layout="OIHW", dst_layout="HWIO");
  %2 = nn.conv2d(%0, %1, padding=[1, 1, 1, 1], data_layout="NHWC", kernel_layout="HWIO");
  %3 = nn.relu(%2);
  %4 = layout_transform(%w2, src_layout="OIHW", dst_layout="HWIO");
  %5 = nn.conv2d(%3, %4, padding=[0, 0, 0, 0], data_layout="NHWC", kernel_layout="HWIO");
  layout_transform(%5, src_layout="NHWC", dst_layout="NCHW")
}
)");
  EXPECT_TRUE(test::sameBehaviour(before, after, 3, 1e-5, 1e-5));
}

TEST(ConvertLayout, ChannelBiasConstantIsTransformedAndPoolFollows) {
  IRModule before = parseModule(
      R"(def @main(%x: Tensor[(1, 2, 4, 4), float32], %w: Tensor[(3, 2, 3, 3), float32], %b: Tensor[(3, 1, 1), float32]) {
  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1]);
  %1 = add(%0, %b);
  %2 = nn.max_pool2d(%1, pool_size=[2, 2], strides=[2, 2]);
  multiply(%2, 2f)
})");
  IRModule after = runPass(convertLayoutPass(kNhwc), before);
  EXPECT_EQ(
      printBare(after),
      R"(def @main(%x: Tensor[(1, 2, 4, 4), float32], %w: Tensor[(3, 2, 3, 3), float32], %b: Tensor[(3, 1, 1), float32]) -> Tensor[(1, 3, 2, 2), float32] {
  %0 = layout_transform(%x, src_layout="NCHW", dst_layout="NHWC");
  %1 = layout_transform(%w, src_layout="OIHW", dst_layout="HWIO");
  %2 = expand_dims(%b, axis=0);
  %3 = nn.conv2d(%0, %1, padding=[1, 1, 1, 1], data_layout="NHWC", kernel_layout="HWIO");
  %4 = layout_transform(%2, src_layout="NCHW", dst_layout="NHWC");
  %5 = add(%3, %4);
  %6 = nn.max_pool2d(%5, pool_size=[2, 2], strides=[2, 2], layout="NHWC");
  %7 = multiply(%6, 2f);
  layout_transform(%7, src_layout="NHWC", dst_layout="NCHW")
}
)");
  EXPECT_TRUE(test::sameBehaviour(before, after, 3, 1e-5, 1e-5));
}

TEST(ConvertLayout, UnawareConsumerGetsOriginalLayoutBack) {
  IRModule before = parseModule(
      R"(def @main(%x: Tensor[(1, 2, 4, 4), float32], %w: Tensor[(3, 2, 1, 1), float32]) {
  %0 = nn.conv2d(%x, %w);
  %1 = nn.relu(%0);
  %2 = nn.batch_flatten(%1);
  (%2, %1)
})");
  IRModule after = runPass(convertLayoutPass(kNhwc), before);
  EXPECT_EQ(
      printBare(after),
      R"(def @main(%x: Tensor[(1, 2, 4, 4), float32], %w: Tensor[(3, 2, 1, 1), float32]) -> (Tensor[(1, 48), float32], Tensor[(1, 3, 4, 4), float32]) {
  %0 = layout_transform(%x, src_layout="NCHW", dst_layout="NHWC");
  %1 = layout_transform(%w, src_layout="OIHW", dst_layout="HWIO");
  %2 = nn.conv2d(%0, %1, data_layout="NHWC", kernel_layout="HWIO");
  %3 = nn.relu(%2);
  %4 = layout_transform(%3, src_layout="NHWC", dst_layout="NCHW");
  %5 = nn.batch_flatten(%4);
  (%5, %4)
}
)");
  EXPECT_TRUE(test::sameBehaviour(before, after, 3, 1e-5, 1e-5));
}

TEST(ConvertLayout, NhwcBackToNchw) {
  IRModule before = parseModule(
      R"(def @main(%x: Tensor[(1, 4, 4, 2), float32], %w: Tensor[(3, 3, 2, 3), float32]) {
  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1], data_layout="NHWC", kernel_layout="HWIO");
  nn.relu(%0)
})");
  IRModule after = runPass(convertLayoutPass({{"nn.conv2d", {"NCHW", "OIHW"}}}), before);
  EXPECT_EQ(
      printBare(after),
      R"(def @main(%x: Tensor[(1, 4, 4, 2), float32], %w: Tensor[(3, 3, 2, 3), float32]) -> Tensor[(1, 4, 4, 3), float32] {
  %0 = layout_transform(%x, src_layout="NHWC", dst_layout="NCHW");
  %1 = layout_transform(%w, src_layout="HWIO", dst_layout="OIHW");
  %2 = nn.conv2d(%0, %1, padding=[1, 1, 1, 1]);
  %3 = nn.relu(%2);
  layout_transform(%3, src_layout="NCHW", dst_layout="NHWC")
}
)");
  EXPECT_TRUE(test::sameBehaviour(before, after, 3, 1e-5, 1e-5));
}

TEST(ConvertLayout, ResidualAddOfTwoConvertedValuesNeedsNoTransform) {
  IRModule before = parseModule(
      R"(def @main(%x: Tensor[(1, 2, 4, 4), float32], %w1: Tensor[(2, 2, 3, 3), float32], %w2: Tensor[(2, 2, 1, 1), float32]) {
  %0 = nn.conv2d(%x, %w1, padding=[1, 1, 1, 1]);
  %1 = nn.relu(%0);
  %2 = nn.conv2d(%1, %w2);
  add(%2, %1)
})");
  IRModule after = runPass(passByName("ConvertLayout"), before);
  EXPECT_EQ(
      printBare(after),
      R"(def @main(%x: Tensor[(1, 2, 4, 4), float32], %w1: Tensor[(2, 2, 3, 3), float32], %w2: Tensor[(2, 2, 1, 1), float32]) -> Tensor[(1, 2, 4, 4), float32] {
  %0 = layout_transform(%x, src_layout="NCHW", dst_layout="NHWC");
  %1 = layout_transform(%w1, src_layout="OIHW", dst_layout="HWIO");
  %2 = nn.conv2d(%0, %1, padding=[1, 1, 1, 1], data_layout="NHWC", kernel_layout="HWIO");
  %3 = nn.relu(%2);
  %4 = layout_transform(%w2, src_layout="OIHW", dst_layout="HWIO");
  %5 = nn.conv2d(%3, %4, data_layout="NHWC", kernel_layout="HWIO");
  %6 = add(%5, %3);
  layout_transform(%6, src_layout="NHWC", dst_layout="NCHW")
}
)");
  EXPECT_TRUE(test::sameBehaviour(before, after, 3, 1e-5, 1e-5));
}

// The rewrite is iterative: a long chain after the conv neither overflows the stack nor gains
// transforms.
TEST(ConvertLayout, LongReluChainIsIterative) {
  Var x = var("x", {1, 2, 4, 4});
  Var w = var("w", {3, 2, 1, 1});
  Expr body = nn::conv2d(x, w);
  for (int i = 0; i < 20000; ++i) body = nn::relu(body);
  Function fn = convertLayout(function(body), kNhwc);
  int transforms = 0;
  postOrderVisit(fn, [&transforms](const Expr& e) {
    const auto* call = e->as<CallNode>();
    const auto* op = call ? call->op->as<OpNode>() : nullptr;
    if (op && op->name == "layout_transform") ++transforms;
  });
  EXPECT_EQ(transforms, 3);
}

// Negative cases: the pass must leave these unchanged (apart from type annotations).
void expectUnchanged(const char* text, const DesiredLayouts& desired) {
  IRModule before = parseModule(text);
  IRModule after = runPass(convertLayoutPass(desired), before);
  EXPECT_EQ(printBare(after), printBare(runPass(inferTypePass(), before)));
}

TEST(ConvertLayout, AlreadyInDesiredLayoutIsUnchanged) {
  expectUnchanged(
      R"(def @main(%x: Tensor[(1, 4, 4, 2), float32], %w: Tensor[(3, 3, 2, 3), float32]) {
  nn.conv2d(%x, %w, data_layout="NHWC", kernel_layout="HWIO")
})",
      kNhwc);
}

TEST(ConvertLayout, GroupedConvIsLeftAlone) {
  expectUnchanged(
      R"(def @main(%x: Tensor[(1, 4, 4, 4), float32], %w: Tensor[(4, 1, 3, 3), float32]) {
  %0 = nn.conv2d(%x, %w, groups=4);
  nn.relu(%0)
})",
      kNhwc);
}

TEST(ConvertLayout, NoEntryForConvOrBlockedLayoutIsIdentity) {
  const char* text =
      R"(def @main(%x: Tensor[(1, 2, 4, 4), float32], %w: Tensor[(3, 2, 1, 1), float32]) {
  %0 = nn.conv2d(%x, %w);
  nn.relu(%0)
})";
  expectUnchanged(text, {{"nn.dense", {"NC", "default"}}});
  expectUnchanged(text, {{"nn.conv2d", {"NCHW4c", "default"}}});
}

}  // namespace
}  // namespace tessera::relay
