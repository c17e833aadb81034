// Sums that leave int8: ResNet's residual pattern relu(add(a, b)) of two int8 values, narrowed
// to int8 again, must saturate at 127 instead of wrapping around. TVM 0.16 makes the sum an
// ACTIVATION, so the cast_hint after it requantizes and clips (spec relay.md §5.6, TVM #15529);
// realize also clips any narrowing cast nothing bounds. Checked on the interpreter and compiled.
#include <gtest/gtest.h>

#include <regex>

#include "driver/compiled_runner.h"
#include "narrowing_check.h"
#include "relay/builder.h"
#include "relay/quantize/quantize.h"
#include "relay/quantize/realize.h"
#include "relay/text/parser.h"
#include "relay/text/printer.h"
#include "relay/type_infer.h"
#include "test_util.h"

namespace tessera::relay::quantize {
namespace {

constexpr double kStep = 0.0625;            // global_scale 8 / 128
constexpr double kSaturated = 127 * kStep;  // the largest int8 value at that scale

Expr conv1x1(const Expr& x, double weight) {
  Conv2DAttrs attrs;
  attrs.channels = 1;
  attrs.kernelSize = std::vector<int64_t>{1, 1};
  return nn::conv2d(x, constant(test::tensorOf({1, 1, 1, 1}, DataType::float32(), {weight})),
                    attrs);
}

// relu(6x + 5x): each product fits the int8 range of global_scale 8 (|6x| <= 6 < 8), their sum
// does not (11 > 8).
IRModule residualModel() {
  const Expr x = var("x", {1, 1, 4, 4});
  return inferTypes(IRModule::fromExpr(function(nn::relu(add(conv1x1(x, 6), conv1x1(x, 5))))));
}

NDArray ramp() {  // -1 .. 1 in 16 steps
  std::vector<double> v;
  for (int i = 0; i < 16; ++i) v.push_back(-1.0 + 2.0 * i / 15.0);
  return test::tensorOf({1, 1, 4, 4}, DataType::float32(), v);
}

// The quantized output follows relu(11x) below the saturation (within the input's rounding,
// half a step times 11, and two steps of requantization) and is 127 steps above it: never
// negative, never wrapped.
void expectSaturates(const NDArray& got, const NDArray& x, const char* engine) {
  for (int64_t i = 0; i < x.numel(); ++i) {
    const double exact = std::max(0.0, 11 * x.getFloat(i));
    const double q = got.getFloat(i);
    SCOPED_TRACE(std::string(engine) + " at x = " + std::to_string(x.getFloat(i)));
    EXPECT_GE(q, 0.0);
    if (exact > kSaturated)
      EXPECT_EQ(q, kSaturated);
    else
      EXPECT_NEAR(q, exact, (11 * 0.5 + 2) * kStep);
  }
}

TEST(QuantizeOverflow, ResidualSumSaturatesOnInterpreterAndCompiled) {
  QConfigScope scope(QConfig{});  // every conv quantized, global_scale 8
  const IRModule q = quantize(residualModel());
  EXPECT_TRUE(test::noUnclippedInt8Cast(q));
  const NDArray x = ramp();
  const NDArray interpreted = runOnInterpreter(q, {{"x", x}}).at(0);
  expectSaturates(interpreted, x, "interpreter");
  const NDArray compiled = driver::compiledRunner()(q, {{"x", x}}).at(0);
  expectSaturates(compiled, x, "compiled");
  EXPECT_TRUE(test::allClose(compiled, interpreted, 0, 0));
}

// The realized text has TVM's requantization of the sum: the relu's int32 result is clipped to
// the int8 range, as TVM prints it, before the cast.
TEST(QuantizeOverflow, ResidualSumIsClippedBeforeTheCastAsTvmPrintsIt) {
  QConfigScope scope(QConfig{});
  const std::string text = printModule(quantize(residualModel()));
  const std::regex pattern(
      R"(%(\d+) = add\(%\d+, %\d+\) /\* ty=Tensor\[\(1, 1, 4, 4\), int32\] \*/;\n)"
      R"( *%(\d+) = nn\.relu\(%\1\) /\* ty=Tensor\[\(1, 1, 4, 4\), int32\] \*/;\n)"
      R"( *%(\d+) = clip\(%\2, a_min=-127f, a_max=127f\) )"
      R"(/\* ty=Tensor\[\(1, 1, 4, 4\), int32\] \*/;\n)"
      R"( *%\d+ = cast\(%\3, dtype="int8"\))");
  EXPECT_TRUE(std::regex_search(text, pattern)) << text;
  // The requantization point is annotate's, as in TVM: the sum is an ACTIVATION, so the
  // cast_hint quantizes it to INPUT first.
  QConfig simulate;
  simulate.doSimulation = true;
  QConfigScope simulation(simulate);
  const std::string simulated = printModule(quantize(residualModel()));
  const std::regex requantized(
      R"(%(\d+) = nn\.relu\(%\d+\) [^\n]*\n)"
      R"( *%(\d+) = relay\.op\.annotation\.simulated_quantize\(%\1, 0\.0625f /\* ty=float32 \*/, )"
      R"(-127f /\* ty=float32 \*/, 127f /\* ty=float32 \*/, kind=1\)[^\n]*\n)"
      R"( *%\d+ = annotation\.cast_hint\(%\2, dtype="int8"\))");
  EXPECT_TRUE(std::regex_search(simulated, requantized)) << simulated;
}

// A simulated module whose rules leave an int32 sum unclipped before a cast_hint (TVM before
// 0.14 annotated such a sum as INPUT): realize itself clips the narrowing cast.
TEST(QuantizeOverflow, RealizeClipsANarrowingCastNothingBounds) {
  const IRModule simulated = inferTypes(parseModule(R"(#[version = "0.0.5"]
def @main(%a: Tensor[(4), float32], %b: Tensor[(4), float32]) {
  %0 = relay.op.annotation.simulated_quantize(%a, 0.0625f, -127f, 127f, kind=1);
  %1 = relay.op.annotation.simulated_quantize(%b, 0.0625f, -127f, 127f, kind=1);
  %2 = add(%0, %1);
  %3 = annotation.cast_hint(%2, dtype="int8");
  annotation.stop_fusion(%3)
})"));
  const IRModule q = inferTypes(IRModule::fromExpr(realize(simulated.main())));
  EXPECT_TRUE(test::noUnclippedInt8Cast(q)) << printModule(q);
  const NDArray a = test::tensorOf({4}, DataType::float32(), {4, 6, -6, 1});
  const std::vector<double> want = {kSaturated, kSaturated, -kSaturated, 2};
  for (const NDArray& got : {runOnInterpreter(q, {{"a", a}, {"b", a}}).at(0),
                             driver::compiledRunner()(q, {{"a", a}, {"b", a}}).at(0)})
    EXPECT_EQ(test::valuesOf(got), want);
}

}  // namespace
}  // namespace tessera::relay::quantize
