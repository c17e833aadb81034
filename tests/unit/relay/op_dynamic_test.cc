// Ops with data-dependent output shapes (argwhere, unique, vision.all_class_non_max_suppression):
// type relations give `?` dims, reference kernels are checked against hand-computed results
// (empty ones included), every constraint label of docs/spec/ops/dynamic.md has a negative test
// named after it, and the interpreter runs ops downstream of a `?` dim with the actual extents.
#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "relay/interp/interpreter.h"
#include "relay/op/dynamic.h"
#include "relay/op/op_common.h"
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
const DataType kBool = DataType::boolType();

NDArray t(const std::vector<int64_t>& shape, DataType dtype, const std::vector<double>& values) {
  return test::tensorOf(shape, dtype, values);
}
std::vector<double> values(const NDArray& a) {
  return test::valuesOf(a);
}
std::string typeStr(const std::string& op, const std::vector<Type>& args, Attrs attrs = nullptr) {
  return typeToString(inferCallType(op, args, std::move(attrs)));
}
Diagnostic typeError(const std::string& op, const std::vector<Type>& args, Attrs attrs = nullptr) {
  return test::diagnosticOf([&] { inferCallType(op, args, attrs); });
}
Type tt(std::initializer_list<int64_t> shape, DataType dtype) {
  return tensorType(shape, dtype);
}
// Checks shape, dtype and values of a kernel result.
void expectTensor(const NDArray& got, const std::vector<int64_t>& shape, DataType dtype,
                  const std::vector<double>& want) {
  EXPECT_EQ(got.shape(), shape);
  EXPECT_EQ(got.dtype(), dtype);
  EXPECT_EQ(values(got), want);
}

// --- argwhere ------------------------------------------------------------------------------------

TEST(OpArgwhere, TypeHasAnyRowsAndRankColumns) {
  EXPECT_EQ(typeStr("argwhere", {tt({2, 3}, kF32)}), "Tensor[(?, 2), int64]");
  EXPECT_EQ(typeStr("argwhere", {tt({5}, kBool)}), "Tensor[(?, 1), int64]");
  EXPECT_EQ(typeStr("argwhere", {tt({}, kI32)}), "Tensor[(?, 0), int64]");
  EXPECT_TRUE(OpRegistry::global().find("argwhere")->dataDependentShape);
}

TEST(OpArgwhere, CoordinatesInRowMajorOrder) {
  const NDArray x = t({2, 3}, kF32, {0, 1.5, 0, -2, 0, -0.0});
  expectTensor(evalOp("argwhere", {x}).tensor(), {2, 2}, kI64, {0, 1, 1, 0});
  const NDArray b = t({4}, kBool, {1, 0, 1, 1});
  expectTensor(evalOp("argwhere", {b}).tensor(), {3, 1}, kI64, {0, 2, 3});
}

TEST(OpArgwhere, AllZerosGiveNoRows) {
  const NDArray x = t({2, 2, 2}, kI32, std::vector<double>(8, 0));
  expectTensor(evalOp("argwhere", {x}).tensor(), {0, 3}, kI64, {});
}

TEST(OpArgwhere, argwhere_c1_NeedsANumericDtype) {
  const Diagnostic d = typeError("argwhere", {tt({2}, DataType::voidType())});
  EXPECT_EQ(d.code, "argwhere_c1") << d.str();
}

TEST(OpArgwhere, NanIsNonZero) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  expectTensor(evalOp("argwhere", {t({2}, kF32, {nan, 0})}).tensor(), {1, 1}, kI64, {0});
}

// --- unique --------------------------------------------------------------------------------------

Attrs uniqueAttrs(bool sorted, std::optional<int64_t> axis = std::nullopt) {
  return makeAttrs(UniqueAttrs{.sorted = sorted, .axis = axis});
}

TEST(OpUnique, TypeIsATupleOfFourWithAnyExtents) {
  EXPECT_EQ(typeStr("unique", {tt({2, 3}, kF32)}),
            "(Tensor[(?), float32], Tensor[(?), int64], Tensor[(6), int64], Tensor[(?), int64])");
  EXPECT_EQ(typeStr("unique", {tt({2, 3, 4}, kI32)}, uniqueAttrs(true, -2)),
            "(Tensor[(2, ?, 4), int32], Tensor[(?), int64], Tensor[(3), int64], "
            "Tensor[(?), int64])");
}

