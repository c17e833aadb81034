// NarrowFixedPointMultiply: fixed_point_multiply's int64 vector form becomes int32 arithmetic when
// the operand's bounds prove it exact, or, on a target with FMA and for an operand of few values,
// a float multiply-add checked exact on each of them. Each rewritten function is run on every
// operand value of its range (and past it, where a clip bounds it) and compared bit for bit with
// the int64 form.
#include <gtest/gtest.h>

#include <cmath>

#include "runtime/ndarray.h"
#include "tir/eval/eval.h"
#include "tir/transform/transform.h"
#include "transform_test_util.h"

namespace tessera::test {
namespace {

using namespace tir;
namespace tf = tir::transform;

constexpr int kLanes = 16;

PrimExpr vec(int64_t v, DataType t) {
  return broadcast(intImm(v, t), kLanes);
}

// fixed_point_multiply as topi lowers it, on 16 lanes: cast(int32, (int64(x) * m + r) >> s).
PrimExpr fixedPoint(const PrimExpr& x, int64_t m, int64_t s) {
  const DataType i64 = DataType::int64().withLanes(kLanes);
  PrimExpr t = mul(cast(i64, x), vec(m, DataType::int64()));
  t = add(t, vec(int64_t{1} << (s - 1), DataType::int64()));
  t = call(i64, "tir.shift_right", {t, vec(s, DataType::int64())});
  return cast(DataType::int32().withLanes(kLanes), t);
}

// B[16i : 16i+16] = body(A[16i : 16i+16]) over n elements (a multiple of 16).
PrimFunc vectorFunc(int64_t n, DataType in, const std::function<PrimExpr(PrimExpr)>& body) {
  Buffer a = constBuffer("A", {n}, in), b = constBuffer("B", {n}, DataType::int32());
  Var i = makeVar("i");
  PrimExpr idx = ramp(i * kLanes, intImm(1), kLanes);
  return makePrimFunc("main", {a, b},
                      loop(i, n / kLanes, bufferStore(b, body(bufferLoad(a, {idx})), {idx})));
}

// Builds the function over A = lo, lo+1, ..., hi (padded to whole vectors), runs it before and
// after the pass and compares B exactly.
// `f` as a kernel compiled for `target` (the driver attaches it before lowering).
PrimFunc forTarget(const PrimFunc& f, const std::string& target) {
  auto copy = std::make_shared<PrimFuncNode>(*f);
  copy->attrs.set("target", AttrValue::string(target));
  return copy;
}

constexpr const char* kFmaTarget = "llvm -mcpu=znver4 -mattr=+avx512f,+fma";

// Builds the function over A = `values` (of type `in`, padded to whole vectors), runs it before
// and after the pass and compares B exactly.
::testing::AssertionResult sameOnOperands(const std::function<PrimExpr(PrimExpr)>& body,
                                          DataType in, std::vector<int64_t> values,
                                          const std::string& target) {
  while (values.size() % kLanes != 0) values.push_back(values.back());
  const auto n = static_cast<int64_t>(values.size());
  PrimFunc f = vectorFunc(n, in, body);
  if (!target.empty()) f = forTarget(f, target);
  PrimFunc g = tf::narrowFixedPointMultiply(f);
  NDArray a = NDArray::empty({n}, in);
  for (int64_t i = 0; i < n; ++i) a.setInt(i, values[static_cast<size_t>(i)]);
  NDArray want = NDArray::empty({n}, DataType::int32()), got = want.copy();
  evaluate(f, {a, want});
  evaluate(g, {a, got});
  for (int64_t i = 0; i < n; ++i)
    if (want.getInt(i) != got.getInt(i))
      return ::testing::AssertionFailure() << "x = " << a.getInt(i) << ": int64 form "
                                           << want.getInt(i) << ", rewritten " << got.getInt(i);
  return ::testing::AssertionSuccess();
}

// Every operand value lo, lo+1, ..., hi.
::testing::AssertionResult sameOnRange(const std::function<PrimExpr(PrimExpr)>& body, DataType in,
                                       int64_t lo, int64_t hi, const std::string& target = "") {
  std::vector<int64_t> values;
  for (int64_t x = lo; x <= hi; ++x) values.push_back(x);
  return sameOnOperands(body, in, std::move(values), target);
}

// The given int32 operand values.
::testing::AssertionResult sameOnValues(const std::function<PrimExpr(PrimExpr)>& body,
                                        std::vector<int64_t> values, const std::string& target) {
  return sameOnOperands(body, DataType::int32(), std::move(values), target);
}

bool mentionsInt64(const PrimFunc& f) {
  return script(f).find("int64") != std::string::npos;
}

TEST(NarrowFixedPointMultiply, ClippedOperandIsComputedInInt32) {
  // MobileNetV2's relu6 in the integer domain before the requantizing multiply.
  auto body = [](PrimExpr x) {
    return fixedPoint(min(max(x, vec(0, DataType::int32())), vec(7867, DataType::int32())),
                      1118644352, 36);
  };
  PrimFunc f = vectorFunc(16, DataType::int32(), body);
  PrimFunc g = tf::narrowFixedPointMultiply(f);
  EXPECT_TRUE(mentionsInt64(f));
  EXPECT_FALSE(mentionsInt64(g)) << script(g);
  // The split keeps 13 low bits of the multiplier apart: 1118644352 = 136553 * 2^13 + 2176.
  EXPECT_NE(script(g).find("T.Broadcast(136553, 16)"), std::string::npos) << script(g);
  EXPECT_TRUE(sameOnRange(body, DataType::int32(), -20000, 20000));
}

TEST(NarrowFixedPointMultiply, WidenedInt8OperandsForManyScales) {
  // The residual adds requantize int8 values: every multiplier and shift gives the int64 result.
  uint64_t state = 12345;
  for (int trial = 0; trial < 40; ++trial) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    const int64_t m = (int64_t{1} << 30) + static_cast<int64_t>((state >> 20) % (1u << 30));
    const int64_t s = 25 + static_cast<int64_t>((state >> 8) % 20);
    auto body = [&](PrimExpr x) {
      return fixedPoint(cast(DataType::int32().withLanes(kLanes), x), m, s);
    };
    PrimFunc f = vectorFunc(16, DataType::int8(), body);
    PrimFunc g = tf::narrowFixedPointMultiply(f);
    EXPECT_FALSE(mentionsInt64(g)) << "m = " << m << ", s = " << s << "\n" << script(g);
    EXPECT_TRUE(sameOnRange(body, DataType::int8(), -128, 127)) << "m = " << m << ", s = " << s;
  }
}

TEST(NarrowFixedPointMultiply, SignedClipRangesAtTheLimitOfTheSplit) {
  // |x| just under 2^15 still splits; the values at both ends of the clip are compared too.
  for (int64_t bound : {int64_t{1000}, int64_t{20000}, int64_t{32000}}) {
    auto body = [&](PrimExpr x) {
      return fixedPoint(min(max(x, vec(-bound, DataType::int32())), vec(bound, DataType::int32())),
                        2040109466, 38);
    };
    PrimFunc f = vectorFunc(16, DataType::int32(), body);
    PrimFunc g = tf::narrowFixedPointMultiply(f);
    EXPECT_FALSE(mentionsInt64(g)) << bound;
    EXPECT_TRUE(sameOnRange(body, DataType::int32(), -bound - 50, bound + 50)) << bound;
  }
}

bool mentionsFma(const PrimFunc& f) {
  return script(f).find("fma") != std::string::npos;
}

TEST(NarrowFixedPointMultiply, ClippedOperandTakesTheFloatFormWithFma) {
  // The same relu6 epilogue on an FMA target: 7868 operand values, each checked; the split's six
  // operations become a conversion, a multiply-add and a subtract.
  auto body = [](PrimExpr x) {
    return fixedPoint(min(max(x, vec(0, DataType::int32())), vec(7867, DataType::int32())),
                      1118644352, 36);
  };
  PrimFunc g =
      tf::narrowFixedPointMultiply(forTarget(vectorFunc(16, DataType::int32(), body), kFmaTarget));
  EXPECT_TRUE(mentionsFma(g)) << script(g);
  EXPECT_FALSE(mentionsInt64(g)) << script(g);
  EXPECT_TRUE(sameOnRange(body, DataType::int32(), -20000, 20000, kFmaTarget));
  // Without FMA (or without a target) the integer split stays.
  const PrimFunc noFma = tf::narrowFixedPointMultiply(
      forTarget(vectorFunc(16, DataType::int32(), body), "llvm -mcpu=x86-64 -mattr=+sse2"));
  EXPECT_FALSE(mentionsFma(noFma)) << script(noFma);
  EXPECT_NE(script(noFma).find("T.Broadcast(136553, 16)"), std::string::npos);
}

TEST(NarrowFixedPointMultiply, FloatFormIsExactForManyScalesAndRanges) {
  // Random multipliers, shifts and clip ranges (the float form where the check passes, the
  // split or the int64 form where it does not): always the int64 form's values.
  uint64_t state = 777;
  int floatForms = 0;
  for (int trial = 0; trial < 30; ++trial) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    const int64_t m = (int64_t{1} << 30) + static_cast<int64_t>((state >> 20) % (1u << 30));
    const int64_t s = 31 + static_cast<int64_t>((state >> 8) % 8);
    const int64_t hi = 100 + static_cast<int64_t>((state >> 40) % 30000);
    const int64_t lo = trial % 3 == 0 ? -hi : 0;
    auto body = [&](PrimExpr x) {
      return fixedPoint(min(max(x, vec(lo, DataType::int32())), vec(hi, DataType::int32())), m, s);
    };
    const PrimFunc g = tf::narrowFixedPointMultiply(
        forTarget(vectorFunc(16, DataType::int32(), body), kFmaTarget));
    floatForms += mentionsFma(g);
    EXPECT_TRUE(sameOnRange(body, DataType::int32(), lo - 20, hi + 20, kFmaTarget))
        << "m = " << m << ", s = " << s << ", [" << lo << ", " << hi << "]";
  }
  EXPECT_GT(floatForms, 20);  // most scales have an exact float form over such ranges
}

