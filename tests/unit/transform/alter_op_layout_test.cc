// AlterOpLayout: a target's rule picks the layouts, the pass inserts the transforms and carries
// the blocked layout through elementwise ops, channel broadcasts (including one over a unit
// channel axis) and pools. The rules here are test rules under their own target key, so the
// pass is checked apart from x86's choices (tests/unit/topi/x86_alter_layout_test.cc).
#include <gtest/gtest.h>

#include "pass_test_util.h"
#include "relay/op/nn.h"
#include "relay/strategy/strategy_util.h"
#include "relay/transform/alter_op_layout.h"
#include "relay/transform/pass_table.h"
#include "test_util.h"

namespace tessera::relay {
namespace {

using test::printBare;

// Every groups-1 NCHW conv2d to NCHW4c data and OIHW4i4o weights.
std::optional<LayoutAlteration> blockBy4(const CallNode& call, const std::vector<std::string>&,
                                         const std::string&, const target::Target&) {
  const auto& a = strategy::attrsOf<nn::Conv2DAttrs>(call.attrs);
  if (a.groups != 1 || a.dataLayout != "NCHW") return std::nullopt;
  nn::Conv2DAttrs altered = a;
  altered.dataLayout = "NCHW4c";
  altered.kernelLayout = "OIHW4i4o";
  return LayoutAlteration{
      makeAttrs(altered), {"NCHW4c", "OIHW4i4o"}, {"NCHW", "OIHW"}, "NCHW4c", "NCHW"};
}

target::Target targetWithKey(const std::string& key) {
  target::Target t = target::Target::llvm();
  t.keys = {key};
  return t;
}

IRModule runWithTarget(const IRModule& m, std::optional<target::Target> target) {
  PassContext ctx;
  ctx.optLevel = 3;
  ctx.target = std::move(target);
  return (*passByName("AlterOpLayout"))(m, ctx);
}

const char* kChain =
    R"(def @main(%x: Tensor[(1, 4, 6, 6), float32], %w1: Tensor[(8, 4, 3, 3), float32], %b: Tensor[(8, 1, 1), float32], %s: Tensor[(1, 1, 1), float32], %w2: Tensor[(8, 8, 1, 1), float32]) {
  %0 = nn.conv2d(%x, %w1, padding=[1, 1, 1, 1]);
  %1 = add(%0, %b);
  %2 = multiply(%1, %s);
  %3 = nn.relu(%2);
  %4 = nn.conv2d(%3, %w2, padding=[0, 0, 0, 0]);
  %5 = add(%4, %3);
  nn.global_avg_pool2d(%5)
})";

class AlterOpLayoutTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { registerAlterOpLayout("nn.conv2d", "test-block4", blockBy4); }
};

TEST_F(AlterOpLayoutTest, ChainIsBlockedOnceAndRestoredOnce) {
  IRModule before = parseModule(kChain);
  IRModule after = runWithTarget(before, targetWithKey("test-block4"));
  EXPECT_EQ(
      printBare(after),
      R"(def @main(%x: Tensor[(1, 4, 6, 6), float32], %w1: Tensor[(8, 4, 3, 3), float32], %b: Tensor[(8, 1, 1), float32], %s: Tensor[(1, 1, 1), float32], %w2: Tensor[(8, 8, 1, 1), float32]) -> Tensor[(1, 8, 1, 1), float32] {
  %0 = layout_transform(%x, src_layout="NCHW", dst_layout="NCHW4c");
  %1 = layout_transform(%w1, src_layout="OIHW", dst_layout="OIHW4i4o");
  %2 = expand_dims(%b, axis=0);
  %3 = nn.conv2d(%0, %1, padding=[1, 1, 1, 1], data_layout="NCHW4c", kernel_layout="OIHW4i4o");
  %4 = layout_transform(%2, src_layout="NCHW", dst_layout="NCHW4c");
  %5 = expand_dims(%s, axis=0);
  %6 = add(%3, %4);
  %7 = expand_dims(%5, axis=4);
  %8 = multiply(%6, %7);
  %9 = nn.relu(%8);
  %10 = layout_transform(%w2, src_layout="OIHW", dst_layout="OIHW4i4o");
  %11 = nn.conv2d(%9, %10, padding=[0, 0, 0, 0], data_layout="NCHW4c", kernel_layout="OIHW4i4o");
  %12 = add(%11, %9);
  %13 = nn.global_avg_pool2d(%12, layout="NCHW4c");
  layout_transform(%13, src_layout="NCHW4c", dst_layout="NCHW")
}
)");
  EXPECT_TRUE(test::sameBehaviour(before, after, 3, 1e-5, 1e-5));
}

TEST_F(AlterOpLayoutTest, WithoutTargetOrRuleTheModuleIsUnchanged) {
  IRModule before = parseModule(kChain);
  EXPECT_EQ(printBare(runWithTarget(before, std::nullopt)), printBare(before));
  EXPECT_EQ(printBare(runWithTarget(before, targetWithKey("no-such-key"))), printBare(before));
}