TEST(OpUnique, SortedFlattened) {
  const Value r = evalOp("unique", {t({6}, kF32, {2, 1, 1, 3, 4, 3})});
  ASSERT_TRUE(r.isTuple());
  expectTensor(r.fields()[0].tensor(), {4}, kF32, {1, 2, 3, 4});
  expectTensor(r.fields()[1].tensor(), {4}, kI64, {1, 0, 3, 4});
  expectTensor(r.fields()[2].tensor(), {6}, kI64, {1, 0, 0, 2, 3, 2});
  expectTensor(r.fields()[3].tensor(), {4}, kI64, {2, 1, 2, 1});
}

// ONNX's test_unique_not_sorted_without_axis.
TEST(OpUnique, FirstOccurrenceOrder) {
  const Value r = evalOp("unique", {t({6}, kF32, {2, 1, 1, 3, 4, 3})}, uniqueAttrs(false));
  expectTensor(r.fields()[0].tensor(), {4}, kF32, {2, 1, 3, 4});
  expectTensor(r.fields()[1].tensor(), {4}, kI64, {0, 1, 3, 4});
  expectTensor(r.fields()[2].tensor(), {6}, kI64, {0, 1, 1, 2, 3, 2});
  expectTensor(r.fields()[3].tensor(), {4}, kI64, {1, 2, 2, 1});
}

// Slices along axis 1 compare lexicographically: columns (1, 0), (0, 1), (1, 0), (0, 2).
TEST(OpUnique, SlicesAlongAnAxis) {
  const NDArray x = t({2, 4}, kI32, {1, 0, 1, 0, 0, 1, 0, 2});
  const Value r = evalOp("unique", {x}, uniqueAttrs(true, 1));
  expectTensor(r.fields()[0].tensor(), {2, 3}, kI32, {0, 0, 1, 1, 2, 0});
  expectTensor(r.fields()[1].tensor(), {3}, kI64, {1, 3, 0});
  expectTensor(r.fields()[2].tensor(), {4}, kI64, {2, 0, 2, 1});
  expectTensor(r.fields()[3].tensor(), {3}, kI64, {1, 1, 2});
}

TEST(OpUnique, EmptyDataGivesEmptyResults) {
  const Value r = evalOp("unique", {NDArray::empty({0, 3}, kF32)});
  expectTensor(r.fields()[0].tensor(), {0}, kF32, {});
  expectTensor(r.fields()[2].tensor(), {0}, kI64, {});
  expectTensor(r.fields()[3].tensor(), {0}, kI64, {});
}

TEST(OpUnique, NansAreOneValueAfterTheNumbers) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const Value r = evalOp("unique", {t({4}, kF32, {nan, 1, nan, 0})});
  const std::vector<double> v = values(r.fields()[0].tensor());
  ASSERT_EQ(v.size(), 3u);
  EXPECT_EQ(v[0], 0);
  EXPECT_EQ(v[1], 1);
  EXPECT_TRUE(std::isnan(v[2]));
  expectTensor(r.fields()[3].tensor(), {3}, kI64, {1, 1, 2});
}

TEST(OpUnique, unique_c1_NeedsAnOrderedDtype) {
  const Diagnostic d = typeError("unique", {tt({2}, DataType::voidType())});
  EXPECT_EQ(d.code, "unique_c1") << d.str();
}

TEST(OpUnique, unique_c2_AxisOutOfRange) {
  const Diagnostic d = typeError("unique", {tt({2, 3}, kF32)}, uniqueAttrs(true, 2));
  EXPECT_EQ(d.code, "unique_c2") << d.str();
}

// --- vision.all_class_non_max_suppression -------------------------------------------------------

const char* const kNms = "vision.all_class_non_max_suppression";

// ONNX's test_nonmaxsuppression_suppress_by_IOU boxes: six unit squares, three pairs overlapping.
NDArray nmsBoxes() {
  return t({1, 6, 4}, kF32, {0, 0,  1, 1,  0, 0.1,  1, 1.1,  0, -0.1, 1, 0.9,
                             0, 10, 1, 11, 0, 10.1, 1, 11.1, 0, 100,  1, 101});
}
NDArray nmsRun(const NDArray& boxes, const NDArray& scores, int64_t maxOut, double iou,
               std::optional<double> scoreThreshold, bool center = false) {
  const NDArray score =
      scoreThreshold ? t({1}, kF32, {*scoreThreshold}) : NDArray::empty({0}, kF32);
  return evalOp(kNms,
                {boxes, scores, t({1}, kI64, {static_cast<double>(maxOut)}), t({1}, kF32, {iou}),
                 score},
                makeAttrs(AllClassNmsAttrs{.centerPointBox = center}))
      .tensor();
}