// A linear bottleneck's epilogue: the accumulator is unbounded, the result clipped to int8.
PrimExpr clippedFixedPoint(const PrimExpr& x, int64_t m, int64_t s, int64_t lo, int64_t hi) {
  return min(max(fixedPoint(x, m, s), vec(lo, DataType::int32())), vec(hi, DataType::int32()));
}

// Operand values for a clipped multiply: the extremes of int32, a sweep across the clip's window
// and random values.
std::vector<int64_t> operandValues(int64_t window, uint64_t seed) {
  std::vector<int64_t> v{INT32_MIN,        INT32_MIN + 1, -(int64_t{1} << 24) - 1,
                         int64_t{1} << 24, INT32_MAX - 1, INT32_MAX};
  for (int64_t x = -window; x <= window; x += 7) v.push_back(x);
  for (int i = 0; i < 2000; ++i) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    v.push_back(static_cast<int32_t>(seed >> 32));
  }
  return v;
}

TEST(NarrowFixedPointMultiply, ClippedUnboundedOperandTakesTheClampedFloatForm) {
  // MobileNetV2's 32 -> 16 projection: x is any int32; only the window of x whose result lies in
  // [-127, 127] (about +-17000 here) needs the exact value, and the clamped float form is
  // monotone, so it is checked there and agrees with the int64 form everywhere after the clip.
  auto body = [](PrimExpr x) { return clippedFixedPoint(x, 2061283456, 38, -127, 127); };
  const PrimFunc g =
      tf::narrowFixedPointMultiply(forTarget(vectorFunc(16, DataType::int32(), body), kFmaTarget));
  EXPECT_TRUE(mentionsFma(g)) << script(g);
  EXPECT_FALSE(mentionsInt64(g)) << script(g);
  EXPECT_TRUE(sameOnValues(body, operandValues(20000, 1), kFmaTarget));
  EXPECT_TRUE(sameOnRange(body, DataType::int32(), -18000, 18000, kFmaTarget));
  // Without FMA, or without the clip, the int64 form stays.
  const PrimFunc noFma = tf::narrowFixedPointMultiply(
      forTarget(vectorFunc(16, DataType::int32(), body), "llvm -mcpu=x86-64 -mattr=+sse2"));
  EXPECT_TRUE(mentionsInt64(noFma));
  const PrimFunc unclipped = tf::narrowFixedPointMultiply(forTarget(
      vectorFunc(16, DataType::int32(), [](PrimExpr x) { return fixedPoint(x, 2061283456, 38); }),
      kFmaTarget));
  EXPECT_TRUE(mentionsInt64(unclipped));
}

