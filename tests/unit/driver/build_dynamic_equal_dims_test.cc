// Two independent `?` dims meeting in one op (issue 28): the VM compiler assumes them equal, as
// TVM does, computes the result from one of them and checks them equal when the program runs
// (assert_equal). Each module is compiled once, run at several extents against the reference
// interpreter, and run with unequal extents, which must be a clean error naming the op and both
// extents, never a kernel reading out of bounds.
#include <gtest/gtest.h>

#include "build_test_util.h"
#include "frontend/onnx/importer.h"
#include "runtime/vm/vm.h"
#include "runtime/vm/vm_file.h"
#include "unit/frontend/onnx_graph_builder.h"

namespace tessera::driver {
namespace {

using tessera::test::randomTensor;
using test::buildVM;
using test::parse;
using test::vmMatchesInterpreter;

NDArray floats(const std::vector<int64_t>& shape, uint64_t seed) {
  return randomTensor(shape, DataType::float32(), seed);
}

// The VM's error for `inputs`: code vm_shape, naming `op` and the extents ("3 vs 5").
::testing::AssertionResult unequalAtRunTime(const Built& built, const std::vector<NDArray>& inputs,
                                            const std::string& op, const std::string& extents) {
  runtime::vm::VirtualMachine vm(*built.exec);
  const Diagnostic d = tessera::test::diagnosticOf([&] { vm.invoke("main", inputs); });
  if (d.code != "vm_shape") return ::testing::AssertionFailure() << d.code << ": " << d.message;
  for (const std::string& part : {op, std::string("differ at run time: ") + extents})
    if (d.message.find(part) == std::string::npos)
      return ::testing::AssertionFailure() << "'" << part << "' not in: " << d.message;
  return ::testing::AssertionSuccess();
}

bool hasInstruction(const Built& built, const std::string& text) {
  return built.exec->asText().find(text) != std::string::npos;
}

// Both batches lead, so the add runs as a one-row kernel; the check comes before it.
TEST(BuildDynamic, AddOfTwoIndependentBatches) {
  const relay::IRModule m =
      parse(R"(def @main(%x: Tensor[(?, 4), float32], %y: Tensor[(?, 4), float32]) {
  add(%x, %y)
})");
  const Built built = buildVM(m);
  ASSERT_TRUE(built.exec);
  EXPECT_TRUE(hasInstruction(built, "assert_equal")) << built.exec->asText();
  for (int64_t n : {1, 3, 8})
    EXPECT_TRUE(vmMatchesInterpreter(built, m, {floats({n, 4}, 1), floats({n, 4}, 2)})) << n;
  EXPECT_TRUE(unequalAtRunTime(built, {floats({3, 4}, 1), floats({5, 4}, 2)},
                               "add: dimension 0 of the inputs", "3 vs 5"));
  // A batch of 1 against another is refused too (TVM would broadcast it): the kernel was
  // compiled for equal extents.
  EXPECT_TRUE(unequalAtRunTime(built, {floats({1, 4}, 1), floats({5, 4}, 2)}, "add", "1 vs 5"));

  // vm.json keeps the check (a new opcode, read back as written).
  Built reloaded = built;
  reloaded.exec->functions =
      runtime::vm::programFromJson(runtime::vm::programToJson(*built.exec), "vm.json");
  EXPECT_EQ(reloaded.exec->asText(), built.exec->asText());
  EXPECT_TRUE(unequalAtRunTime(reloaded, {floats({3, 4}, 1), floats({5, 4}, 2)}, "add", "3 vs 5"));
}

// The `?` is not a leading axis: the add is compiled for symbolic extents (no row kernel).
TEST(BuildDynamic, AddWithSymbolicExtentsChecksThem) {
  const relay::IRModule m =
      parse(R"(def @main(%x: Tensor[(2, ?), float32], %y: Tensor[(2, ?), float32]) {
  multiply(add(%x, %y), %y)
})");
  const Built built = buildVM(m);
  EXPECT_FALSE(hasInstruction(built, "call_kernel_rows")) << built.exec->asText();
  for (int64_t n : {1, 3, 8})
    EXPECT_TRUE(vmMatchesInterpreter(built, m, {floats({2, n}, 3), floats({2, n}, 4)})) << n;
  EXPECT_TRUE(unequalAtRunTime(built, {floats({2, 3}, 3), floats({2, 5}, 4)},
                               "dimension 1 of the inputs", "3 vs 5"));
}