TEST(OpNms, TypeIsAnyRowsOfThree) {
  EXPECT_EQ(typeStr(kNms, {tt({1, 6, 4}, kF32), tt({1, 2, 6}, kF32), tt({1}, kI64), tt({}, kF32),
                           tt({0}, kF32)}),
            "Tensor[(?, 3), int64]");
}

TEST(OpNms, SuppressesByIouInScoreOrder) {
  const NDArray scores = t({1, 1, 6}, kF32, {0.9, 0.75, 0.6, 0.95, 0.5, 0.3});
  expectTensor(nmsRun(nmsBoxes(), scores, 3, 0.5, 0.0), {3, 3}, kI64, {0, 0, 3, 0, 0, 0, 0, 0, 5});
  // A score threshold drops the last box; a limit of 2 stops after two.
  expectTensor(nmsRun(nmsBoxes(), scores, 3, 0.5, 0.4), {2, 3}, kI64, {0, 0, 3, 0, 0, 0});
  expectTensor(nmsRun(nmsBoxes(), scores, 2, 0.5, std::nullopt), {2, 3}, kI64, {0, 0, 3, 0, 0, 0});
}

TEST(OpNms, EqualScoresKeepTheLowerIndex) {
  NDArray boxes = t({1, 3, 4}, kF32, {0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1});
  const NDArray scores = t({1, 1, 3}, kF32, {0.9, 0.9, 0.9});
  expectTensor(nmsRun(boxes, scores, 3, 0.5, std::nullopt), {1, 3}, kI64, {0, 0, 0});
}

TEST(OpNms, CenterPointBoxesAndClasses) {
  // The same squares as nmsBoxes() as centers and sizes, two classes of one batch.
  NDArray boxes = t({1, 6, 4}, kF32, {0.5, 0.5,  1, 1, 0.5, 0.6,  1, 1, 0.5, 0.4,   1, 1,
                                      0.5, 10.5, 1, 1, 0.5, 10.6, 1, 1, 0.5, 100.5, 1, 1});
  const NDArray scores =
      t({1, 2, 6}, kF32, {0.9, 0.75, 0.6, 0.95, 0.5, 0.3, 0.9, 0.75, 0.6, 0.95, 0.5, 0.3});
  expectTensor(nmsRun(boxes, scores, 2, 0.5, 0.0, true), {4, 3}, kI64,
               {0, 0, 3, 0, 0, 0, 0, 1, 3, 0, 1, 0});
}

TEST(OpNms, NothingSelectedGivesNoRows) {
  const NDArray scores = t({1, 1, 6}, kF32, {0.9, 0.75, 0.6, 0.95, 0.5, 0.3});
  expectTensor(nmsRun(nmsBoxes(), scores, 0, 0.5, std::nullopt), {0, 3}, kI64, {});
  expectTensor(nmsRun(nmsBoxes(), scores, 3, 0.5, 0.99), {0, 3}, kI64, {});
}

TEST(OpNms, nms_c1_OnlyOnnxOutputFormat) {
  const Diagnostic d = typeError(
      kNms, {tt({1, 6, 4}, kF32), tt({1, 1, 6}, kF32), tt({1}, kI64), tt({1}, kF32), tt({1}, kF32)},
      makeAttrs(AllClassNmsAttrs{.outputFormat = "tensorflow"}));
  EXPECT_EQ(d.code, "nms_c1") << d.str();
}

TEST(OpNms, nms_c2_FloatBoxesAndScores) {
  const Diagnostic d = typeError(kNms, {tt({1, 6, 4}, kI32), tt({1, 1, 6}, kF32), tt({1}, kI64),
                                        tt({1}, kF32), tt({1}, kF32)});
  EXPECT_EQ(d.code, "nms_c2") << d.str();
}

TEST(OpNms, nms_c3_ShapesAgree) {
  const Diagnostic d = typeError(kNms, {tt({1, 6, 4}, kF32), tt({1, 1, 5}, kF32), tt({1}, kI64),
                                        tt({1}, kF32), tt({1}, kF32)});
  EXPECT_EQ(d.code, "nms_c3") << d.str();
  EXPECT_NE(d.message.find("Tensor[(1, 1, 5), float32]"), std::string::npos) << d.str();
}

TEST(OpNms, nms_c4_ScalarInputs) {
  const Diagnostic d = typeError(kNms, {tt({1, 6, 4}, kF32), tt({1, 1, 6}, kF32), tt({2}, kI64),
                                        tt({1}, kF32), tt({1}, kF32)});
  EXPECT_EQ(d.code, "nms_c4") << d.str();
  EXPECT_NE(d.message.find("max_output_boxes_per_class"), std::string::npos) << d.str();
}