TEST(NarrowFixedPointMultiply, ClampedFloatFormIsExactForManyScales) {
  uint64_t state = 4242;
  int clamped = 0;
  for (int trial = 0; trial < 24; ++trial) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    const int64_t m = (int64_t{1} << 30) + static_cast<int64_t>((state >> 20) % (1u << 30));
    const int64_t s = 36 + static_cast<int64_t>((state >> 8) % 6);
    const bool relu = trial % 2 == 1;  // a uint8 output clips to [0, 255]
    const int64_t lo = relu ? 0 : -127, hi = relu ? 255 : 127;
    auto body = [&](PrimExpr x) { return clippedFixedPoint(x, m, s, lo, hi); };
    const PrimFunc g = tf::narrowFixedPointMultiply(
        forTarget(vectorFunc(16, DataType::int32(), body), kFmaTarget));
    clamped += mentionsFma(g);
    EXPECT_TRUE(sameOnValues(body, operandValues(hi << (s - 30), state), kFmaTarget))
        << "m = " << m << ", s = " << s << ", [" << lo << ", " << hi << "]";
  }
  EXPECT_GT(clamped, 16);
}

// A relu6 epilogue: the requantizing multiply of the clipped accumulator, clipped to int8.
PrimExpr relu6FixedPoint(const PrimExpr& x, int64_t hi1, int64_t m, int64_t s) {
  return clippedFixedPoint(min(max(x, vec(0, DataType::int32())), vec(hi1, DataType::int32())), m,
                           s, -127, 127);
}

