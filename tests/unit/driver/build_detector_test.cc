// Shape values and selections known only when the program runs, as object detectors exported
// from PyTorch compute them: the Shape of a tensor with a `?` extent as a run-time tensor
// (shape_of), TopK with a run-time K (dyn.topk), GatherND over NonZero's `?` count, and
// ConstantOfShape of a tensor's own shape. Each module is compiled once for the VM and run
// against the reference interpreter (the oracle) on several inputs.
#include <gtest/gtest.h>

#include "build_test_util.h"
#include "driver/build.h"
#include "frontend/onnx/importer.h"
#include "runtime/vm/vm.h"
#include "support/diagnostic.h"
#include "unit/frontend/onnx_graph_builder.h"

namespace tessera::driver {
namespace {

using tessera::test::randomTensor;
using test::buildVM;
using test::parse;

NDArray ints(const std::vector<int64_t>& v) {
  NDArray a = NDArray::empty({static_cast<int64_t>(v.size())}, DataType::int64());
  for (size_t k = 0; k < v.size(); ++k) a.setInt(static_cast<int64_t>(k), v[k]);
  return a;
}

std::vector<int64_t> intValues(const NDArray& a) {
  std::vector<int64_t> out;
  for (int64_t i = 0; i < a.numel(); ++i) out.push_back(a.getInt(i));
  return out;
}

// The two builtins against their reference kernels: topk along either axis with a k from the
// data, both orders, all three result kinds, and shape_of of a `?` tensor.
TEST(BuildDetector, TopKAndShapeOfBuiltinsMatchTheInterpreter) {
  const relay::IRModule m = parse(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(5, 7), float32], %k: Tensor[(1), int64], %c: Tensor[(7), float32]) {
  %0 = dyn.topk(%x, %k);
  %1 = dyn.topk(%x, %k, axis=0, is_ascend=True, ret_type="values");
  %2 = argwhere(%c);
  %3 = dyn.topk(%c, %k, ret_type="indices", dtype="int32");
  (%0.0, %0.1, %1, %3, shape_of(%2), shape_of(%x, dtype="int32"))
})");
  const Built built = buildVM(m);
  for (int64_t k : {0, 1, 3, 5}) {
    NDArray x = randomTensor({5, 7}, DataType::float32(), 10 + k, -1, 1);
    x.setFloat(3, x.getFloat(4));  // a tie
    EXPECT_TRUE(test::vmMatchesInterpreter(
        built, m, {x, ints({k}), randomTensor({7}, DataType::float32(), 20 + k, -1, 1)}))
        << "k " << k;
  }
  // k past the extent: the builtin names it, as the reference kernel does.
  runtime::vm::VirtualMachine vm(*built.exec);
  const Diagnostic d = tessera::test::diagnosticOf([&] {
    (void)vm.invoke("main", {randomTensor({5, 7}, DataType::float32(), 1), ints({6}),
                             randomTensor({7}, DataType::float32(), 2)});
  });
  EXPECT_EQ(d.code, "topk_k") << d.str();
  EXPECT_NE(d.message.find("k = 6 is outside [0, 5]"), std::string::npos) << d.str();
}

