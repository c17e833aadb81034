// ONNX importer, elementwise operators and reductions: imported graphs run by the reference
// interpreter against values computed here with the C library or by hand.
#include <cmath>
#include <functional>
#include <limits>

#include <gtest/gtest.h>

#include "onnx_test_util.h"

namespace tessera::test {
namespace {

struct UnaryCase {
  const char* op;
  std::function<double(double)> ref;
};

TEST(OnnxMath, UnaryOperatorsMatchTheCLibrary) {
  const std::vector<double> x = {0.25, 0.5, 1.5, 3.0};
  const UnaryCase cases[] = {
      {"Relu", [](double v) { return std::max(v - 1, 0.0); }},
      {"Sigmoid", [](double v) { return 1 / (1 + std::exp(-(v - 1))); }},
      {"Tanh", [](double v) { return std::tanh(v - 1); }},
      {"Erf", [](double v) { return std::erf(v - 1); }},
      {"Exp", [](double v) { return std::exp(v - 1); }},
      {"Neg", [](double v) { return -(v - 1); }},
      {"Abs", [](double v) { return std::abs(v - 1); }},
      {"Reciprocal", [](double v) { return 1 / (v - 1); }},
      {"Floor", [](double v) { return std::floor(v - 1); }},
  };
  for (const UnaryCase& c : cases) {
    // x - 1 first, so negative inputs are covered too.
    OnnxGraph g(13);
    g.input("x", {4}).initializer("one", f32({}, {1}));
    g.node("Sub", {"x", "one"}, {"t"});
    g.node(c.op, {"t"}, {"y"});
    g.output("y");
    std::vector<double> want;
    for (double v : x) want.push_back(c.ref(v));
    EXPECT_TRUE(allClose(runOnnx1(g, {f32({4}, x)}), f32({4}, want))) << c.op;
  }
  for (const char* op : {"Log", "Sqrt"}) {
    OnnxGraph g(13);
    g.input("x", {4});
    g.node(op, {"x"}, {"y"});
    g.output("y");
    std::vector<double> want;
    for (double v : x) want.push_back(op[0] == 'L' ? std::log(v) : std::sqrt(v));
    EXPECT_TRUE(allClose(runOnnx1(g, {f32({4}, x)}), f32({4}, want))) << op;
  }
}

TEST(OnnxMath, BroadcastArithmetic) {
  const std::vector<double> a = {1, 2, 3, 4, 5, 6}, b = {2, 4, 8};
  struct Case {
    const char* op;
    std::function<double(double, double)> ref;
  } cases[] = {{"Add", std::plus<double>()},
               {"Sub", std::minus<double>()},
               {"Mul", std::multiplies<double>()},
               {"Div", std::divides<double>()},
               {"Pow", [](double x, double y) { return std::pow(x, y); }}};
  for (const Case& c : cases) {
    OnnxGraph g(13);
    g.input("a", {2, 3}).initializer("b", f32({3}, b));
    g.node(c.op, {"a", "b"}, {"y"});
    g.output("y");
    std::vector<double> want;
    for (int i = 0; i < 6; ++i) want.push_back(c.ref(a[i], b[i % 3]));
    EXPECT_TRUE(allClose(runOnnx1(g, {f32({2, 3}, a)}), f32({2, 3}, want))) << c.op;
  }
}

// Pow's exponent may have another type (ONNX T1/T2). ONNX computes np.power(x, y).astype(x.dtype):
// an integer base with a float exponent is computed in floating point and truncated.
TEST(OnnxMath, PowWithMixedTypes) {
  OnnxGraph g(15);
  g.input("xi", {4}, ::onnx::TensorProto::INT32)
      .input("yf", {4})
      .input("xl", {2}, ::onnx::TensorProto::INT64)
      .input("yl", {2}, ::onnx::TensorProto::INT64)
      .input("xf", {2});
  g.node("Pow", {"xi", "yf"}, {"int_float"});
  g.node("Pow", {"xl", "yl"}, {"int_int"});
  g.node("Pow", {"xf", "yl"}, {"float_int"});
  g.output("int_float").output("int_int").output("float_int");
  relay::Value v =
      runOnnx(g, {tensorOf({4}, DataType::int32(), {4, 9, 2, 8}), f32({4}, {0.5, 1.5, -1, 2.5}),
                  i64({2}, {2, -3}), i64({2}, {10, 3}), f32({2}, {1.5, -2})});
  EXPECT_TRUE(
      allClose(v.fields()[0].tensor(), tensorOf({4}, DataType::int32(), {2, 27, 0, 181}), 0, 0));
  EXPECT_TRUE(allClose(v.fields()[1].tensor(), i64({2}, {1024, -27}), 0, 0));
  EXPECT_TRUE(allClose(v.fields()[2].tensor(), f32({2}, {57.6650390625, -8})));
}

TEST(OnnxMath, VariadicMaxMinSum) {
  OnnxGraph g(13);
  g.input("a", {3}).input("b", {3}).input("c", {1});
  g.node("Max", {"a", "b", "c"}, {"max"});
  g.node("Min", {"a", "b", "c"}, {"min"});
  g.node("Sum", {"a", "b", "c"}, {"sum"});
  g.output("max").output("min").output("sum");
  relay::Value v = runOnnx(g, {f32({3}, {1, 5, -2}), f32({3}, {3, 0, -4}), f32({1}, {2})});
  EXPECT_TRUE(allClose(v.fields()[0].tensor(), f32({3}, {3, 5, 2})));
  EXPECT_TRUE(allClose(v.fields()[1].tensor(), f32({3}, {1, 0, -4})));
  EXPECT_TRUE(allClose(v.fields()[2].tensor(), f32({3}, {6, 7, -4})));
}

TEST(OnnxMath, ClipInputFormWithOneOrTwoBounds) {
  OnnxGraph g(13);
  g.input("x", {4}).initializer("lo", f32({}, {-1})).initializer("hi", f32({}, {2}));
  g.node("Clip", {"x", "lo", "hi"}, {"both"});
  g.node("Clip", {"x", "", "hi"}, {"upper"});
  g.node("Clip", {"x"}, {"none"});
  g.output("both").output("upper").output("none");
  relay::Value v = runOnnx(g, {f32({4}, {-3, 0.5, 1.5, 7})});
  EXPECT_TRUE(allClose(v.fields()[0].tensor(), f32({4}, {-1, 0.5, 1.5, 2})));
  EXPECT_TRUE(allClose(v.fields()[1].tensor(), f32({4}, {-3, 0.5, 1.5, 2})));
  EXPECT_TRUE(allClose(v.fields()[2].tensor(), f32({4}, {-3, 0.5, 1.5, 7})));
}

TEST(OnnxMath, LeakyReluAndGeluPatternFromErf) {
  OnnxGraph g(13);
  g.input("x", {3})
      .initializer("sqrt2", f32({}, {std::sqrt(2.0)}))
      .initializer("one", f32({}, {1}))
      .initializer("half", f32({}, {0.5}));
  g.node("LeakyRelu", {"x"}, {"lr"}).f("alpha", 0.1f);
  // Gelu as exported by PyTorch: 0.5 * x * (1 + erf(x / sqrt(2))).
  g.node("Div", {"x", "sqrt2"}, {"d"});
  g.node("Erf", {"d"}, {"e"});
  g.node("Add", {"e", "one"}, {"p"});
  g.node("Mul", {"x", "p"}, {"m"});
  g.node("Mul", {"m", "half"}, {"gelu"});
  g.output("lr").output("gelu");
  const std::vector<double> x = {-2, 0.5, 3};
  relay::Value v = runOnnx(g, {f32({3}, x)});
  std::vector<double> gelu;
  for (double t : x) gelu.push_back(0.5 * t * (1 + std::erf(t / std::sqrt(2.0))));
  EXPECT_TRUE(allClose(v.fields()[0].tensor(), f32({3}, {-0.2, 0.5, 3})));
  EXPECT_TRUE(allClose(v.fields()[1].tensor(), f32({3}, gelu)));
}

TEST(OnnxMath, ComparisonsWhereNotAndCast) {
  OnnxGraph g(13);
  g.input("a", {4}).input("b", {4});
  g.node("Less", {"a", "b"}, {"lt"});
  g.node("Greater", {"a", "b"}, {"gt"});
  g.node("Equal", {"a", "b"}, {"eq"});
  g.node("Not", {"eq"}, {"ne"});
  g.node("Where", {"lt", "a", "b"}, {"min"});
  g.node("Cast", {"gt"}, {"gt_f"}).i("to", ::onnx::TensorProto::FLOAT);
  g.node("Cast", {"ne"}, {"ne_i"}).i("to", ::onnx::TensorProto::INT64);
  g.output("min").output("gt_f").output("ne_i");
  relay::Value v = runOnnx(g, {f32({4}, {1, 5, 3, 0}), f32({4}, {2, 4, 3, -1})});
  EXPECT_TRUE(allClose(v.fields()[0].tensor(), f32({4}, {1, 4, 3, -1})));
  EXPECT_TRUE(allClose(v.fields()[1].tensor(), f32({4}, {0, 1, 0, 1})));
  EXPECT_TRUE(allClose(v.fields()[2].tensor(), i64({4}, {1, 1, 0, 1}), 0, 0));
}

TEST(OnnxMath, ReduceMeanSumMaxWithAttributeAndInputAxes) {
  const std::vector<double> x = {1, 2, 3, 4, 5, 6};
  OnnxGraph g(13);
  g.input("x", {2, 3}).initializer("axes", i64({1}, {1}));
  g.node("ReduceMean", {"x"}, {"mean"}).ints("axes", {0});
  g.node("ReduceSum", {"x", "axes"}, {"sum"}).i("keepdims", 0);
  g.node("ReduceMax", {"x"}, {"max"}).i("keepdims", 0);
  g.output("mean").output("sum").output("max");
  relay::Value v = runOnnx(g, {f32({2, 3}, x)});
  EXPECT_TRUE(allClose(v.fields()[0].tensor(), f32({1, 3}, {2.5, 3.5, 4.5})));
  EXPECT_TRUE(allClose(v.fields()[1].tensor(), f32({2}, {6, 15})));
  EXPECT_TRUE(allClose(v.fields()[2].tensor(), f32({}, {6})));
}

TEST(OnnxMath, ReduceSumOpset11AttributeForm) {
  OnnxGraph g(11);
  g.input("x", {2, 3});
  g.node("ReduceSum", {"x"}, {"y"}).ints("axes", {-1});
  g.output("y");
  EXPECT_TRUE(allClose(runOnnx1(g, {f32({2, 3}, iota(6))}), f32({2, 1}, {3, 12})));
}

TEST(OnnxMath, IdentityAndArgMax) {
  OnnxGraph g(13);
  g.input("x", {2, 3});
  g.node("Identity", {"x"}, {"id"});
  g.node("ArgMax", {"id"}, {"am"}).i("axis", 1).i("keepdims", 0);
  g.output("am");
  EXPECT_TRUE(allClose(runOnnx1(g, {f32({2, 3}, {1, 9, 2, 7, 0, 3})}), i64({2}, {1, 0}), 0, 0));
}

}  // namespace
}  // namespace tessera::test