TEST(OpNms, nms_c5_IouThresholdInUnitRange) {
  const NDArray scores = t({1, 1, 6}, kF32, {0.9, 0.75, 0.6, 0.95, 0.5, 0.3});
  const Diagnostic d = test::diagnosticOf([&] { nmsRun(nmsBoxes(), scores, 3, 1.5, 0.0); });
  EXPECT_EQ(d.code, "nms_c5") << d.str();
}

// --- dyn.topk, shape_of
// ---------------------------------------------------------------------------

Value topk(const NDArray& x, int64_t k, TopKAttrs attrs = {}) {
  return evalOp("dyn.topk", {x, t({1}, kI64, {static_cast<double>(k)})}, makeAttrs(attrs));
}

TEST(OpTopK, TypeHasAnyAlongTheAxis) {
  EXPECT_EQ(typeStr("dyn.topk", {tt({2, 5}, kF32), tt({1}, kI64)}),
            "(Tensor[(2, ?), float32], Tensor[(2, ?), int64])");
  EXPECT_EQ(typeStr("dyn.topk", {tt({4, 3}, kI32), tt({}, kI32)},
                    makeAttrs(TopKAttrs{.axis = 0, .retType = "indices", .dtype = kI32})),
            "Tensor[(?, 3), int32]");
  EXPECT_TRUE(OpRegistry::global().find("dyn.topk")->dataDependentShape);
}

TEST(OpTopK, LargestSortedTiesByLowerIndex) {
  const Value r = topk(t({2, 5}, kF32, {1, 3, 3, 2, 0, 5, 4, 3, 2, 1}), 3);
  expectTensor(r.fields()[0].tensor(), {2, 3}, kF32, {3, 3, 2, 5, 4, 3});
  expectTensor(r.fields()[1].tensor(), {2, 3}, kI64, {1, 2, 3, 0, 1, 2});
}

TEST(OpTopK, SmallestAlongTheFirstAxis) {
  const Value r = topk(t({3, 2}, kI32, {5, 0, 1, 0, 3, -2}), 2,
                       TopKAttrs{.axis = 0, .retType = "values", .isAscend = true});
  expectTensor(r.tensor(), {2, 2}, kI32, {1, -2, 3, 0});
}

TEST(OpTopK, KZeroIsEmptyAndNanRanksFirst) {
  expectTensor(topk(t({3}, kF32, {1, 2, 3}), 0).fields()[0].tensor(), {0}, kF32, {});
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const Value r = topk(t({3}, kF32, {1, nan, 3}), 2);
  expectTensor(r.fields()[1].tensor(), {2}, kI64, {1, 2});
}

TEST(OpTopK, KOutOfRangeIsAnError) {
  const Diagnostic d = test::diagnosticOf([] { (void)topk(t({3}, kF32, {1, 2, 3}), 4); });
  EXPECT_EQ(d.code, "topk_k") << d.str();
  EXPECT_NE(d.message.find("k = 4 is outside [0, 3]"), std::string::npos) << d.str();
}

TEST(OpTopK, topk_c1_NeedsRankAndAnOrderedDtype) {
  EXPECT_EQ(typeError("dyn.topk", {tt({}, kF32), tt({1}, kI64)}).code, "topk_c1");
  EXPECT_EQ(typeError("dyn.topk", {tt({3}, kBool), tt({1}, kI64)}).code, "topk_c1");
  EXPECT_EQ(
      typeError("dyn.topk", {tt({3}, kF32), tt({1}, kI64)}, makeAttrs(TopKAttrs{.axis = 1})).code,
      "topk_c1");
}

TEST(OpTopK, topk_c2_KIsOneInteger) {
  EXPECT_EQ(typeError("dyn.topk", {tt({3}, kF32), tt({2}, kI64)}).code, "topk_c2");
  EXPECT_EQ(typeError("dyn.topk", {tt({3}, kF32), tt({1}, kF32)}).code, "topk_c2");
}

TEST(OpTopK, topk_c3_RetTypeAndIndexDtype) {
  EXPECT_EQ(
      typeError("dyn.topk", {tt({3}, kF32), tt({1}, kI64)}, makeAttrs(TopKAttrs{.retType = "all"}))
          .code,
      "topk_c3");
  EXPECT_EQ(
      typeError("dyn.topk", {tt({3}, kF32), tt({1}, kI64)}, makeAttrs(TopKAttrs{.dtype = kF32}))
          .code,
      "topk_c3");
}