// The per-class selection of torchvision's detection postprocessing, as it exports to ONNX:
// scores over a threshold (Greater, NonZero, Transpose, GatherND), k = min(count, 3) from the
// Shape of the selection (Shape, Gather, Unsqueeze, Concat, ReduceMin), TopK by that k, the boxes
// taken by the chosen indices, and a label per kept box (ConstantOfShape of their Shape).
tessera::test::OnnxGraph detectorSelection() {
  tessera::test::OnnxGraph g(13);
  g.input("scores", {6});
  g.input("boxes", {6, 4});
  g.initializer("threshold", NDArray::scalar(0.2, DataType::float32()));
  g.initializer("zero", NDArray::scalarInt(0, DataType::int64()));
  g.initializer("axes0", ints({0}));
  g.initializer("most", ints({3}));
  g.node("Greater", {"scores", "threshold"}, {"over"});
  g.node("NonZero", {"over"}, {"nz"});
  g.node("Transpose", {"nz"}, {"idx"}).ints("perm", {1, 0});
  g.node("GatherND", {"scores", "idx"}, {"kept"});
  g.node("GatherND", {"boxes", "idx"}, {"kept_boxes"});
  g.node("Shape", {"kept"}, {"ks"});
  g.node("Gather", {"ks", "zero"}, {"count"});
  g.node("Unsqueeze", {"count", "axes0"}, {"count1"});
  g.node("Concat", {"count1", "most"}, {"both"}).i("axis", 0);
  g.node("ReduceMin", {"both"}, {"k"}).i("keepdims", 1);
  g.node("TopK", {"kept", "k"}, {"top", "top_idx"});
  g.node("Gather", {"kept_boxes", "top_idx"}, {"top_boxes"}).i("axis", 0);
  g.node("Shape", {"top"}, {"ts"});
  g.node("ConstantOfShape", {"ts"}, {"labels"}).t("value", ints({7}));
  g.output("top");
  g.output("top_boxes");
  g.output("labels");
  return g;
}