size_t occurrences(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(NarrowFixedPointMultiply, Relu6EpilogueDropsTheClipsItImplies) {
  // MobileNetV2's 960-channel depthwise layer: relu6 is [0, 4434] before the multiply, and
  // f(4434) = 128 >= 127, f(0) = 0 >= -127: the inner upper and the outer lower bound change no
  // result, so the epilogue is max(y, 0), the float multiply and min(., 127).
  auto body = [](PrimExpr x) { return relu6FixedPoint(x, 4434, 1984750848, 36); };
  const PrimFunc g =
      tf::narrowFixedPointMultiply(forTarget(vectorFunc(16, DataType::int32(), body), kFmaTarget));
  const std::string text = script(g);
  EXPECT_TRUE(mentionsFma(g)) << text;
  EXPECT_EQ(text.find("4434"), std::string::npos) << text;
  EXPECT_EQ(text.find("-127"), std::string::npos) << text;
  EXPECT_EQ(occurrences(text, "T.max("), 1u) << text;
  EXPECT_EQ(occurrences(text, "T.min("), 1u) << text;
  EXPECT_TRUE(sameOnValues(body, operandValues(20000, 3), kFmaTarget));
  EXPECT_TRUE(sameOnRange(body, DataType::int32(), -3000, 9000, kFmaTarget));
  // A scale under which the clip's top maps below 127 keeps the inner bound (and the float form
  // of the clipped operand).
  auto wide = [](PrimExpr x) { return relu6FixedPoint(x, 4434, 1984750848, 37); };
  const PrimFunc kept =
      tf::narrowFixedPointMultiply(forTarget(vectorFunc(16, DataType::int32(), wide), kFmaTarget));
  EXPECT_NE(script(kept).find("4434"), std::string::npos) << script(kept);
  EXPECT_TRUE(sameOnValues(wide, operandValues(20000, 4), kFmaTarget));
}

TEST(NarrowFixedPointMultiply, FoldedRelu6ClipsAreExactForManyScales) {
  // Random relu6 bounds and scales around the point where f(hi1) reaches 127: whether or not the
  // clips fold, every operand of int32 gives the int64 form's result.
  uint64_t state = 2026;
  int folded = 0;
  for (int trial = 0; trial < 24; ++trial) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    const int64_t hi1 = 1000 + static_cast<int64_t>((state >> 40) % 9000);
    // m / 2^s near 127 / hi1, from 0.8x to 1.6x of it.
    const int64_t s = 36;
    const double ratio = 0.8 + 0.8 * static_cast<double>((state >> 8) % 1000) / 1000.0;
    const auto m = static_cast<int64_t>(std::ldexp(127.0 / static_cast<double>(hi1) * ratio, s));
    auto body = [&](PrimExpr x) { return relu6FixedPoint(x, hi1, m, s); };
    const PrimFunc g = tf::narrowFixedPointMultiply(
        forTarget(vectorFunc(16, DataType::int32(), body), kFmaTarget));
    folded += script(g).find(std::to_string(hi1)) == std::string::npos;
    EXPECT_TRUE(sameOnValues(body, operandValues(2 * hi1, state), kFmaTarget))
        << "m = " << m << ", s = " << s << ", hi1 = " << hi1;
    EXPECT_TRUE(sameOnRange(body, DataType::int32(), -100, hi1 + 100, kFmaTarget))
        << "m = " << m << ", s = " << s << ", hi1 = " << hi1;
  }
  EXPECT_GT(folded, 6);
  EXPECT_LT(folded, 24);
}

