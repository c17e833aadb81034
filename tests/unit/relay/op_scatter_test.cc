// scatter_elements, dyn.reshape and dyn.strided_slice: type relations (each constraint label of
// docs/spec/ops/dynamic.md has a negative test named after it), reference kernels against
// hand-computed results, out-of-range indices as clean errors, and the printed calls parsing back.
// Their VM builtins are compared with these kernels in build_dynamic_builtins_test.cc.
#include <gtest/gtest.h>

#include "relay/op/dynamic.h"
#include "relay/op/op_common.h"
#include "relay/op/scatter.h"
#include "relay/op/tensor.h"
#include "relay/structural_equal.h"
#include "relay/text/parser.h"
#include "relay/text/printer.h"
#include "relay/type_infer.h"
#include "support/diagnostic.h"
#include "test_util.h"

namespace tessera::relay {
namespace {

const DataType kF32 = DataType::float32();
const DataType kI64 = DataType::int64();
const DataType kI32 = DataType::int32();

NDArray t(const std::vector<int64_t>& shape, DataType dtype, const std::vector<double>& values) {
  return test::tensorOf(shape, dtype, values);
}
Type tt(std::initializer_list<int64_t> shape, DataType dtype) {
  return tensorType(shape, dtype);
}
Attrs scatterAttrs(int64_t axis, const std::string& reduction = "update") {
  return makeAttrs(ScatterElementsAttrs{.axis = axis, .reduction = reduction});
}
std::string scatterType(const std::vector<Type>& args, Attrs attrs) {
  return typeToString(inferCallType("scatter_elements", args, std::move(attrs)));
}
std::string scatterError(const std::vector<Type>& args, Attrs attrs) {
  return test::diagnosticOf([&] { inferCallType("scatter_elements", args, attrs); }).code;
}
NDArray scatter(const NDArray& data, const NDArray& indices, const NDArray& updates, Attrs attrs) {
  return evalOp("scatter_elements", {data, indices, updates}, std::move(attrs)).tensor();
}

TEST(OpScatterElements, TypeIsTheDatasAndTheOpIsABuiltin) {
  EXPECT_EQ(scatterType({tt({4, 3}, kF32), tt({2, 3}, kI64), tt({2, 3}, kF32)}, scatterAttrs(0)),
            "Tensor[(4, 3), float32]");
  const Type anyRows = tensorType(Shape{Dim::any(), Dim(3)}, kF32);
  const Type anyIndices = tensorType(Shape{Dim::any(), Dim(3)}, kI32);
  EXPECT_EQ(scatterType({anyRows, anyIndices, tensorType(Shape{Dim::any(), Dim(3)}, kF32)},
                        scatterAttrs(-2)),
            "Tensor[(?, 3), float32]");
  const OpDef* def = OpRegistry::global().find("scatter_elements");
  EXPECT_TRUE(def->vmBuiltin);
  EXPECT_FALSE(def->dataDependentShape);
}

// Along axis 0, update p of column c goes to row indices[p][c]; a negative index counts from the
// end; with duplicates the last update wins.
TEST(OpScatterElements, UpdateAlongTheFirstAxis) {
  const NDArray data = t({3, 2}, kF32, {0, 0, 0, 0, 0, 0});
  const NDArray indices = t({2, 2}, kI64, {1, -1, 1, 0});
  const NDArray updates = t({2, 2}, kF32, {1, 2, 3, 4});
  EXPECT_EQ(test::valuesOf(scatter(data, indices, updates, scatterAttrs(0))),
            (std::vector<double>{0, 4, 3, 0, 0, 2}));
}

// Along the last axis, indices covering fewer rows than the data leave the other rows alone.
TEST(OpScatterElements, ReductionsAlongTheLastAxis) {
  const NDArray data = t({2, 3}, kI32, {1, 2, 3, 4, 5, 6});
  const NDArray indices = t({1, 2}, kI64, {2, 2});
  const NDArray updates = t({1, 2}, kI32, {10, 20});
  auto run = [&](const std::string& r) {
    return test::valuesOf(scatter(data, indices, updates, scatterAttrs(1, r)));
  };
  EXPECT_EQ(run("update"), (std::vector<double>{1, 2, 20, 4, 5, 6}));
  EXPECT_EQ(run("add"), (std::vector<double>{1, 2, 33, 4, 5, 6}));
  EXPECT_EQ(run("mul"), (std::vector<double>{1, 2, 600, 4, 5, 6}));
  EXPECT_EQ(run("min"), (std::vector<double>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(run("max"), (std::vector<double>{1, 2, 20, 4, 5, 6}));
}

TEST(OpScatterElements, OutOfRangeIndexIsAnError) {
  const Diagnostic d = test::diagnosticOf([] {
    scatter(t({3}, kF32, {0, 0, 0}), t({1}, kI64, {3}), t({1}, kF32, {1}), scatterAttrs(0));
  });
  EXPECT_EQ(d.code, "scatter_elements");
  EXPECT_NE(d.message.find("index 3 is out of range for axis 0 of extent 3"), std::string::npos)
      << d.message;
}

TEST(OpScatterElements, scatter_elements_c1_AxisInRangeOfARankedData) {
  EXPECT_EQ(scatterError({tt({}, kF32), tt({}, kI64), tt({}, kF32)}, scatterAttrs(0)),
            "scatter_elements_c1");
  EXPECT_EQ(scatterError({tt({2}, kF32), tt({2}, kI64), tt({2}, kF32)}, scatterAttrs(1)),
            "scatter_elements_c1");
}

TEST(OpScatterElements, scatter_elements_c2_SignedIndicesThatFitTheData) {
  EXPECT_EQ(scatterError({tt({2, 2}, kF32), tt({2, 2}, kF32), tt({2, 2}, kF32)}, scatterAttrs(0)),
            "scatter_elements_c2");
  EXPECT_EQ(scatterError({tt({2, 2}, kF32), tt({2}, kI64), tt({2}, kF32)}, scatterAttrs(0)),
            "scatter_elements_c2");
  EXPECT_EQ(scatterError({tt({2, 2}, kF32), tt({1, 3}, kI64), tt({1, 3}, kF32)}, scatterAttrs(0)),
            "scatter_elements_c2");
}

TEST(OpScatterElements, scatter_elements_c3_UpdatesShapedLikeIndices) {
  EXPECT_EQ(scatterError({tt({2, 2}, kF32), tt({1, 2}, kI64), tt({2, 2}, kF32)}, scatterAttrs(0)),
            "scatter_elements_c3");
  EXPECT_EQ(scatterError({tt({2, 2}, kF32), tt({1, 2}, kI64), tt({1, 2}, kI32)}, scatterAttrs(0)),
            "scatter_elements_c3");
}

TEST(OpScatterElements, scatter_elements_c4_KnownReduction) {
  EXPECT_EQ(scatterError({tt({2}, kF32), tt({1}, kI64), tt({1}, kF32)}, scatterAttrs(0, "mean")),
            "scatter_elements_c4");
}

TEST(OpDynReshape, ReadsItsShapeFromATensor) {
  EXPECT_EQ(typeToString(inferCallType("dyn.reshape", {tt({2, 6}, kF32), tt({3}, kI64)})),
            "Tensor[(?, ?, ?), float32]");
  const NDArray x = t({2, 6}, kF32, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  // 0 copies the input's extent, -1 is inferred.
  const NDArray r = evalOp("dyn.reshape", {x, t({3}, kI64, {0, -1, 2})}).tensor();
  EXPECT_EQ(r.shape(), (std::vector<int64_t>{2, 3, 2}));
  EXPECT_EQ(test::valuesOf(r), test::valuesOf(x));
  const Diagnostic d = test::diagnosticOf([&] {
    evalOp("dyn.reshape", {x, t({2}, kI64, {5, -1})});
  });
  EXPECT_EQ(d.code, "dyn.reshape");
  EXPECT_TRUE(OpRegistry::global().find("dyn.reshape")->dataDependentShape);
}

TEST(OpDynReshape, dyn_reshape_c1_OneDimensionalIntegerShape) {
  const std::string code = test::diagnosticOf([] {
                             inferCallType("dyn.reshape", {tt({4}, kF32), tt({2}, kF32)});
                           }).code;
  EXPECT_EQ(code, "dyn.reshape_c1");
}

// ONNX Slice's clamping: negative positions from the end, ends past the axis clamped, a negative
// step walking back from a clamped begin.
TEST(OpDynStridedSlice, ClampsAsOnnxSliceDoes) {
  EXPECT_EQ(typeToString(inferCallType("dyn.strided_slice", {tt({4, 3}, kF32), tt({1}, kI64),
                                                             tt({1}, kI64), tt({1}, kI64)})),
            "Tensor[(?, 3), float32]");
  const NDArray x = t({4, 3}, kF32, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  auto slice = [&](std::vector<double> b, std::vector<double> e, std::vector<double> s,
                   std::optional<std::vector<int64_t>> axes) {
    const auto n = static_cast<int64_t>(b.size());
    StridedSliceAttrs attrs;
    attrs.axes = std::move(axes);
    return evalOp("dyn.strided_slice", {x, t({n}, kI64, b), t({n}, kI64, e), t({n}, kI64, s)},
                  makeAttrs(std::move(attrs)))
        .tensor();
  };
  const NDArray rows = slice({1}, {100}, {2}, std::nullopt);
  EXPECT_EQ(rows.shape(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(test::valuesOf(rows), (std::vector<double>{3, 4, 5, 9, 10, 11}));
  const NDArray back = slice({-1}, {-100}, {-2}, std::vector<int64_t>{1});
  EXPECT_EQ(test::valuesOf(back), (std::vector<double>{2, 0, 5, 3, 8, 6, 11, 9}));
  EXPECT_EQ(slice({3}, {1}, {1}, std::vector<int64_t>{0}).shape(), (std::vector<int64_t>{0, 3}));
  EXPECT_EQ(test::diagnosticOf([&] { slice({0}, {1}, {0}, std::nullopt); }).code,
            "dyn.strided_slice");
}

TEST(OpDynStridedSlice, dyn_strided_slice_c1_OneLengthOfIntegers) {
  const std::string code = test::diagnosticOf([] {
                             inferCallType("dyn.strided_slice", {tt({4}, kF32), tt({1}, kI64),
                                                                 tt({2}, kI64), tt({1}, kI64)});
                           }).code;
  EXPECT_EQ(code, "dyn.strided_slice_c1");
}

TEST(OpDynStridedSlice, dyn_strided_slice_c2_AxesFitTheRank) {
  StridedSliceAttrs attrs;
  attrs.axes = std::vector<int64_t>{2};
  const Attrs a = makeAttrs(std::move(attrs));
  const std::string code =
      test::diagnosticOf([&] {
        inferCallType("dyn.strided_slice",
                      {tt({4, 2}, kF32), tt({1}, kI64), tt({1}, kI64), tt({1}, kI64)}, a);
      }).code;
  EXPECT_EQ(code, "dyn.strided_slice_c2");
}

TEST(OpScatterElements, PrintedCallsParseBack) {
  const IRModule m = inferTypes(parseModule(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(4, 3), float32], %i: Tensor[(2, 3), int64], %u: Tensor[(2, 3), float32], %s: Tensor[(2), int64]) {
  (scatter_elements(%x, %i, %u, axis=1, reduction="add"), dyn.reshape(%x, %s))
})"));
  const std::string printed = printModule(m);
  EXPECT_NE(printed.find("reduction=\"add\""), std::string::npos) << printed;
  EXPECT_NE(printed.find("Tensor[(?, ?), float32]"), std::string::npos) << printed;
  EXPECT_TRUE(structuralEqual(inferTypes(parseModule(printed)), m)) << printed;
}

}  // namespace
}  // namespace tessera::relay