TEST(BuildDetector, ThresholdedTopKPerClassCompilesAndMatches) {
  const relay::IRModule m = frontend::onnx::importOnnxBytes(detectorSelection().bytes());
  const Built built = buildVM(m);
  const NDArray boxes = randomTensor({6, 4}, DataType::float32(), 3);
  // 0, 2 and 5 scores over the threshold: fewer than k's cap, none, and more.
  const std::vector<std::vector<double>> cases = {
      {0.1, 0.9, 0.1, 0.5, 0.1, 0.1}, {0, 0, 0, 0, 0, 0}, {0.3, 0.9, 0.25, 0.5, 0.7, 0.1}};
  for (const std::vector<double>& s : cases) {
    const NDArray scores = tessera::test::tensorOf({6}, DataType::float32(), s);
    EXPECT_TRUE(test::vmMatchesInterpreter(built, m, {scores, boxes})) << s[0];
  }
  runtime::vm::VirtualMachine vm(*built.exec);
  const std::vector<NDArray> got = test::flatten(
      vm.invoke("main", {tessera::test::tensorOf({6}, DataType::float32(), cases[2]), boxes}));
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0].shape(), (std::vector<int64_t>{3}));
  EXPECT_FLOAT_EQ(got[0].getFloat(0), 0.9f);
  EXPECT_FLOAT_EQ(got[0].getFloat(2), 0.5f);
  EXPECT_EQ(got[1].shape(), (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(intValues(got[2]), (std::vector<int64_t>{7, 7, 7}));
}

// A graph of `x` with a dynamic batch, computing the shape value `other` = [batch, 5] as PyTorch
// exports `(x.size(0), 5)`: Shape `s`, Gather, Unsqueeze (`batch1`), Concat.
tessera::test::OnnxGraph batchByFive() {
  tessera::test::OnnxGraph g(13);
  g.input("x", {-1, 3});
  g.initializer("zero", NDArray::scalarInt(0, DataType::int64()));
  g.initializer("axes0", ints({0}));
  g.initializer("five", ints({5}));
  g.node("Shape", {"x"}, {"s"});
  g.node("Gather", {"s", "zero"}, {"batch"});
  g.node("Unsqueeze", {"batch", "axes0"}, {"batch1"});
  g.node("Concat", {"batch1", "five"}, {"other"}).i("axis", 0);
  return g;
}

// `x` through the VM, once the VM's outputs are checked against the interpreter's on it.
std::vector<NDArray> runChecked(const Built& built, const relay::IRModule& m, const NDArray& x) {
  EXPECT_TRUE(test::vmMatchesInterpreter(built, m, {x})) << "batch " << x.shape()[0];
  runtime::vm::VirtualMachine vm(*built.exec);
  return test::flatten(vm.invoke("main", {x}));
}

// A shape value is a tensor like any other: a graph output; ConstantOfShape of a tensor's own
// shape (full_like) or of one mixing extents and constants (MultiScaleRoIAlign's
// `torch.zeros((num_rois, 256, 7, 7))`); Expand to such a shape. An entry computed from two `?`
// extents is known only as a run-time tensor, which ConstantOfShape cannot read: an error.
TEST(BuildDetector, ShapeValuesOfADynamicBatchAreRunTimeTensors) {
  tessera::test::OnnxGraph g = batchByFive();
  g.initializer("row", randomTensor({1, 5}, DataType::float32(), 8));
  g.node("ConstantOfShape", {"s"}, {"filled"}).t("value", ints({2}));
  g.node("ConstantOfShape", {"other"}, {"zeros"});
  g.node("Expand", {"row", "other"}, {"rows"});
  g.output("s");
  g.output("filled");
  g.output("other");
  g.output("zeros");
  g.output("rows");
  const relay::IRModule m = frontend::onnx::importOnnxBytes(g.bytes(), {.dynamicDims = true});
  const Built built = buildVM(m);
  for (int64_t batch : {1, 4}) {
    const NDArray x = randomTensor({batch, 3}, DataType::float32(), 5);
    const std::vector<NDArray> got = runChecked(built, m, x);
    EXPECT_EQ(intValues(got[0]), (std::vector<int64_t>{batch, 3}));
    EXPECT_EQ(got[1].shape(), (std::vector<int64_t>{batch, 3}));
    EXPECT_EQ(got[1].getInt(0), 2);
    EXPECT_EQ(intValues(got[2]), (std::vector<int64_t>{batch, 5}));
    EXPECT_EQ(got[3].shape(), (std::vector<int64_t>{batch, 5}));
    EXPECT_EQ(got[3].getFloat(got[3].numel() - 1), 0.0);
    ASSERT_EQ(got[4].shape(), (std::vector<int64_t>{batch, 5}));
    EXPECT_EQ(got[4].getFloat(5 * batch - 1), got[4].getFloat(4));
  }
  g.node("Mul", {"batch1", "batch1"}, {"square"});
  g.node("ConstantOfShape", {"square"}, {"bad"});
  g.output("bad");
  const Diagnostic d = tessera::test::diagnosticOf(
      [&] { frontend::onnx::importOnnxBytes(g.bytes(), {.dynamicDims = true}); });
  EXPECT_NE(d.context.find("ConstantOfShape"), std::string::npos) << d.str();
  EXPECT_NE(d.message.find("run-time data"), std::string::npos) << d.str();
}

// PyTorch's `idx.view(-1, 1).expand(rois.size(0), 5)` as it exports (MultiScaleRoIAlign before
// its scatter): the sizes joined and flattened to one axis, tested against -1 (Equal with
// ConstantOfShape * -1), the -1 entries replaced by Where, then Expand. The entries are followed
// through all of it, so the Expand gets its shape at import.
TEST(BuildDetector, ExpandWithMinusOneEntriesFollowsTheSizes) {
  tessera::test::OnnxGraph g = batchByFive();
  g.initializer("flat", ints({-1}));
  g.initializer("minus", NDArray::scalarInt(-1, DataType::int64()));
  g.initializer("column", randomTensor({1, 1}, DataType::float32(), 9));
  g.node("Reshape", {"other", "flat"}, {"wanted"});
  g.node("Shape", {"wanted"}, {"count"});
  g.node("ConstantOfShape", {"count"}, {"ones"}).t("value", ints({1}));
  g.node("Mul", {"ones", "minus"}, {"minusOnes"});
  g.node("Equal", {"wanted", "minusOnes"}, {"isMinus"});
  g.node("Where", {"isMinus", "ones", "wanted"}, {"target"});
  g.node("Expand", {"column", "target"}, {"expanded"});
  g.output("expanded");
  const relay::IRModule m = frontend::onnx::importOnnxBytes(g.bytes(), {.dynamicDims = true});
  const Built built = buildVM(m);
  for (int64_t batch : {1, 4}) {
    const NDArray x = randomTensor({batch, 3}, DataType::float32(), 5);
    const std::vector<NDArray> got = runChecked(built, m, x);
    ASSERT_EQ(got[0].shape(), (std::vector<int64_t>{batch, 5}));
    EXPECT_EQ(got[0].getFloat(5 * batch - 1), got[0].getFloat(0));
  }
}

}  // namespace
}  // namespace tessera::driver