// The first key with a rule wins, as TVM's generic functions dispatch on the most specific key.
TEST_F(AlterOpLayoutTest, FirstTargetKeyWithARuleDecides) {
  target::Target t = target::Target::llvm();
  t.keys = {"no-such-key", "test-block4"};
  IRModule after = runWithTarget(parseModule(kChain), t);
  EXPECT_NE(printBare(after).find("data_layout=\"NCHW4c\""), std::string::npos);
}

// A value that a consumer needs in another blocking is transformed directly between the two.
TEST_F(AlterOpLayoutTest, AnotherBlockingIsOneTransformAway) {
  registerAlterOpLayout("nn.max_pool2d", "test-block4",
                        [](const CallNode& call, const std::vector<std::string>&,
                           const std::string&, const target::Target&) {
                          nn::MaxPool2DAttrs a = strategy::attrsOf<nn::MaxPool2DAttrs>(call.attrs);
                          a.layout = "NCHW2c";
                          return std::optional<LayoutAlteration>(LayoutAlteration{
                              makeAttrs(a), {"NCHW2c"}, {"NCHW"}, "NCHW2c", "NCHW"});
                        });
  IRModule before = parseModule(
      R"(def @main(%x: Tensor[(1, 4, 4, 4), float32], %w: Tensor[(4, 4, 1, 1), float32]) {
  %0 = nn.conv2d(%x, %w, padding=[0, 0, 0, 0]);
  nn.max_pool2d(%0, pool_size=[2, 2], strides=[2, 2])
})");
  IRModule after = runWithTarget(before, targetWithKey("test-block4"));
  const std::string text = printBare(after);
  EXPECT_NE(text.find(R"(layout_transform(%2, src_layout="NCHW4c", dst_layout="NCHW2c"))"),
            std::string::npos)
      << text;
  EXPECT_TRUE(test::sameBehaviour(before, after, 3, 1e-5, 1e-5));
  kAlterOpLayoutMap.reset("nn.max_pool2d");
}

// A rule sees the layout its result's consumers ask for: depthwise convs are always blocked by 4,
// dense ones only when a consumer asks. The demand reaches the first conv through a max pool and
// a relu; the second conv's result goes through softmax, which restores its input, so it is left.
TEST_F(AlterOpLayoutTest, RulesSeeTheLayoutTheirConsumersAskFor) {
  registerAlterOpLayout(
      "nn.conv2d", "test-demand",
      [](const CallNode& call, const std::vector<std::string>&, const std::string& consumerLayout,
         const target::Target&) -> std::optional<LayoutAlteration> {
        const auto& a = strategy::attrsOf<nn::Conv2DAttrs>(call.attrs);
        if (a.groups == 1 && consumerLayout != "NCHW4c") return std::nullopt;
        nn::Conv2DAttrs altered = a;
        altered.dataLayout = "NCHW4c";
        altered.kernelLayout = a.groups == 1 ? "OIHW4i4o" : "OIHW1i4o";
        return LayoutAlteration{makeAttrs(altered),
                                {"NCHW4c", altered.kernelLayout},
                                {"NCHW", "OIHW"},
                                "NCHW4c",
                                "NCHW"};
      });
  IRModule before = parseModule(
      R"(def @main(%x: Tensor[(1, 4, 6, 6), float32], %w1: Tensor[(8, 4, 1, 1), float32], %w2: Tensor[(8, 1, 3, 3), float32], %w3: Tensor[(8, 4, 1, 1), float32]) {
  %0 = nn.conv2d(%x, %w1, padding=[0, 0, 0, 0]);
  %1 = nn.relu(%0);
  %2 = nn.max_pool2d(%1, pool_size=[2, 2], strides=[2, 2]);
  %3 = nn.conv2d(%2, %w2, padding=[1, 1, 1, 1], groups=8);
  %4 = nn.conv2d(%x, %w3, padding=[0, 0, 0, 0]);
  %5 = nn.softmax(%4, axis=1);
  %6 = nn.conv2d(%5, %w2, padding=[1, 1, 1, 1], groups=8);
  (%3, %6)
})");
  IRModule after = runWithTarget(before, targetWithKey("test-demand"));
  const std::string text = printBare(after);
  EXPECT_NE(text.find(R"(nn.conv2d(%0, %1, padding=[0, 0, 0, 0], data_layout="NCHW4c")"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find(R"(nn.conv2d(%x, %w3, padding=[0, 0, 0, 0]))"), std::string::npos) << text;
  size_t blocked = 0;
  for (size_t at = text.find("data_layout=\"NCHW4c\""); at != std::string::npos;
       at = text.find("data_layout=\"NCHW4c\"", at + 1))
    ++blocked;
  EXPECT_EQ(blocked, 3u) << text;
  EXPECT_TRUE(test::sameBehaviour(before, after, 3, 1e-5, 1e-5));
}

}  // namespace
}  // namespace tessera::relay
