// Tensor ops, part 1: elementwise (unary, binary), reductions, cast/clip/fixed point, annotations.
// Reference kernels are checked against hand-computed values; every constraint label of
// docs/spec/ops/tensor.md for these ops has a negative test named after it. Shape and selection
// ops are in op_tensor_transform_test.cc.
#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "test_util.h"
#include "relay/op/op_common.h"
#include "relay/op/tensor.h"
#include "support/diagnostic.h"

namespace tessera::relay {
namespace {

const DataType kF32 = DataType::float32();
const DataType kI8 = DataType::int8();
const DataType kI32 = DataType::int32();
const DataType kBool = DataType::boolType();
const double kNan = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

NDArray t(const std::vector<int64_t>& shape, DataType dtype, const std::vector<double>& values) {
  return test::tensorOf(shape, dtype, values);
}
NDArray eval(const std::string& op, std::vector<Value> args, Attrs attrs = nullptr) {
  return evalOp(op, args, std::move(attrs)).tensor();
}
std::vector<double> values(const NDArray& a) {
  return test::valuesOf(a);
}
std::string typeStr(const std::string& op, const std::vector<Type>& args, Attrs attrs = nullptr) {
  return typeToString(inferCallType(op, args, std::move(attrs)));
}

using test::diagnosticOf;
Diagnostic typeError(const std::string& op, const std::vector<Type>& args, Attrs attrs = nullptr) {
  return diagnosticOf([&] { inferCallType(op, args, attrs); });
}
// Checks the code and that the message mentions each of `parts` (shapes, names).
void expectDiag(const Diagnostic& d, const std::string& code,
                const std::vector<std::string>& parts) {
  EXPECT_EQ(d.code, code) << d.str();
  for (const std::string& p : parts) EXPECT_NE(d.message.find(p), std::string::npos) << d.str();
}

// --- unary ---------------------------------------------------------------------------------------

TEST(OpTensorUnary, FloatFunctionsMatchHandValues) {
  const NDArray x = t({4}, kF32, {-1, 0, 0.5, 4});
  EXPECT_TRUE(test::allClose(eval("negative", {x}), t({4}, kF32, {1, 0, -0.5, -4})));
  EXPECT_TRUE(
      test::allClose(eval("exp", {x}), t({4}, kF32, {0.36787944, 1, 1.64872127, 54.59815})));
  EXPECT_TRUE(
      test::allClose(eval("sqrt", {t({3}, kF32, {0, 4, 2.25})}), t({3}, kF32, {0, 2, 1.5})));
  EXPECT_TRUE(test::allClose(eval("rsqrt", {t({2}, kF32, {4, 0.25})}), t({2}, kF32, {0.5, 2})));
  EXPECT_TRUE(
      test::allClose(eval("log", {t({2}, kF32, {1, std::exp(2.0)})}), t({2}, kF32, {0, 2})));
  EXPECT_TRUE(test::allClose(eval("sigmoid", {x}),
                             t({4}, kF32, {0.26894142, 0.5, 0.62245933, 0.98201379})));
  EXPECT_TRUE(
      test::allClose(eval("tanh", {x}), t({4}, kF32, {-0.76159416, 0, 0.46211716, 0.99932930})));
  EXPECT_TRUE(test::allClose(eval("erf", {x}), t({4}, kF32, {-0.84270079, 0, 0.52049988, 1.0})));
  EXPECT_TRUE(test::allClose(eval("abs", {x}), t({4}, kF32, {1, 0, 0.5, 4})));
  const NDArray y = t({4}, kF32, {-1.5, -0.2, 0.2, 1.5});
  EXPECT_EQ(values(eval("floor", {y})), (std::vector<double>{-2, -1, 0, 1}));
  EXPECT_EQ(values(eval("ceil", {y})), (std::vector<double>{-1, -0.0, 1, 2}));
  EXPECT_EQ(values(eval("trunc", {y})), (std::vector<double>{-1, 0, 0, 1}));
  EXPECT_EQ(values(eval("sign", {y})), (std::vector<double>{-1, -1, 1, 1}));
}

TEST(OpTensorUnary, RoundIsHalfAwayFromZero) {
  const NDArray x = t({7}, kF32, {-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 2.4999});
  EXPECT_EQ(values(eval("round", {x})), (std::vector<double>{-3, -2, -1, 1, 2, 3, 2}));
}

TEST(OpTensorUnary, IntegerOpsAreExactAndWrap) {
  const NDArray x = t({3}, kI8, {-128, -3, 5});
  EXPECT_EQ(values(eval("negative", {x})), (std::vector<double>{-128, 3, -5}));
  EXPECT_EQ(values(eval("abs", {x})), (std::vector<double>{-128, 3, 5}));
  EXPECT_EQ(values(eval("round", {x})), (std::vector<double>{-128, -3, 5}));
  EXPECT_EQ(values(eval("sign", {x})), (std::vector<double>{-1, -1, 1}));
  EXPECT_EQ(values(eval("bitwise_not", {x})), (std::vector<double>{127, 2, -6}));
  EXPECT_EQ(values(eval("negative", {t({2}, DataType::uint8(), {1, 0})})),
            (std::vector<double>{255, 0}));
}

TEST(OpTensorUnary, BoolOpsAndPredicates) {
  const NDArray b = t({2}, kBool, {0, 1});
  EXPECT_EQ(values(eval("logical_not", {b})), (std::vector<double>{1, 0}));
  EXPECT_EQ(values(eval("bitwise_not", {b})), (std::vector<double>{1, 0}));
  EXPECT_EQ(values(eval("copy", {b})), (std::vector<double>{0, 1}));
  const NDArray x = t({4}, kF32, {kNan, kInf, -kInf, 1});
  const NDArray nan = eval("isnan", {x});
  EXPECT_EQ(nan.dtype(), kBool);
  EXPECT_EQ(values(nan), (std::vector<double>{1, 0, 0, 0}));
  EXPECT_EQ(values(eval("isinf", {x})), (std::vector<double>{0, 1, 1, 0}));
  EXPECT_EQ(values(eval("isfinite", {x})), (std::vector<double>{0, 0, 0, 1}));
  EXPECT_EQ(values(eval("isfinite", {t({1}, kI32, {7})})), (std::vector<double>{1}));
}

TEST(OpTensorUnary, HalfPrecisionIsComputedInDoubleAndRounded) {
  const NDArray x = t({2}, DataType::float16(), {0.5, 2});
  const NDArray y = eval("exp", {x});
  EXPECT_EQ(y.dtype(), DataType::float16());
  EXPECT_NEAR(y.getFloat(0), 1.6484375, 1e-9);  // exp(0.5) = 1.6487 rounded to float16
  EXPECT_NEAR(y.getFloat(1), 7.390625, 1e-9);
}

TEST(OpTensorUnary, TypeIsIdentityAndUnknownDimsFlow) {
  Type any = tensorType(Shape{Dim::any(), Dim(3)}, kF32);
  EXPECT_EQ(typeStr("exp", {any}), "Tensor[(?, 3), float32]");
  EXPECT_EQ(typeStr("isnan", {any}), "Tensor[(?, 3), bool]");
}

TEST(OpTensorUnaryErrors, unary_c1_FloatOnlyOpRejectsIntegers) {
  expectDiag(typeError("exp", {tensorType({2, 3}, kI32)}), "unary_c1", {"(2, 3)", "int32"});
  expectDiag(typeError("logical_not", {tensorType({4}, kF32)}), "unary_c1", {"(4)", "bool"});
  expectDiag(typeError("negative", {tensorType({4}, kBool)}), "unary_c1", {"(4)"});
}

// --- binary --------------------------------------------------------------------------------------

TEST(OpTensorBinary, BroadcastValuesAndTypes) {
  const NDArray a = t({2, 3}, kF32, {1, 2, 3, 4, 5, 6});
  const NDArray b = t({3}, kF32, {10, 20, 30});
  EXPECT_EQ(values(eval("add", {a, b})), (std::vector<double>{11, 22, 33, 14, 25, 36}));
  EXPECT_EQ(values(eval("subtract", {b, a})), (std::vector<double>{9, 18, 27, 6, 15, 24}));
  EXPECT_EQ(values(eval("multiply", {a, t({2, 1}, kF32, {2, -1})})),
            (std::vector<double>{2, 4, 6, -4, -5, -6}));
  EXPECT_EQ(typeStr("add", {tensorType({2, 1, 3}, kF32), tensorType({4, 3}, kF32)}),
            "Tensor[(2, 4, 3), float32]");
  EXPECT_EQ(typeStr("add", {tensorType(Shape{Dim::any(), Dim(1)}, kF32),
                            tensorType(Shape{Dim(1), Dim(5)}, kF32)}),
            "Tensor[(?, 5), float32]");
  EXPECT_EQ(typeStr("add", {scalarType(kF32), tensorType({2}, kF32)}), "Tensor[(2), float32]");
}

TEST(OpTensorBinary, IntegerDivisionTruncatesTowardZero) {
  const NDArray a = t({4}, kI32, {7, -7, 7, -7});
  const NDArray b = t({4}, kI32, {2, 2, -2, -2});
  EXPECT_EQ(values(eval("divide", {a, b})), (std::vector<double>{3, -3, -3, 3}));
  EXPECT_EQ(values(eval("floor_divide", {a, b})), (std::vector<double>{3, -4, -4, 3}));
  EXPECT_EQ(values(eval("mod", {a, b})), (std::vector<double>{1, -1, 1, -1}));
  EXPECT_EQ(values(eval("floor_mod", {a, b})), (std::vector<double>{1, 1, -1, -1}));
  // The one overflowing quotient wraps instead of trapping.
  const NDArray minI32 = t({1}, kI32, {-2147483648.0});
  EXPECT_EQ(values(eval("divide", {minI32, t({1}, kI32, {-1})})),
            (std::vector<double>{-2147483648.0}));
  const NDArray minI64 = NDArray::scalarInt(std::numeric_limits<int64_t>::min(), DataType::int64());
  EXPECT_EQ(eval("divide", {minI64, NDArray::scalarInt(-1, DataType::int64())}).getInt(0),
            std::numeric_limits<int64_t>::min());
  EXPECT_EQ(values(eval("divide", {t({2}, kF32, {1, -1}), t({2}, kF32, {0, 0})})),
            (std::vector<double>{kInf, -kInf}));
}

TEST(OpTensorBinaryErrors, binary_c4_IntegerDivisionByZeroIsADiagnostic) {
  for (const char* op : {"divide", "floor_divide", "mod", "floor_mod"}) {
    Diagnostic d = diagnosticOf([&] { eval(op, {t({2}, kI32, {1, 2}), t({2}, kI32, {1, 0})}); });
    expectDiag(d, "binary_c4", {"division by zero"});
    EXPECT_EQ(d.context, op);
  }
}

TEST(OpTensorBinary, IntegerArithmeticWraps) {
  EXPECT_EQ(values(eval("add", {t({1}, kI8, {127}), t({1}, kI8, {1})})),
            (std::vector<double>{-128}));
  EXPECT_EQ(values(eval("multiply", {t({1}, kI8, {64}), t({1}, kI8, {4})})),
            (std::vector<double>{0}));
  EXPECT_EQ(
      values(eval("subtract", {t({1}, DataType::uint8(), {0}), t({1}, DataType::uint8(), {1})})),
      (std::vector<double>{255}));
  EXPECT_EQ(values(eval("power", {t({3}, kI32, {3, 2, -1}), t({3}, kI32, {4, -1, 3})})),
            (std::vector<double>{81, 0, -1}));
  EXPECT_EQ(values(eval("power", {t({1}, kF32, {2}), t({1}, kF32, {0.5})})),
            (std::vector<double>{std::sqrt(2.0f)}));
}

TEST(OpTensorBinary, ShiftsAreArithmeticForSignedTypes) {
  EXPECT_EQ(values(eval("right_shift", {t({3}, kI8, {-8, 8, -1}), t({3}, kI8, {1, 2, 9})})),
            (std::vector<double>{-4, 2, -1}));
  const DataType u8 = DataType::uint8();
  EXPECT_EQ(values(eval("right_shift", {t({2}, u8, {128, 255}), t({2}, u8, {1, 8})})),
            (std::vector<double>{64, 0}));
  EXPECT_EQ(values(eval("left_shift", {t({3}, kI8, {1, 3, 1}), t({3}, kI8, {7, 2, 8})})),
            (std::vector<double>{-128, 12, 0}));
}

TEST(OpTensorBinary, MaximumMinimumComparisonsAndLogic) {
  const NDArray a = t({3}, kF32, {1, kNan, -2});
  const NDArray b = t({3}, kF32, {2, 0, -3});
  const NDArray mx = eval("maximum", {a, b});
  EXPECT_EQ(mx.getFloat(0), 2);
  EXPECT_TRUE(std::isnan(mx.getFloat(1)));
  EXPECT_EQ(values(eval("minimum", {t({2}, kI32, {1, -5}), t({2}, kI32, {0, 3})})),
            (std::vector<double>{0, -5}));
  const NDArray x = t({3}, kI32, {1, 2, 3});
  const NDArray y = t({1}, kI32, {2});
  const NDArray lt = eval("less", {x, y});
  EXPECT_EQ(lt.dtype(), kBool);
  EXPECT_EQ(values(lt), (std::vector<double>{1, 0, 0}));
  EXPECT_EQ(values(eval("less_equal", {x, y})), (std::vector<double>{1, 1, 0}));
  EXPECT_EQ(values(eval("greater", {x, y})), (std::vector<double>{0, 0, 1}));
  EXPECT_EQ(values(eval("greater_equal", {x, y})), (std::vector<double>{0, 1, 1}));
  EXPECT_EQ(values(eval("equal", {x, y})), (std::vector<double>{0, 1, 0}));
  EXPECT_EQ(values(eval("not_equal", {x, y})), (std::vector<double>{1, 0, 1}));
  EXPECT_EQ(values(eval("equal", {a, a})), (std::vector<double>{1, 0, 1}));  // NaN != NaN
  const NDArray p = t({4}, kBool, {0, 0, 1, 1});
  const NDArray q = t({4}, kBool, {0, 1, 0, 1});
  EXPECT_EQ(values(eval("logical_and", {p, q})), (std::vector<double>{0, 0, 0, 1}));
  EXPECT_EQ(values(eval("logical_or", {p, q})), (std::vector<double>{0, 1, 1, 1}));
  EXPECT_EQ(values(eval("bitwise_xor", {t({1}, kI32, {6}), t({1}, kI32, {3})})),
            (std::vector<double>{5}));
  EXPECT_EQ(typeStr("equal", {tensorType({2}, kF32), tensorType({2}, kF32)}), "Tensor[(2), bool]");
}

TEST(OpTensorBinaryErrors, binary_c1_OperandsMustShareTheDtype) {
  expectDiag(typeError("add", {tensorType({2, 3}, kF32), tensorType({2, 3}, kI32)}), "binary_c1",
             {"(2, 3)", "float32", "int32"});
}

TEST(OpTensorBinaryErrors, binary_c2_ShapesMustBroadcast) {
  Diagnostic d = typeError("multiply", {tensorType({2, 3}, kF32), tensorType({4}, kF32)});
  expectDiag(d, "binary_c2", {"(2, 3)", "(4)"});
  EXPECT_EQ(d.context, "multiply");
}

TEST(OpTensorBinaryErrors, binary_c3_DtypeMustSuitTheOp) {
  expectDiag(typeError("left_shift", {tensorType({2}, kF32), tensorType({2}, kF32)}), "binary_c3",
             {"(2)", "float32"});
  expectDiag(typeError("logical_and", {tensorType({2}, kI32), tensorType({2}, kI32)}), "binary_c3",
             {"(2)", "int32"});
}

// --- reductions ----------------------------------------------------------------------------------

Attrs reduceAttrs(std::optional<std::vector<int64_t>> axis, bool keepdims = false,
                  bool exclude = false) {
  return makeAttrs(ReduceAttrs{.axis = std::move(axis), .keepdims = keepdims, .exclude = exclude});
}

TEST(OpTensorReduce, AxesKeepdimsAndExclude) {
  const NDArray x = t({2, 3}, kF32, {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(values(eval("sum", {x}, reduceAttrs({{1}}))), (std::vector<double>{6, 15}));
  EXPECT_EQ(values(eval("sum", {x}, reduceAttrs({{-2}}))), (std::vector<double>{5, 7, 9}));
  EXPECT_EQ(values(eval("sum", {x}, reduceAttrs(std::nullopt))), (std::vector<double>{21}));
  EXPECT_EQ(values(eval("sum", {x}, reduceAttrs({{0}}, false, true))),
            (std::vector<double>{6, 15}));
  EXPECT_EQ(values(eval("mean", {x}, reduceAttrs({{0}}))), (std::vector<double>{2.5, 3.5, 4.5}));
  EXPECT_EQ(values(eval("max", {x}, reduceAttrs({{1}}))), (std::vector<double>{3, 6}));
  EXPECT_EQ(values(eval("min", {x}, reduceAttrs({{1}}))), (std::vector<double>{1, 4}));
  EXPECT_EQ(values(eval("prod", {x}, reduceAttrs({{1}}))), (std::vector<double>{6, 120}));
  const Type in = tensorType({2, 3, 4}, kF32);
  EXPECT_EQ(typeStr("sum", {in}, reduceAttrs({{1}})), "Tensor[(2, 4), float32]");
  EXPECT_EQ(typeStr("sum", {in}, reduceAttrs({{1}}, true)), "Tensor[(2, 1, 4), float32]");
  EXPECT_EQ(typeStr("sum", {in}, reduceAttrs({{1}}, false, true)), "Tensor[(3), float32]");
  EXPECT_EQ(typeStr("mean", {in}, reduceAttrs(std::vector<int64_t>{})), "float32");
  EXPECT_EQ(typeStr("max", {tensorType(Shape{Dim::any(), Dim(3)}, kI8)}, reduceAttrs({{1}})),
            "Tensor[(?), int8]");
}

TEST(OpTensorReduce, IntegerReductionsAreExact) {
  const NDArray x = t({2, 2}, kI32, {1, 2, -1, -2});
  EXPECT_EQ(values(eval("mean", {x}, reduceAttrs({{1}}))), (std::vector<double>{1, -1}));
  // The int8 sum wraps to -56 before the mean divides it (TVM sums in the data's dtype).
  EXPECT_EQ(values(eval("mean", {t({2}, kI8, {100, 100})}, reduceAttrs(std::nullopt))),
            (std::vector<double>{-28}));
  EXPECT_EQ(values(eval("max", {t({2}, kI8, {-128, -100})}, reduceAttrs(std::nullopt))),
            (std::vector<double>{-100}));
  // An empty max gives the dtype's lowest value, its identity.
  EXPECT_EQ(values(eval("max", {NDArray::empty({2, 0}, kI8)}, reduceAttrs({{1}}))),
            (std::vector<double>{-128, -128}));
}

TEST(OpTensorReduce, ArgmaxArgminTiesAndNan) {
  const NDArray x = t({2, 3}, kF32, {1, 3, 3, 0, -1, 0});
  const NDArray am = eval("argmax", {x}, makeAttrs(ArgReduceAttrs{.axis = {{1}}}));
  EXPECT_EQ(am.dtype(), kI32);
  EXPECT_EQ(values(am), (std::vector<double>{1, 0}));
  EXPECT_EQ(values(eval("argmax", {x},
                        makeAttrs(ArgReduceAttrs{.axis = {{1}}, .selectLastIndex = true}))),
            (std::vector<double>{2, 2}));
  EXPECT_EQ(values(eval("argmin", {x}, makeAttrs(ArgReduceAttrs{.axis = {{1}}}))),
            (std::vector<double>{0, 1}));
  // All axes: the row-major index over the reduced axes.
  EXPECT_EQ(values(eval("argmin", {x}, makeAttrs(ArgReduceAttrs{}))), (std::vector<double>{4}));
  EXPECT_EQ(values(eval("argmax", {t({3}, kF32, {1, kNan, 5})}, makeAttrs(ArgReduceAttrs{}))),
            (std::vector<double>{1}));
  EXPECT_EQ(typeStr("argmax", {tensorType({2, 3}, kF32)},
                    makeAttrs(ArgReduceAttrs{.axis = {{0}}, .keepdims = true})),
            "Tensor[(1, 3), int32]");
}

TEST(OpTensorReduceErrors, reduce_c1_AxisOutOfRange) {
  expectDiag(typeError("sum", {tensorType({2, 3}, kF32)}, reduceAttrs({{2}})), "reduce_c1",
             {"axis 2", "(2, 3)"});
  expectDiag(
      typeError("argmax", {tensorType({2, 3}, kF32)}, makeAttrs(ArgReduceAttrs{.axis = {{-3}}})),
      "reduce_c1", {"(2, 3)"});
}

TEST(OpTensorReduceErrors, reduce_c2_AxisListedTwice) {
  expectDiag(typeError("mean", {tensorType({2, 3}, kF32)}, reduceAttrs({{1, -1}})), "reduce_c2",
             {"(2, 3)"});
}

// --- cast, clip, fixed point, annotations --------------------------------------------------------

Attrs castTo(DataType dtype) {
  return makeAttrs(CastAttrs{.dtype = dtype});
}

TEST(OpTensorCast, FloatToIntTruncatesAndSaturates) {
  const NDArray x = t({6}, kF32, {1.9, -1.9, 300, -300, kNan, 127.5});
  EXPECT_EQ(values(eval("cast", {x}, castTo(kI8))),
            (std::vector<double>{1, -1, 127, -128, 0, 127}));
  EXPECT_EQ(values(eval("cast", {x}, castTo(DataType::uint8()))),
            (std::vector<double>{1, 0, 255, 0, 0, 127}));
  EXPECT_EQ(values(eval("cast", {t({2}, kF32, {1e30, -1e30})}, castTo(DataType::int64()))),
            (std::vector<double>{9.2233720368547758e18, -9.2233720368547758e18}));
  EXPECT_EQ(values(eval("cast", {t({3}, kF32, {0, -0.5, kNan})}, castTo(kBool))),
            (std::vector<double>{0, 1, 1}));
}

TEST(OpTensorCast, IntToNarrowerIntWraps) {
  EXPECT_EQ(values(eval("cast", {t({4}, kI32, {300, -129, 255, 128})}, castTo(kI8))),
            (std::vector<double>{44, 127, -1, -128}));
  EXPECT_EQ(values(eval("cast", {t({2}, kI8, {-1, 5})}, castTo(DataType::uint8()))),
            (std::vector<double>{255, 5}));
  EXPECT_EQ(values(eval("cast", {t({2}, kI32, {256, 0})}, castTo(kBool))),
            (std::vector<double>{1, 0}));
  EXPECT_EQ(values(eval("cast", {t({2}, kI8, {-3, 7})}, castTo(kF32))),
            (std::vector<double>{-3, 7}));
  EXPECT_EQ(typeStr("cast", {tensorType({2, 3}, kF32)}, castTo(kI8)), "Tensor[(2, 3), int8]");
}

TEST(OpTensorCastErrors, cast_c1_DtypeMustBeSet) {
  expectDiag(typeError("cast", {tensorType({2, 3}, kF32)}, makeAttrs(CastAttrs{})), "cast_c1",
             {"(2, 3)"});
}

TEST(OpTensorCast, ClipConvertsBoundsToTheDtype) {
  Attrs unit = makeAttrs(ClipAttrs{.aMin = -1, .aMax = 1});
  const NDArray f = eval("clip", {t({4}, kF32, {-2, 0.5, 3, kNan})}, unit);
  EXPECT_EQ(f.getFloat(0), -1);
  EXPECT_EQ(f.getFloat(1), 0.5);
  EXPECT_EQ(f.getFloat(2), 1);
  EXPECT_TRUE(std::isnan(f.getFloat(3)));
  // int bounds truncate toward zero (0.5 -> 0, 3.7 -> 3) and saturate (+-1e10 -> -128/127).
  EXPECT_EQ(values(eval("clip", {t({3}, kI8, {-5, 2, 9})},
                        makeAttrs(ClipAttrs{.aMin = 0.5, .aMax = 3.7}))),
            (std::vector<double>{0, 2, 3}));
  EXPECT_EQ(values(eval("clip", {t({2}, kI8, {-128, 127})},
                        makeAttrs(ClipAttrs{.aMin = -1e10, .aMax = 1e10}))),
            (std::vector<double>{-128, 127}));
  EXPECT_EQ(typeStr("clip", {tensorType({2}, kI8)}, unit), "Tensor[(2), int8]");
}

Attrs fpm(int32_t multiplier, int32_t shift) {
  return makeAttrs(FixedPointMultiplyAttrs{.multiplier = multiplier, .shift = shift});
}

TEST(OpTensorCast, FixedPointMultiplyTestVectors) {
  EXPECT_EQ(values(eval("fixed_point_multiply", {t({2}, kI32, {100, -100})}, fpm(1398101333, 6))),
            (std::vector<double>{4167, -4167}));
  EXPECT_EQ(values(eval("fixed_point_multiply", {t({1}, kI32, {5})}, fpm(1610612736, -1))),
            (std::vector<double>{2}));
  EXPECT_EQ(values(eval("fixed_point_multiply", {t({3}, kI32, {7, -7, 123456})}, fpm(0, 3))),
            (std::vector<double>{0, 0, 0}));
  // m == 2^30 is a power of two, shifted in int32 arithmetic; shift 1 (e == 0) is the identity.
  const NDArray x = t({4}, kI32, {10, 11, -11, -2147483647});
  EXPECT_EQ(values(eval("fixed_point_multiply", {x}, fpm(1 << 30, 1))),
            (std::vector<double>{10, 11, -11, -2147483647}));
  EXPECT_EQ(values(eval("fixed_point_multiply", {x}, fpm(1 << 30, 2))),
            (std::vector<double>{20, 22, -22, 2}));
  EXPECT_EQ(values(eval("fixed_point_multiply", {x}, fpm(1 << 30, 0))),
            (std::vector<double>{5, 6, -5, -1073741823}));
}

TEST(OpTensorCast, FixedPointMultiplyExtremeShiftsAreDefined) {
  // Shifts that reach 64 bits shift every bit out (right shifts keep the sign); run under UBSan.
  const NDArray x = t({3}, kI32, {3, -7, 2147483647});
  EXPECT_EQ(values(eval("fixed_point_multiply", {x}, fpm(1610612736, 40))),
            (std::vector<double>{0, 0, 0}));
  EXPECT_EQ(values(eval("fixed_point_multiply", {x}, fpm(1610612736, -40))),
            (std::vector<double>{0, -1, 0}));
  EXPECT_EQ(values(eval("fixed_point_multiply", {x}, fpm(1 << 30, 40))),
            (std::vector<double>{0, 0, 0}));
  EXPECT_EQ(values(eval("fixed_point_multiply", {x}, fpm(1 << 30, -40))),
            (std::vector<double>{0, -1, 0}));
}

TEST(OpTensorCast, FixedPointMultiplyKeepsInt64TypeAndNarrowsThroughInt32) {
  const Type i64 = tensorType({1, 3}, DataType::int64());
  EXPECT_EQ(typeStr("fixed_point_multiply", {i64}, fpm(1 << 30, 1)), "Tensor[(1, 3), int64]");
  const NDArray y =
      eval("fixed_point_multiply", {t({1}, DataType::int64(), {3e9})}, fpm(1073741824, 2));
  EXPECT_EQ(y.dtype(), DataType::int64());
  // int32(3e9) = -1294967296; doubling it wraps in int32 to 1705032704.
  EXPECT_EQ(y.getInt(0), 1705032704);
}

TEST(OpTensorCastErrors, fixed_point_multiply_c1_DataMustBeInteger) {
  expectDiag(typeError("fixed_point_multiply", {tensorType({2, 2}, kF32)}, fpm(1, 1)),
             "fixed_point_multiply_c1", {"(2, 2)", "float32"});
}

TEST(OpTensorCast, FixedPointMultiplierShiftExamples) {
  using P = std::pair<int32_t, int32_t>;
  EXPECT_EQ(fixedPointMultiplierShift(0.5), P(1073741824, 0));
  EXPECT_EQ(fixedPointMultiplierShift(0.75), P(1610612736, 0));
  EXPECT_EQ(fixedPointMultiplierShift(1.5), P(1610612736, 1));
  EXPECT_EQ(fixedPointMultiplierShift(0.25), P(1073741824, -1));
  EXPECT_EQ(fixedPointMultiplierShift(1.0 / 3.0), P(1431655765, -1));
  EXPECT_EQ(fixedPointMultiplierShift(0.0625 / 0.0015), P(1398101333, 6));
  EXPECT_EQ(fixedPointMultiplierShift(0.0), P(0, 0));
  EXPECT_EQ(fixedPointMultiplierShift(kInf), P(0, 0));
  EXPECT_EQ(fixedPointMultiplierShift(-kInf), P(0, 0));
  EXPECT_EQ(fixedPointMultiplierShift(kNan), P(0, 0));
  // Rounding up to 2^31 renormalises: 1 - 2^-40 becomes (2^30, 1).
  EXPECT_EQ(fixedPointMultiplierShift(1.0 - std::ldexp(1.0, -40)), P(1073741824, 1));
}

TEST(OpTensorCast, AnnotationsAreIdentities) {
  const NDArray x = t({2}, kF32, {1, 2});
  EXPECT_TRUE(test::allClose(eval("annotation.stop_fusion", {x}), x));
  Attrs hint = makeAttrs(CastHintAttrs{.dtype = kI8});
  EXPECT_TRUE(test::allClose(eval("annotation.cast_hint", {x}, hint), x));
  EXPECT_EQ(typeStr("annotation.cast_hint", {tensorType({2}, kF32)}, hint), "Tensor[(2), float32]");
  OpRegistry& r = OpRegistry::global();
  EXPECT_EQ(r.find("annotation.stop_fusion")->pattern, OpPattern::kOpaque);
  EXPECT_EQ(r.find("annotation.cast_hint")->pattern, OpPattern::kOpaque);
  EXPECT_FALSE(r.find("annotation.cast_hint")->nonComputational);
}

}  // namespace
}  // namespace tessera::relay
