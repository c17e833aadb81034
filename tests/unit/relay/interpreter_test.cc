// The interpreter against hand-computed results, plus its handling of functions, closures, control
// flow and bad inputs.
#include "relay/interp/interpreter.h"

#include <gtest/gtest.h>

#include "relay/builder.h"
#include "support/diagnostic.h"
#include "test_util.h"

namespace tessera::relay {
namespace {

using test::tensorOf;
using test::valuesOf;

AttrValue ints(std::vector<int64_t> v) {
  std::vector<AttrValue> items;
  for (int64_t x : v) items.push_back(AttrValue::integer(x));
  return AttrValue::array(std::move(items));
}

TEST(Interpreter, RunsAnMlpLikeTheHandComputation) {
  // x (1, 3) -> dense(w0 (2, 3)) + b0 -> relu -> dense(w1 (1, 2))
  Var x = var("x", {1, 3});
  Var w0 = var("w0", {2, 3});
  Var b0 = var("b0", {2});
  Var w1 = var("w1", {1, 2});
  Expr h = callOp("nn.relu", {callOp("nn.bias_add", {callOp("nn.dense", {x, w0}), b0})});
  Expr y = callOp("nn.dense", {h, w1});
  Interpreter interp(IRModule::fromExpr(makeFunction({x, w0, b0, w1}, y)));
  NDArray xv = tensorOf({1, 3}, DataType::float32(), {1, 2, 3});
  NDArray w0v = tensorOf({2, 3}, DataType::float32(), {1, 0, -1, 0.5, 0.5, 0.5});
  NDArray b0v = tensorOf({2}, DataType::float32(), {2.5, -2});
  NDArray w1v = tensorOf({1, 2}, DataType::float32(), {2, 3});
  // unit 0: 1 - 3 + 2.5 = 0.5; unit 1: 0.5 * 6 - 2 = 1; y = 2 * 0.5 + 3 * 1 = 4.
  Value out = interp.run({xv, w0v, b0v, w1v});
  EXPECT_EQ(valuesOf(out.tensor()), (std::vector<double>{4}));
}

TEST(Interpreter, ConvBatchNormReluMatchesHandValues) {
  // One 3x3 input channel, one 2x2 filter of ones, no padding: each output is a window sum.
  Var data = var("data", {1, 1, 3, 3});
  Var weight = var("weight", {1, 1, 2, 2});
  Expr conv = callOp("nn.conv2d", {data, weight},
                     {{"channels", AttrValue::integer(1)}, {"kernel_size", ints({2, 2})}});
  // batch_norm with mean 10, var 4 (std 2), gamma 1, beta 0: (x - 10) / 2.
  auto vec = [](double v) { return makeConstant(tensorOf({1}, DataType::float32(), {v})); };
  Expr bn = callOp("nn.batch_norm", {conv, vec(1), vec(0), vec(10), vec(4 - 1e-5)});
  Expr out = callOp("nn.relu", {tupleGetItem(bn, 0)});
  Interpreter interp(IRModule::fromExpr(makeFunction({data, weight}, out)));
  NDArray d = tensorOf({1, 1, 3, 3}, DataType::float32(), {1, 2, 3, 4, 5, 6, 7, 8, 9});
  NDArray w = tensorOf({1, 1, 2, 2}, DataType::float32(), {1, 1, 1, 1});
  Value v = interp.run({d, w});
  // Window sums 12, 16, 24, 28 -> (s - 10) / 2 = 1, 3, 7, 9.
  std::vector<double> got = valuesOf(v.tensor());
  std::vector<double> want = {1, 3, 7, 9};
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-5);
}

TEST(Interpreter, IntegerGraphsAreExact) {
  Var x = var("x", {4}, DataType::int8());
  Expr widened = callOp("cast", {x}, {{"dtype", AttrValue::string("int32")}});
  Expr scaled = callOp("multiply", {widened, scalar(1000, DataType::int32())});
  Expr back = callOp("cast", {scaled}, {{"dtype", AttrValue::string("int8")}});  // wraps
  Interpreter interp(IRModule::fromExpr(makeFunction({x}, back)));
  Value v = interp.run({tensorOf({4}, DataType::int8(), {1, -1, 127, 0})});
  // 1000 mod 256 = 232 -> -24; -1000 -> 24; 127000 mod 256 = 24 -> 24.
  EXPECT_EQ(valuesOf(v.tensor()), (std::vector<double>{-24, 24, 24, 0}));
}

TEST(Interpreter, EvaluatesGlobalsClosuresLetAndIf) {
  IRModule m;
  Var p = var("p", {2});
  m.add("twice", makeFunction({p}, callOp("add", {p, p})));
  Var x = var("x", {2});
  Var c = var("c", scalarType(DataType::boolType()));
  Var t = var("t", {2});
  Var q = var("q", {2});
  // A nested function that captures x.
  Function addX = makeFunction({q}, callOp("add", {q, x}));
  Expr body = makeLet(t, makeCall(m.globalVar("twice"), {x}),
                      makeIf(c, makeCall(addX, {t}), callOp("negative", {t})));
  m.add("main", makeFunction({x, c}, body));
  Interpreter interp(m);
  NDArray xv = tensorOf({2}, DataType::float32(), {1, 2});
  NDArray yes = NDArray::scalarInt(1, DataType::boolType());
  NDArray no = NDArray::scalarInt(0, DataType::boolType());
  EXPECT_EQ(valuesOf(interp.run({xv, yes}).tensor()), (std::vector<double>{3, 6}));
  EXPECT_EQ(valuesOf(interp.run({xv, no}).tensor()), (std::vector<double>{-2, -4}));
}

TEST(Interpreter, ReturnsTuples) {
  Var x = var("x", {2});
  Interpreter interp(IRModule::fromExpr(makeFunction({x}, tuple({x, callOp("negative", {x})}))));
  Value v = interp.run({tensorOf({2}, DataType::float32(), {1, -1})});
  ASSERT_TRUE(v.isTuple());
  EXPECT_EQ(valuesOf(v.fields()[1].tensor()), (std::vector<double>{-1, 1}));
}

TEST(Interpreter, RejectsWrongInputsNamingTheParameter) {
  Var x = var("x", {2, 2});
  Interpreter interp(IRModule::fromExpr(makeFunction({x}, callOp("nn.relu", {x}))));
  try {
    interp.run({NDArray::empty({3, 2}, DataType::float32())});
    FAIL() << "expected an input error";
  } catch (const DiagnosticError& e) {
    EXPECT_NE(e.diagnostic().message.find("%x"), std::string::npos);
    EXPECT_NE(e.diagnostic().message.find("Tensor[(2, 2), float32]"), std::string::npos);
    EXPECT_NE(e.diagnostic().message.find("Tensor[(3, 2), float32]"), std::string::npos);
  }
  EXPECT_THROW(interp.run({NDArray::empty({2, 2}, DataType::float64())}), DiagnosticError);
  EXPECT_THROW(interp.run({}), DiagnosticError);
}

TEST(Interpreter, MissingConstantValueIsAClearError) {
  Var x = var("x", {2});
  Expr c = makeConstantWithoutData(tensorType({2}, DataType::float32()));
  Interpreter interp(IRModule::fromExpr(makeFunction({x}, callOp("add", {x, c}))));
  try {
    interp.run({NDArray::empty({2}, DataType::float32())});
    FAIL() << "expected a missing-constant error";
  } catch (const DiagnosticError& e) {
    EXPECT_EQ(e.diagnostic().code, "missing_constant");
    EXPECT_NE(e.diagnostic().message.find("Tensor[(2), float32]"), std::string::npos);
  }
}

TEST(Interpreter, EvaluatesClosedExpressions) {
  Expr e = callOp("add", {scalar(2), scalar(3)});
  Value v = evaluateClosed(e);
  EXPECT_EQ(v.tensor().getFloat(0), 5);
}

}  // namespace
}  // namespace tessera::relay
