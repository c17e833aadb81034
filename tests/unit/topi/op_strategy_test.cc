// Op strategies (relay/strategy/op_strategy.h): selection by priority and condition under the
// target's keys, fallback to the next key and to the generic compute, the reasons of skipped
// implementations, and the x86 rows chosen for real conv2d/dense calls and their kernels.
#include <gtest/gtest.h>

#include "../driver/build_test_util.h"
#include "relay/builder.h"
#include "relay/strategy/op_strategy.h"
#include "relay/type_infer.h"

namespace tessera::driver::test {
namespace {

using relay::Expr;
using relay::strategy::OpImplementation;
using relay::strategy::selectImplementation;
using relay::strategy::StrategyCall;
using relay::strategy::StrategyChoice;
using relay::strategy::StrategyRegistry;
using tessera::Applicability;

// A type-checked call of `e` (the body of a one-function module).
relay::Call typedCall(const Expr& e) {
  const relay::IRModule m = relay::inferTypes(relay::IRModule::fromExpr(relay::function(e)));
  return relay::exprAs<relay::CallNode>(m.main()->body);
}

StrategyChoice choose(const relay::Call& call, const target::Target& target,
                      bool weightConstant = false) {
  return selectImplementation(StrategyCall{*call, call->checkedType, target, {}, weightConstant});
}

// Rows under a key of the test's own, removed again when the test ends.
class TestKeyRows : public ::testing::Test {
 protected:
  void SetUp() override { relay::strategy::registerStrategies(); }
  void TearDown() override { StrategyRegistry::global().reset("nn.softmax", "test_key"); }
};

TEST_F(TestKeyRows, HighestApplicablePriorityWinsAndSkipsAreExplained) {
  StrategyRegistry& r = StrategyRegistry::global();
  r.add("nn.softmax", "test_key", {.name = "softmax_low.test", .priority = 5});
  r.add("nn.softmax", "test_key",
        {.name = "softmax_disabled.test", .priority = 20, .condition = [](const StrategyCall&) {
           return Applicability::no("disabled for the test");
         }});
  r.add("nn.softmax", "test_key", {.name = "softmax_high.test", .priority = 10});
  const relay::Call call = typedCall(relay::nn::softmax(relay::var("x", {2, 8})));
  const StrategyChoice choice = choose(call, target::Target::parse("llvm -keys=test_key,cpu"));
  ASSERT_TRUE(choice.chosen);
  EXPECT_EQ(choice.chosenName(), "softmax_high.test");
  ASSERT_EQ(choice.considered.size(), 2u);
  EXPECT_EQ(choice.considered[0].name, "softmax_disabled.test");
  EXPECT_EQ(choice.considered[0].answer.reason, "disabled for the test");
  EXPECT_EQ(relay::strategy::explainChoice(choice),
            (std::vector<std::string>{
                "nn.softmax: softmax_high.test (priority 10)",
                "  skipped softmax_disabled.test (priority 20): disabled for the test"}));
}

TEST_F(TestKeyRows, FallsThroughToTheNextKeyAndToTheGenericCompute) {
  StrategyRegistry::global().add(
      "nn.softmax", "test_key",
      {.name = "softmax_never.test",
       .condition = [](const StrategyCall&) { return Applicability::no("never applies"); }});
  const relay::Call call = typedCall(relay::nn::softmax(relay::var("x", {2, 8})));
  // No cpu row for softmax: the generic implementation, after the declined one.
  const StrategyChoice choice = choose(call, target::Target::parse("llvm -keys=test_key,cpu"));
  EXPECT_FALSE(choice.chosen);
  EXPECT_EQ(choice.chosenName(), "nn.softmax.generic");
  EXPECT_EQ(choice.considered.size(), 1u);
  // A target without the key never sees the row.
  EXPECT_TRUE(choose(call, target::Target::parse("llvm")).considered.empty());
}

TEST(X86Strategy, ConvolutionsGetTheirKernels) {
  const target::Target cpu = codegen::hostTarget();
  const Expr data = relay::var("x", {1, 16, 14, 14});
  relay::Conv2DAttrs attrs;
  attrs.padding = {1, 1};
  attrs.kernelSize = std::vector<int64_t>{3, 3};
  attrs.channels = 32;
  const relay::Call conv3x3 =
      typedCall(relay::nn::conv2d(data, relay::var("w", {32, 16, 3, 3}), attrs));
  // A weight that can be packed at compile time: Winograd; one that cannot: the direct kernel,
  // after the packed ones say why not.
  EXPECT_EQ(choose(conv3x3, cpu, /*weightConstant=*/true).chosenName(), "conv2d_nchw_winograd.x86");
  const StrategyChoice direct = choose(conv3x3, cpu);
  EXPECT_EQ(direct.chosenName(), "conv2d_nchw.x86");
  // The int8 rows (priorities 22, 21, 20, ..., 18) are asked first and decline the float32 call
  // (the AMX row for the target's lack of AMX first where it has none).
  const std::vector<std::string> int8Rows = {"conv2d_nchw_int8_amx.x86",
                                             "depthwise_conv2d_nchw_int8_window.x86",
                                             "conv2d_1x1_int8_vnni.x86",
                                             "conv2d_pixels_int8_vnni.x86",
                                             "depthwise_conv2d_nchw_int8_window_shifted.x86",
                                             "conv2d_nchw_int8_vnni.x86",
                                             "conv2d_1x1_int8_bytes_avx2.x86",
                                             "conv2d_pixels_int8_bytes_avx2.x86",
                                             "depthwise_conv2d_nchw_int8.x86",
                                             "conv2d_nchw_int8_bytes_avx2.x86",
                                             "conv2d_1x1_int8_avx2.x86",
                                             "conv2d_pixels_int8_avx2.x86",
                                             "conv2d_nchw_int8_avx2.x86"};
  ASSERT_GE(direct.considered.size(), int8Rows.size() + 1);
  for (size_t i = 0; i < int8Rows.size(); ++i)
    EXPECT_EQ(direct.considered[i].name, int8Rows[i]) << i;
  EXPECT_EQ(direct.considered[0].answer.reason,
            cpu.hasFeature("amx-int8") && cpu.hasFeature("amx-tile")
                ? "not int8/uint8 data x int8 weight -> int32"
                : "the target has no AMX-INT8 (-mattr=+amx-tile,+amx-int8)");
  for (size_t i = 1; i < int8Rows.size(); ++i)
    EXPECT_EQ(direct.considered[i].answer.reason, "not int8/uint8 data x int8 weight -> int32");
  EXPECT_EQ(direct.considered[int8Rows.size()].answer.reason,
            "the weight is not a constant that can be packed at compile time");

  relay::Conv2DAttrs pointwise;
  pointwise.kernelSize = std::vector<int64_t>{1, 1};
  pointwise.channels = 32;
  // A product over pixels when they make whole vectors (16 x 16 here), else the packed kernel;
  // with AVX2 (16 vector registers) a product over pixels whose last panel is partial.
  const relay::Call conv1x1 = typedCall(relay::nn::conv2d(
      relay::var("x", {1, 16, 16, 16}), relay::var("w", {32, 16, 1, 1}), pointwise));
  EXPECT_EQ(choose(conv1x1, cpu, true).chosenName(), "conv2d_1x1.x86");
  const relay::Call conv1x1Odd =
      typedCall(relay::nn::conv2d(data, relay::var("w", {32, 16, 1, 1}), pointwise));
  const target::Target avx2 =
      codegen::withHostDefaults(target::Target::parse("llvm -mcpu=haswell -mattr=+avx2,+fma"));
  const target::Target avx512 = codegen::withHostDefaults(target::Target::parse(
      "llvm -mcpu=skylake-avx512 -mattr=+avx512f,+avx512bw,+avx512dq,+avx512vl,+avx2,+fma"));
  EXPECT_EQ(choose(conv1x1Odd, avx2, true).chosenName(), "conv2d_1x1.x86");
  EXPECT_EQ(choose(conv1x1Odd, avx512, true).chosenName(), "conv2d_nchw_pack.x86");
  const StrategyChoice odd512 = choose(conv1x1Odd, avx512, true);
  for (const auto& c : odd512.considered)
    if (c.name == "conv2d_1x1.x86")
      EXPECT_EQ(c.answer.reason,
                "not a pointwise (1x1, stride 1, unpadded, groups 1) convolution over whole "
                "vectors of pixels (H*W a multiple of 16; with AVX2, at least 16)");

  relay::Conv2DAttrs nhwc = attrs;
  nhwc.dataLayout = "NHWC";
  nhwc.kernelLayout = "HWIO";
  const relay::Call convNhwc = typedCall(
      relay::nn::conv2d(relay::var("x", {1, 14, 14, 16}), relay::var("w", {3, 3, 16, 32}), nhwc));
  const StrategyChoice generic = choose(convNhwc, cpu);
  EXPECT_EQ(generic.chosenName(), "nn.conv2d.generic");
  EXPECT_EQ(generic.considered.back().answer.reason,
            "layout NHWC/HWIO (the x86 kernels take NCHW/OIHW)");
}

// uint8 data with an int8 weight (relay.quantize with unsigned_inputs) gets the packed kernels as
// int8 x int8 does (the int8 rows first where the target has VNNI); other mixes do not.
TEST(X86Strategy, Uint8DataWithAnInt8WeightIsPacked) {
  const target::Target avx2 = target::Target::parse("llvm -mcpu=haswell");
  relay::Conv2DAttrs attrs;
  attrs.padding = {1, 1};
  attrs.kernelSize = std::vector<int64_t>{3, 3};
  attrs.channels = 32;
  attrs.outDtype = DataType::int32();
  for (const DataType dataType : {DataType::int8(), DataType::uint8()}) {
    const relay::Call conv =
        typedCall(relay::nn::conv2d(relay::var("x", {1, 16, 14, 14}, dataType),
                                    relay::var("w", {32, 16, 3, 3}, DataType::int8()), attrs));
    EXPECT_EQ(choose(conv, avx2, /*weightConstant=*/true).chosenName(), "conv2d_nchw_pack.x86")
        << dataType.name();
  }
  const relay::Call int8Weight =
      typedCall(relay::nn::conv2d(relay::var("x", {1, 16, 14, 14}, DataType::int8()),
                                  relay::var("w", {32, 16, 3, 3}, DataType::uint8()), attrs));
  EXPECT_EQ(choose(int8Weight, avx2, true).chosenName(), "conv2d_nchw.x86");
  relay::DenseAttrs dense;
  dense.outDtype = DataType::int32();
  const relay::Call product =
      typedCall(relay::nn::dense(relay::var("x", {4, 64}, DataType::uint8()),
                                 relay::var("w", {32, 64}, DataType::int8()), dense));
  EXPECT_EQ(choose(product, avx2, true).chosenName(), "dense_pack.x86");
}

// Each kernel of a build names its implementation, and the explanation shows it.
TEST(X86Strategy, BuildRecordsTheChoiceOfEveryKernel) {
  const relay::IRModule mod =
      relay::inferTypes(relay::IRModule::fromExpr(relay::function(relay::nn::relu(relay::nn::dense(
          relay::var("x", {4, 64}),
          relay::constant(tessera::test::randomTensor({32, 64}, DataType::float32(), 3)))))));
  const Built built = build(mod, codegen::hostTarget());
  ASSERT_EQ(built.strategies.size(), 1u);
  const std::vector<std::string> lines = explainStrategy(built.strategies[0]);
  ASSERT_EQ(lines.size(), 6u);
  EXPECT_EQ(lines[1], "  nn.dense: dense_pack.x86 (priority 10)");
  EXPECT_EQ(lines[2],
            "    skipped dense_int8_vnni.x86 (priority 20): not int8/uint8 data x int8 weight -> "
            "int32");
  EXPECT_EQ(lines[3],
            "    skipped dense_int8_bytes_avx2.x86 (priority 19): not int8/uint8 data x int8 "
            "weight -> int32");
  EXPECT_EQ(lines[4],
            "    skipped dense_int8_avx2.x86 (priority 18): not int8/uint8 data x int8 weight -> "
            "int32");
  EXPECT_EQ(lines[5], "  schedule: dense_pack.x86");
  EXPECT_TRUE(matchesInterpreter(mod, 11));
}

}  // namespace
}  // namespace tessera::driver::test