namespace tessera::test {
namespace {

// The exponential activations against their formulas, on both sides of zero and at large inputs
// (where a naive softplus would overflow).
TEST(OnnxMath, ExponentialActivations) {
  OnnxGraph g(13);
  g.input("x", {6});
  g.node("Elu", {"x"}, {"elu"}).f("alpha", 0.5f);
  g.node("Selu", {"x"}, {"selu"});
  g.node("Celu", {"x"}, {"celu"}).f("alpha", 2.0f);
  g.node("Softplus", {"x"}, {"softplus"});
  g.node("Softsign", {"x"}, {"softsign"});
  g.node("Mish", {"x"}, {"mish"});
  g.node("ThresholdedRelu", {"x"}, {"trelu"}).f("alpha", 0.5f);
  g.output("elu").output("selu").output("celu").output("softplus").output("softsign");
  g.output("mish").output("trelu");
  const std::vector<double> x = {-3, -0.5, 0, 0.25, 2, 100};
  relay::Value v = runOnnx(g, {f32({6}, x)});
  auto expect = [&](size_t output, double (*f)(double)) {
    std::vector<double> want;
    for (double t : x) want.push_back(f(t));
    EXPECT_TRUE(allClose(v.fields()[output].tensor(), f32({6}, want))) << "output " << output;
  };
  expect(0, [](double t) { return t < 0 ? 0.5 * (std::exp(t) - 1) : t; });
  expect(1, [](double t) {
    return 1.05070102214813232421875 * (t <= 0 ? 1.67326319217681884765625 * (std::exp(t) - 1) : t);
  });
  expect(2, [](double t) { return std::max(0.0, t) + std::min(0.0, 2 * (std::exp(t / 2) - 1)); });
  expect(3, [](double t) { return t > 30 ? t : std::log1p(std::exp(t)); });
  expect(4, [](double t) { return t / (1 + std::abs(t)); });
  expect(5, [](double t) { return t * std::tanh(t > 30 ? t : std::log1p(std::exp(t))); });
  expect(6, [](double t) { return t > 0.5 ? t : 0.0; });
}

}  // namespace
}  // namespace tessera::test

