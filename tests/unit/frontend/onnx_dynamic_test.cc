// ONNX importer, operators with data-dependent output shapes (NonZero, Compress, Unique,
// NonMaxSuppression): the imported types carry `?` dims, the reference interpreter gives the
// results computed here by hand (empty ones included), attributes and inputs are validated with
// diagnostics naming the node, and build() refuses such a module naming the op.
#include <gtest/gtest.h>

#include "codegen/llvm/target.h"
#include "driver/build.h"
#include "onnx_test_util.h"
#include "relay/text/printer.h"

namespace tessera::test {
namespace {

constexpr int32_t kInt64 = ::onnx::TensorProto::INT64;
constexpr int32_t kBoolType = ::onnx::TensorProto::BOOL;
const DataType kBool = DataType::boolType();

Diagnostic importError(const OnnxGraph& g) {
  return diagnosticOf([&] { (void)frontend::onnx::importOnnxBytes(g.bytes(), {}); });
}
void expectTensor(const NDArray& got, const std::vector<int64_t>& shape, DataType dtype,
                  const std::vector<double>& want) {
  EXPECT_EQ(got.shape(), shape);
  EXPECT_EQ(got.dtype(), dtype);
  EXPECT_EQ(valuesOf(got), want);
}

// --- NonZero -------------------------------------------------------------------------------------

OnnxGraph nonZeroGraph(const std::vector<int64_t>& shape, int32_t elem) {
  OnnxGraph g(13);
  g.input("x", shape, elem);
  g.node("NonZero", {"x"}, {"y"});
  g.output("y");
  return g;
}

TEST(OnnxDynamic, NonZeroIsTransposedArgwhere) {
  const OnnxGraph g = nonZeroGraph({2, 3}, ::onnx::TensorProto::FLOAT);
  const relay::IRModule m = frontend::onnx::importOnnxBytes(g.bytes(), {});
  const std::string text = relay::printModule(m);
  EXPECT_NE(text.find("argwhere"), std::string::npos) << text;
  EXPECT_NE(text.find("Tensor[(2, ?), int64]"), std::string::npos) << text;
  expectTensor(runOnnx1(g, {f32({2, 3}, {0, 1, 0, 2, 0, 3})}), {2, 3}, DataType::int64(),
               {0, 1, 1, 1, 0, 2});
}

TEST(OnnxDynamic, NonZeroOfAllZerosIsRankByZero) {
  const OnnxGraph g = nonZeroGraph({2, 2}, kBoolType);
  expectTensor(runOnnx1(g, {tensorOf({2, 2}, kBool, {0, 0, 0, 0})}), {2, 0}, DataType::int64(), {});
}

TEST(OnnxDynamic, NonZeroOfAScalarIsOneRow) {
  const OnnxGraph g = nonZeroGraph({}, kInt64);
  expectTensor(runOnnx1(g, {i64({}, {5})}), {1, 1}, DataType::int64(), {0});
}

// --- Compress ------------------------------------------------------------------------------------

OnnxGraph compressGraph(const std::vector<int64_t>& shape, int64_t condLength,
                        std::optional<int64_t> axis) {
  OnnxGraph g(11);
  g.input("x", shape);
  g.input("c", {condLength}, kBoolType);
  OnnxNode node = g.node("Compress", {"x", "c"}, {"y"}, "compress");
  if (axis) node.i("axis", *axis);
  g.output("y");
  return g;
}

TEST(OnnxDynamic, CompressAlongAnAxis) {
  const NDArray x = f32({3, 2}, {1, 2, 3, 4, 5, 6});
  const NDArray c = tensorOf({3}, kBool, {0, 1, 1});
  expectTensor(runOnnx1(compressGraph({3, 2}, 3, 0), {x, c}), {2, 2}, DataType::float32(),
               {3, 4, 5, 6});
  // A shorter condition drops the slices past its end; a negative axis counts from the back.
  expectTensor(runOnnx1(compressGraph({3, 2}, 1, -1), {x, tensorOf({1}, kBool, {1})}), {3, 1},
               DataType::float32(), {1, 3, 5});
}

TEST(OnnxDynamic, CompressFlattenedAndEmpty) {
  const NDArray x = f32({2, 2}, {1, 2, 3, 4});
  expectTensor(
      runOnnx1(compressGraph({2, 2}, 4, std::nullopt), {x, tensorOf({4}, kBool, {1, 0, 0, 1})}),
      {2}, DataType::float32(), {1, 4});
  expectTensor(runOnnx1(compressGraph({2, 2}, 2, 1), {x, tensorOf({2}, kBool, {0, 0})}), {2, 0},
               DataType::float32(), {});
}

TEST(OnnxDynamic, CompressConditionLongerThanTheAxisIsAnError) {
  const Diagnostic d = importError(compressGraph({3, 2}, 3, 1));
  EXPECT_EQ(d.code, "onnx_input") << d.str();
  EXPECT_NE(d.context.find("'compress' (Compress)"), std::string::npos) << d.str();
  EXPECT_NE(d.message.find("condition has 3 entries but axis 1 has 2"), std::string::npos)
      << d.str();
}

TEST(OnnxDynamic, CompressNeedsABoolVectorAndAnAxisInRange) {
  OnnxGraph g(11);
  g.input("x", {3, 2});
  g.input("c", {3});
  g.node("Compress", {"x", "c"}, {"y"}).i("axis", 0);
  g.output("y");
  EXPECT_EQ(importError(g).code, "onnx_input");
  EXPECT_EQ(importError(compressGraph({3, 2}, 2, 2)).code, "onnx_axis");
}

// --- Unique --------------------------------------------------------------------------------------

OnnxGraph uniqueGraph(const std::vector<int64_t>& shape, std::optional<int64_t> axis,
                      int64_t sorted, const std::vector<std::string>& outputs) {
  OnnxGraph g(11);
  g.input("x", shape);
  OnnxNode node = g.node("Unique", {"x"}, outputs, "unique").i("sorted", sorted);
  if (axis) node.i("axis", *axis);
  for (const std::string& o : outputs)
    if (!o.empty()) g.output(o);
  return g;
}

// ONNX's test_unique_sorted_with_axis.
TEST(OnnxDynamic, UniqueWithAxisGivesFourOutputs) {
  const OnnxGraph g = uniqueGraph({3, 3}, 0, 1, {"y", "idx", "inv", "cnt"});
  const relay::Value r = runOnnx(g, {f32({3, 3}, {1, 0, 0, 1, 0, 0, 2, 3, 4})});
  ASSERT_TRUE(r.isTuple());
  expectTensor(r.fields()[0].tensor(), {2, 3}, DataType::float32(), {1, 0, 0, 2, 3, 4});
  expectTensor(r.fields()[1].tensor(), {2}, DataType::int64(), {0, 2});
  expectTensor(r.fields()[2].tensor(), {3}, DataType::int64(), {0, 0, 1});
  expectTensor(r.fields()[3].tensor(), {2}, DataType::int64(), {2, 1});
}

TEST(OnnxDynamic, UniqueUnsortedWithOnlySomeOutputs) {
  const OnnxGraph g = uniqueGraph({6}, std::nullopt, 0, {"y", "", "", "cnt"});
  const relay::Value r = runOnnx(g, {f32({6}, {2, 1, 1, 3, 4, 3})});
  ASSERT_TRUE(r.isTuple());
  expectTensor(r.fields()[0].tensor(), {4}, DataType::float32(), {2, 1, 3, 4});
  expectTensor(r.fields()[1].tensor(), {4}, DataType::int64(), {1, 2, 2, 1});
}

TEST(OnnxDynamic, UniqueValidatesSortedAndAxis) {
  const Diagnostic sorted = importError(uniqueGraph({6}, std::nullopt, 2, {"y"}));
  EXPECT_EQ(sorted.code, "onnx_unsupported_attr") << sorted.str();
  EXPECT_NE(sorted.context.find("'unique' (Unique)"), std::string::npos) << sorted.str();
  EXPECT_EQ(importError(uniqueGraph({6}, 1, 1, {"y"})).code, "onnx_axis");
}

// --- NonMaxSuppression ---------------------------------------------------------------------------

// Boxes and scores as run-time inputs; the limit and thresholds given (graph inputs) or omitted.
OnnxGraph nmsGraph(int64_t boxes, int64_t classes, bool withInputs, int64_t center = 0) {
  OnnxGraph g(11);
  g.input("boxes", {1, boxes, 4});
  g.input("scores", {1, classes, boxes});
  std::vector<std::string> inputs = {"boxes", "scores"};
  if (withInputs) {
    g.input("max", {1}, kInt64);
    g.input("iou", {1});
    g.input("score", {1});
    inputs.insert(inputs.end(), {"max", "iou", "score"});
  }
  g.node("NonMaxSuppression", inputs, {"y"}, "nms").i("center_point_box", center);
  g.output("y");
  return g;
}

NDArray unitBoxes() {
  return f32({1, 6, 4}, {0, 0,  1, 1,  0, 0.1,  1, 1.1,  0, -0.1, 1, 0.9,
                         0, 10, 1, 11, 0, 10.1, 1, 11.1, 0, 100,  1, 101});
}

// ONNX's test_nonmaxsuppression_suppress_by_IOU_and_scores.
TEST(OnnxDynamic, NonMaxSuppressionByIouAndScores) {
  const NDArray scores = f32({1, 1, 6}, {0.9, 0.75, 0.6, 0.95, 0.5, 0.3});
  expectTensor(runOnnx1(nmsGraph(6, 1, true),
                        {unitBoxes(), scores, i64({1}, {3}), f32({1}, {0.5}), f32({1}, {0.4})}),
               {2, 3}, DataType::int64(), {0, 0, 3, 0, 0, 0});
}

// Without max_output_boxes_per_class nothing is selected (ONNX's default 0).
TEST(OnnxDynamic, NonMaxSuppressionDefaultsSelectNothing) {
  const NDArray scores = f32({1, 1, 6}, {0.9, 0.75, 0.6, 0.95, 0.5, 0.3});
  expectTensor(runOnnx1(nmsGraph(6, 1, false), {unitBoxes(), scores}), {0, 3}, DataType::int64(),
               {});
}

TEST(OnnxDynamic, NonMaxSuppressionValidatesItsInputs) {
  const Diagnostic center = importError(nmsGraph(6, 1, true, 2));
  EXPECT_EQ(center.code, "onnx_unsupported_attr") << center.str();
  OnnxGraph g(11);
  g.input("boxes", {1, 6, 4});
  g.input("scores", {1, 1, 5});
  g.node("NonMaxSuppression", {"boxes", "scores"}, {"y"}, "nms");
  g.output("y");
  const Diagnostic shapes = importError(g);
  EXPECT_EQ(shapes.code, "nms_c3") << shapes.str();
  EXPECT_NE(shapes.context.find("'nms' (NonMaxSuppression)"), std::string::npos) << shapes.str();
}

// --- build ---------------------------------------------------------------------------------------

TEST(OnnxDynamic, BuildRefusesADataDependentShapeNamingTheOp) {
  const relay::IRModule m =
      frontend::onnx::importOnnxBytes(uniqueGraph({6}, std::nullopt, 1, {"y"}).bytes(), {});
  const Diagnostic d = diagnosticOf([&] { (void)driver::build(m, codegen::hostTarget()); });
  EXPECT_EQ(d.code, "data_dependent_shape") << d.str();
  EXPECT_NE(d.message.find("unique has a data-dependent output shape"), std::string::npos)
      << d.str();
}

}  // namespace
}  // namespace tessera::test