TEST(NarrowFixedPointMultiply, UnboundedOrScalarOperandsKeepTheInt64Form) {
  // An int32 accumulator with no clip may need all 64 bits.
  PrimFunc wide =
      vectorFunc(16, DataType::int32(), [](PrimExpr x) { return fixedPoint(x, 1118644352, 36); });
  EXPECT_EQ(script(tf::narrowFixedPointMultiply(wide)), script(wide));

  // A scalar multiply stays without FMA: one 64-bit imul is cheaper than the split.
  Buffer a = constBuffer("A", {4}, DataType::int8()), b = constBuffer("B", {4}, DataType::int32());
  Var i = makeVar("i");
  PrimExpr x = cast(DataType::int64(), cast(DataType::int32(), bufferLoad(a, {i})));
  PrimExpr t =
      call(DataType::int64(), "tir.shift_right",
           {x * intImm(1118644352, DataType::int64()) + intImm(int64_t{1} << 35, DataType::int64()),
            intImm(36, DataType::int64())});
  PrimFunc scalar =
      makePrimFunc("main", {a, b}, loop(i, 4, bufferStore(b, cast(DataType::int32(), t), {i})));
  EXPECT_EQ(script(tf::narrowFixedPointMultiply(scalar)), script(scalar));
}

// A requantizing residual addition as the generic schedule leaves it, a scalar loop that LLVM
// vectorizes: out = clip(fpm(fpm(a) + b)) over int8 a and b (MobileNetV2's, 56x56 x 24). The inner
// multiply's operand is a widened int8 (the plain float form), the outer one's is bounded by the
// inner's int64 form, read before that is rewritten; its result is clipped. Every (a, b) pair.
TEST(NarrowFixedPointMultiply, ScalarResidualAdditionTakesTheFloatForms) {
  constexpr int64_t n = 256 * 256;
  Buffer a = constBuffer("A", {n}, DataType::int8()), b = constBuffer("B", {n}, DataType::int8());
  Buffer out = constBuffer("C", {n}, DataType::int32());
  Var i = makeVar("i");
  const auto fpm = [](PrimExpr x, int64_t m) {
    PrimExpr t = cast(DataType::int64(), x) * intImm(m, DataType::int64()) +
                 intImm(int64_t{1} << 30, DataType::int64());
    return cast(DataType::int32(),
                call(DataType::int64(), "tir.shift_right", {t, intImm(31, DataType::int64())}));
  };
  const auto widened = [&](const Buffer& buf) {
    return cast(DataType::int32(), bufferLoad(buf, {i}));
  };
  PrimExpr sum = fpm(widened(a), 2494241280) + widened(b);
  PrimExpr body = min(max(fpm(sum, 1467474176), intImm(-127)), intImm(127));
  const PrimFunc f = forTarget(
      makePrimFunc("main", {a, b, out}, loop(i, n, bufferStore(out, body, {i}))), kFmaTarget);
  const PrimFunc g = tf::narrowFixedPointMultiply(f);
  EXPECT_TRUE(mentionsInt64(f));
  EXPECT_FALSE(mentionsInt64(g)) << script(g);
  NDArray x = NDArray::empty({n}, DataType::int8()), y = x.copy();
  for (int64_t k = 0; k < n; ++k) {
    x.setInt(k, k / 256 - 128);
    y.setInt(k, k % 256 - 128);
  }
  NDArray want = NDArray::empty({n}, DataType::int32()), got = want.copy();
  evaluate(f, {x, y, want});
  evaluate(g, {x, y, got});
  for (int64_t k = 0; k < n; ++k)
    ASSERT_EQ(want.getInt(k), got.getInt(k)) << "a = " << x.getInt(k) << ", b = " << y.getInt(k);
}

}  // namespace
}  // namespace tessera::test