namespace tessera::test {
namespace {

// ReduceL1, ReduceLogSum and a ReduceLogSumExp that stays finite where exp alone overflows.
TEST(OnnxMath, LogAndL1Reductions) {
  OnnxGraph g(13);
  g.input("x", {2, 3});
  g.node("ReduceL1", {"x"}, {"l1"}).ints("axes", {1}).i("keepdims", 0);
  g.node("ReduceLogSum", {"x"}, {"ls"}).ints("axes", {1}).i("keepdims", 0);
  g.node("ReduceLogSumExp", {"x"}, {"lse"}).ints("axes", {1});
  g.output("l1").output("ls").output("lse");
  relay::Value v = runOnnx(g, {f32({2, 3}, {1, 2, 3, 1000, 1000, 1000})});
  EXPECT_TRUE(allClose(v.fields()[0].tensor(), f32({2}, {6, 3000})));
  EXPECT_TRUE(allClose(v.fields()[1].tensor(), f32({2}, {std::log(6.0), std::log(3000.0)})));
  const double lse0 = std::log(std::exp(1.0) + std::exp(2.0) + std::exp(3.0));
  EXPECT_TRUE(allClose(v.fields()[2].tensor(), f32({2, 1}, {lse0, 1000 + std::log(3.0)})));
}

}  // namespace
}  // namespace tessera::test

