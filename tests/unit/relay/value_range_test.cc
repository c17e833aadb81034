// RangeAnalyzer (relay/value_range.h): the ranges realize's requantizing chains get, the ops that
// keep or widen them, let-bound values, fused function literals, and the deep chains every
// traversal must survive without recursion.
#include "relay/value_range.h"

#include <gtest/gtest.h>

#include "relay/builder.h"
#include "relay/text/parser.h"
#include "relay/type_infer.h"

namespace tessera::relay {
namespace {

// The range of @main's result, from its text.
std::optional<ValueRange> resultRange(const std::string& body, const std::string& params) {
  const IRModule m = inferTypes(parseModule(
      "#[version = \"0.0.5\"]\ndef @main(" + params + ") {\n" + body + "\n}\n", "range.relay"));
  RangeAnalyzer ranges;
  return ranges.rangeOf(m.main()->body);
}

const std::string kInt32Data = "%x: Tensor[(1, 8), int32]";

TEST(ValueRange, RequantizedReluIsASmallNonNegativeByte) {
  // What realize writes after a convolution's relu (the producer of the next layer's data).
  const auto r = resultRange(R"(
  %0 = nn.relu(%x);
  %1 = cast(%0, dtype="int64");
  %2 = fixed_point_multiply(%1, multiplier=1539698560, shift=-7);
  %3 = clip(%2, a_min=-127f, a_max=127f);
  %4 = cast(%3, dtype="int32");
  cast(%4, dtype="int8"))",
                             kInt32Data);
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, (ValueRange{0, 127}));
  EXPECT_TRUE(smallNonNegative(*r));
}

TEST(ValueRange, WithoutTheReluTheClipKeepsNegativeValues) {
  const auto r = resultRange(R"(
  %0 = fixed_point_multiply(%x, multiplier=1539698560, shift=-7);
  %1 = clip(%0, a_min=-127f, a_max=127f);
  cast(%1, dtype="int8"))",
                             kInt32Data);
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, (ValueRange{-127, 127}));
  EXPECT_FALSE(smallNonNegative(*r));
}

TEST(ValueRange, ANarrowingCastWithoutAClipMayWrap) {
  // relu's output fits int32, not int8: the cast may wrap to negative values.
  const auto r = resultRange("%0 = nn.relu(%x);\n  cast(%0, dtype=\"int8\")", kInt32Data);
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, rangeOfDtype(DataType::int8()));
  // A uint8 parameter spans [0, 255]: not a small byte.
  const auto u = resultRange("nn.relu(%u)", "%u: Tensor[(4), uint8]");
  ASSERT_TRUE(u);
  EXPECT_EQ(*u, (ValueRange{0, 255}));
  EXPECT_FALSE(smallNonNegative(*u));
}

TEST(ValueRange, AddsAndPoolsOfSmallValues) {
  // A residual sum of two requantized relus, and a max pool of a relu: bounds add, pools keep.
  const auto sum = resultRange(R"(
  %0 = clip(%a, a_min=0f, a_max=100f);
  %1 = clip(%b, a_min=0f, a_max=27f);
  %2 = add(%0, %1);
  %3 = nn.max_pool2d(%2, pool_size=[3, 3], strides=[2, 2], padding=[1, 1, 1, 1]);
  cast(%3, dtype="int8"))",
                               "%a: Tensor[(1, 2, 5, 5), int32], %b: Tensor[(1, 2, 5, 5), int32]");
  ASSERT_TRUE(sum);
  EXPECT_EQ(*sum, (ValueRange{0, 127}));
  // Adding one more overflows the byte: the cast may wrap.
  const auto over = resultRange(R"(
  %0 = clip(%a, a_min=0f, a_max=100f);
  %1 = clip(%b, a_min=0f, a_max=28f);
  cast(add(%0, %1), dtype="int8"))",
                                "%a: Tensor[(4), int32], %b: Tensor[(4), int32]");
  ASSERT_TRUE(over);
  EXPECT_FALSE(smallNonNegative(*over));
}

TEST(ValueRange, OnlyByteTensorsAreSmallNonNegativeBytes) {
  const Var x = var("x", tensorType({4}, DataType::int32()));
  const Expr clipped =
      callOp("clip", {x}, {{"a_min", AttrValue::floating(0)}, {"a_max", AttrValue::floating(127)}});
  const IRModule m = inferTypes(IRModule::fromExpr(makeFunction(
      {x}, tuple({clipped, callOp("cast", {clipped}, {{"dtype", AttrValue::string("int8")}})}))));
  const auto* fields = m.main()->body->as<TupleNode>();
  ASSERT_TRUE(fields);
  RangeAnalyzer ranges;
  // The int32 clip lies in [0, 127] but is not a byte tensor; its int8 cast is.
  EXPECT_EQ(ranges.rangeOf(fields->fields[0]), (ValueRange{0, 127}));
  EXPECT_FALSE(ranges.smallNonNegativeBytes(fields->fields[0]));
  EXPECT_TRUE(ranges.smallNonNegativeBytes(fields->fields[1]));
}

TEST(ValueRange, SmallConstantsAreScanned) {
  const Var x = var("x", tensorType({3}, DataType::int32()));
  NDArray c = NDArray::empty({3}, DataType::int32());
  for (int i = 0; i < 3; ++i) c.setInt(i, 5 + i);
  const IRModule m = inferTypes(
      IRModule::fromExpr(makeFunction({x}, callOp("add", {callOp("nn.relu", {x}), constant(c)}))));
  RangeAnalyzer ranges({{x.get(), ValueRange{0, 10}}});
  EXPECT_EQ(ranges.rangeOf(m.main()->body), (ValueRange{5, 17}));
  // A parameter the analyzer was told nothing of spans its dtype: its relu plus 7 may overflow
  // int32 and wrap, so the sum spans int32 too.
  RangeAnalyzer unknown;
  EXPECT_EQ(unknown.rangeOf(m.main()->body), rangeOfDtype(DataType::int32()));
}

TEST(ValueRange, LetsAndFunctionLiteralsCarryTheirValuesRanges) {
  // A fused primitive function called on a relu: its parameter gets the argument's range.
  const auto r = resultRange(R"(
  let %y = nn.relu(%x);
  %0 = fn (%p0: Tensor[(1, 8), int32], Primitive=1) {
    %1 = clip(%p0, a_min=-50f, a_max=90f);
    cast(%1, dtype="int8")
  };
  %0(%y))",
                             kInt32Data);
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, (ValueRange{0, 90}));
}

TEST(ValueRange, AChainOfAHundredThousandOpsIsAnalysedWithoutRecursion) {
  const Var x = var("x", tensorType({2}, DataType::int8()));
  Expr e =
      callOp("clip", {x}, {{"a_min", AttrValue::floating(0)}, {"a_max", AttrValue::floating(9)}});
  for (int i = 0; i < 100000; ++i) e = callOp(i % 2 ? "copy" : "nn.relu", {e});
  const IRModule m = inferTypes(IRModule::fromExpr(makeFunction({x}, e)));
  RangeAnalyzer ranges;
  EXPECT_EQ(ranges.rangeOf(m.main()->body), (ValueRange{0, 9}));
}

}  // namespace
}  // namespace tessera::relay