TEST(OpShapeOf, ExtentsAsAVector) {
  EXPECT_EQ(typeStr("shape_of", {tt({2, 0, 7}, kF32)}), "Tensor[(3), int64]");
  expectTensor(evalOp("shape_of", {t({2, 0, 7}, kF32, {})}).tensor(), {3}, kI64, {2, 0, 7});
  expectTensor(
      evalOp("shape_of", {t({}, kF32, {1})}, makeAttrs(ShapeOfAttrs{.dtype = kI32})).tensor(), {0},
      kI32, {});
}

TEST(OpShapeOf, shape_of_c1_IntegerDtype) {
  EXPECT_EQ(typeError("shape_of", {tt({2}, kF32)}, makeAttrs(ShapeOfAttrs{.dtype = kF32})).code,
            "shape_of_c1");
}

// --- interpreter, text ---------------------------------------------------------------------------

// transpose and take after argwhere see `?` dims statically; the interpreter re-infers their
// types from the actual arguments.
TEST(OpDynamic, InterpreterRunsOpsDownstreamOfAnyDims) {
  const IRModule m = inferTypes(parseModule(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(3, 2), float32], %c: Tensor[(3), bool]) {
  %0 = argwhere(%c);
  %1 = squeeze(%0, axis=[1]);
  (transpose(argwhere(%x), axes=[1, 0]), take(%x, %1, axis=0))
})"));
  const std::string printed = printModule(m);
  EXPECT_NE(printed.find("Tensor[(2, ?), int64]"), std::string::npos) << printed;
  const Value r =
      Interpreter(m).run({t({3, 2}, kF32, {1, 0, 0, 2, 3, 4}), t({3}, kBool, {1, 0, 1})});
  expectTensor(r.fields()[0].tensor(), {2, 4}, kI64, {0, 1, 2, 2, 0, 1, 0, 1});
  expectTensor(r.fields()[1].tensor(), {2, 2}, kF32, {1, 0, 3, 4});
}

// A global whose parameter is `?` keeps it: each call is checked against the parameter, not
// unified with it, so a recursive function can carry a tensor that grows by a row per call.
TEST(OpDynamic, AnyParameterOfAnnotatedGlobalStaysAny) {
  const IRModule m = inferTypes(parseModule(R"(#[version = "0.0.5"]
def @grow(%n: int64, %acc: Tensor[(?, 2), float32], %row: Tensor[(2), float32]) -> Tensor[(?, 2), float32] {
  if (less(%n, 3i64)) {
    %0 = expand_dims(%row, axis=0);
    @grow(add(%n, 1i64), concatenate((%acc, %0)), %row)
  } else {
    %acc
  }
}
def @main(%row: Tensor[(2), float32], %none: Tensor[(0, 2), float32]) {
  @grow(0i64, %none, %row)
}
)"));
  const std::string printed = printModule(m);
  EXPECT_NE(printed.find("concatenate(%2) /* ty=Tensor[(?, 2), float32] */"), std::string::npos)
      << printed;
  const Value r = Interpreter(m).run({t({2}, kF32, {1, 2}), t({0, 2}, kF32, {})});
  expectTensor(r.tensor(), {3, 2}, kF32, {1, 2, 1, 2, 1, 2});
  // An argument that does not fit its parameter names it.
  const Diagnostic d = test::diagnosticOf([] {
    (void)inferTypes(parseModule(R"(#[version = "0.0.5"]
def @f(%a: Tensor[(?, 2), float32]) -> Tensor[(?, 2), float32] { %a }
def @main(%x: Tensor[(4, 3), float32]) { @f(%x) }
)"));
  });
  EXPECT_NE(d.message.find("argument 0 of @f"), std::string::npos) << d.str();
}

TEST(OpDynamic, PrintedCallsParseBack) {
  const IRModule m = inferTypes(parseModule(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(4), float32], %b: Tensor[(1, 3, 4), float32], %s: Tensor[(1, 1, 3), float32]) {
  %0 = unique(%x, sorted=False, axis=0);
  %1 = vision.all_class_non_max_suppression(%b, %s, 2i64, 0.5f, 0.1f, center_point_box=True);
  %2 = dyn.topk(%x, 2i64, axis=0, ret_type="values", is_ascend=True);
  (%0.0, %1, argwhere(%x), %2, shape_of(%b, dtype="int32"))
})"));
  const std::string printed = printModule(m);
  EXPECT_NE(printed.find("sorted=False"), std::string::npos) << printed;
  EXPECT_NE(printed.find("center_point_box=True"), std::string::npos) << printed;
  EXPECT_NE(printed.find("is_ascend=True"), std::string::npos) << printed;
  EXPECT_TRUE(structuralEqual(inferTypes(parseModule(printed)), m)) << printed;
}

}  // namespace
}  // namespace tessera::relay