// dense and conv2d on a `?` batch (row kernels with static schedules) added to a second input
// with its own `?` batch.
TEST(BuildDynamic, DenseAndConvPlusASecondBatch) {
  const relay::IRModule dense = test::withRandomConstants(parse(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(?, 8), float32], %y: Tensor[(?, 16), float32]) {
  %0 = nn.dense(%x, meta[relay.Constant][0] /* ty=Tensor[(16, 8), float32] */, units=16);
  nn.relu(add(%0, %y))
}
)"),
                                                          5);
  const Built denseBuilt = buildVM(dense);
  EXPECT_TRUE(hasInstruction(denseBuilt, "call_kernel_rows")) << denseBuilt.exec->asText();
  for (int64_t n : {1, 3, 8})
    EXPECT_TRUE(vmMatchesInterpreter(denseBuilt, dense, {floats({n, 8}, 6), floats({n, 16}, 7)}))
        << n;
  EXPECT_TRUE(
      unequalAtRunTime(denseBuilt, {floats({3, 8}, 6), floats({5, 16}, 7)}, "add", "3 vs 5"));

  const relay::IRModule conv = test::withRandomConstants(parse(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(?, 3, 8, 8), float32], %y: Tensor[(?, 4, 8, 8), float32]) {
  %0 = nn.conv2d(%x, meta[relay.Constant][0] /* ty=Tensor[(4, 3, 3, 3), float32] */, padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3]);
  add(%0, %y)
}
)"),
                                                         8);
  const Built convBuilt = buildVM(conv);
  for (int64_t n : {1, 3, 8})
    EXPECT_TRUE(
        vmMatchesInterpreter(convBuilt, conv, {floats({n, 3, 8, 8}, 9), floats({n, 4, 8, 8}, 10)}))
        << n;
  EXPECT_TRUE(unequalAtRunTime(convBuilt, {floats({3, 3, 8, 8}, 9), floats({5, 4, 8, 8}, 10)},
                               "add", "3 vs 5"));
}

// Relations that needed no equal extents before (they passed the first `?` on) now assume and
// check them: concatenate's other axes, batch_matmul's batches; and a `?` meeting a constant.
TEST(BuildDynamic, OtherOpsAssumeTheirExtentsEqual) {
  const relay::IRModule concat =
      parse(R"(def @main(%x: Tensor[(?, 2), float32], %y: Tensor[(?, 3), float32]) {
  concatenate((%x, %y), axis=1)
})");
  const Built concatBuilt = buildVM(concat);
  for (int64_t n : {1, 3, 8})
    EXPECT_TRUE(vmMatchesInterpreter(concatBuilt, concat, {floats({n, 2}, 1), floats({n, 3}, 2)}))
        << n;
  EXPECT_TRUE(unequalAtRunTime(concatBuilt, {floats({3, 2}, 1), floats({5, 3}, 2)},
                               "concatenate: dimension 0 of the inputs", "3 vs 5"));

  const relay::IRModule bmm =
      parse(R"(def @main(%x: Tensor[(?, 2, 3), float32], %y: Tensor[(?, 3, 4), float32]) {
  nn.batch_matmul(%x, %y)
})");
  const Built bmmBuilt = buildVM(bmm);
  for (int64_t n : {1, 3})
    EXPECT_TRUE(vmMatchesInterpreter(bmmBuilt, bmm, {floats({n, 2, 3}, 1), floats({n, 3, 4}, 2)}))
        << n;
  EXPECT_TRUE(unequalAtRunTime(bmmBuilt, {floats({3, 2, 3}, 1), floats({5, 3, 4}, 2)},
                               "nn.batch_matmul", "3 vs 5"));

  // The result's type is static, (3, 4); before, a batch of 1 or 5 reached a kernel compiled for
  // the `?`.
  const relay::IRModule constant = test::withRandomConstants(parse(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(?, 4), float32]) {
  add(%x, meta[relay.Constant][0] /* ty=Tensor[(3, 4), float32] */)
}
)"),
                                                             3);
  const Built constantBuilt = buildVM(constant);
  EXPECT_TRUE(vmMatchesInterpreter(constantBuilt, constant, {floats({3, 4}, 1)}));
  EXPECT_TRUE(unequalAtRunTime(constantBuilt, {floats({5, 4}, 1)}, "add", "5 vs 3"));
}

// Two ONNX inputs with the same dim_param ("N") imported with dynamicDims: each is `?`, and the
// Add relates them by the check above (TVM relates them the same way: assumed, then checked).
TEST(BuildDynamic, OnnxInputsSharingADimParam) {
  tessera::test::OnnxGraph g(13);
  g.input("a", {-1, 3});
  g.input("b", {-1, 3});
  g.node("Add", {"a", "b"}, {"s"});
  g.node("Relu", {"s"}, {"y"});
  g.output("y");
  const relay::IRModule m = frontend::onnx::importOnnxBytes(g.bytes(), {.dynamicDims = true});
  const Built built = buildVM(m);
  for (int64_t n : {1, 3, 8})
    EXPECT_TRUE(vmMatchesInterpreter(built, m, {floats({n, 3}, 11), floats({n, 3}, 12)})) << n;
  EXPECT_TRUE(unequalAtRunTime(built, {floats({3, 3}, 11), floats({5, 3}, 12)}, "add", "3 vs 5"));
}

}  // namespace
}  // namespace tessera::driver