namespace tessera::test {
namespace {

TEST(OnnxMath, TrigonometricShrinkIsInfAndCastLike) {
  OnnxGraph g(15);
  g.input("x", {4}).initializer("like", f32({1}, {0}));
  g.input("i", {2}, ::onnx::TensorProto::INT32);
  g.node("Tan", {"x"}, {"tan"});
  g.node("Sinh", {"x"}, {"sinh"});
  g.node("Cosh", {"x"}, {"cosh"});
  g.node("Shrink", {"x"}, {"shrink"}).f("lambd", 0.5f).f("bias", 0.25f);
  g.node("IsInf", {"x"}, {"posinf"}).i("detect_negative", 0);
  g.node("CastLike", {"i", "like"}, {"cast"});
  g.output("tan").output("sinh").output("cosh").output("shrink").output("posinf").output("cast");
  const float inf = std::numeric_limits<float>::infinity();
  relay::Value v =
      runOnnx(g, {f32({4}, {-1, 0.25, 1, 2}), tensorOf({2}, DataType::int32(), {3, -7})});
  EXPECT_TRUE(allClose(v.fields()[0].tensor(),
                       f32({4}, {std::tan(-1.0), std::tan(0.25), std::tan(1.0), std::tan(2.0)})));
  EXPECT_TRUE(allClose(v.fields()[1].tensor(), f32({4}, {std::sinh(-1.0), std::sinh(0.25),
                                                         std::sinh(1.0), std::sinh(2.0)})));
  EXPECT_TRUE(allClose(v.fields()[2].tensor(), f32({4}, {std::cosh(-1.0), std::cosh(0.25),
                                                         std::cosh(1.0), std::cosh(2.0)})));
  EXPECT_TRUE(allClose(v.fields()[3].tensor(), f32({4}, {-0.75, 0, 0.75, 1.75})));
  EXPECT_TRUE(allClose(v.fields()[5].tensor(), f32({2}, {3, -7})));
  relay::Value inf4 =
      runOnnx(g, {f32({4}, {inf, -inf, 0, 1}), tensorOf({2}, DataType::int32(), {0, 0})});
  const NDArray& posinf = inf4.fields()[4].tensor();
  EXPECT_EQ(posinf.dtype(), DataType::boolType());
  EXPECT_EQ(posinf.getInt(0), 1);
  EXPECT_EQ(posinf.getInt(1), 0);  // detect_negative=0
  EXPECT_EQ(posinf.getInt(2), 0);
}

}  // namespace
}  // namespace tessera::test
