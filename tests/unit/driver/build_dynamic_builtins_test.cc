// The VM builtins for writes to run-time positions and shapes read from tensors: scatter_elements
// (every reduction, both index dtypes, rows known only when the program runs) and dyn.reshape, each
// compiled once and run at several extents against the reference interpreter; ONNX ScatterElements
// and Flatten over `?` extents as the importer writes them; an out-of-range index as a clean error.
#include <gtest/gtest.h>

#include "build_test_util.h"
#include "driver/build.h"
#include "frontend/onnx/importer.h"
#include "relay/text/printer.h"
#include "runtime/vm/vm.h"
#include "unit/frontend/onnx_graph_builder.h"

namespace tessera::driver {
namespace {

using tessera::test::randomTensor;
using test::buildVM;
using test::parse;

// `rows` x `cols` indices in [-extent, extent): negative ones count from the end.
NDArray indicesIn(int64_t rows, int64_t cols, int64_t extent, DataType dtype, uint64_t seed) {
  NDArray r = randomTensor({rows, cols}, DataType::float32(), seed, 0, 1);
  NDArray out = NDArray::empty({rows, cols}, dtype);
  for (int64_t i = 0; i < out.numel(); ++i)
    out.setInt(i, static_cast<int64_t>(r.getFloat(i) * 2 * extent * 0.999) - extent);
  return out;
}

TEST(BuildDynamicBuiltins, ScatterElementsOverRunTimeRows) {
  const relay::IRModule m = parse(
      R"(def @main(%d: Tensor[(?, 3), float32], %i: Tensor[(?, 3), int64], %u: Tensor[(?, 3), float32], %j: Tensor[(2, 2), int32], %v: Tensor[(2, 2), float32]) {
  %0 = scatter_elements(%d, %i, %u);
  %1 = scatter_elements(%d, %i, %u, reduction="add");
  %2 = scatter_elements(%d, %i, %u, reduction="max");
  %3 = scatter_elements(%d, %j, multiply(%v, 2f), axis=1, reduction="mul");
  (add(%0, 1f), %1, %2, %3)
})");
  const Built built = buildVM(m);
  for (int64_t rows : {2, 5, 9}) {
    const int64_t updates = rows - 1;
    std::vector<NDArray> in = {randomTensor({rows, 3}, DataType::float32(), 1, -1, 1),
                               indicesIn(updates, 3, rows, DataType::int64(), 2 + rows),
                               randomTensor({updates, 3}, DataType::float32(), 3, -1, 1),
                               indicesIn(2, 2, 3, DataType::int32(), 4),
                               randomTensor({2, 2}, DataType::float32(), 5, -1, 1)};
    EXPECT_TRUE(test::vmMatchesInterpreter(built, m, in)) << rows << " rows";
  }
  // Static shapes alone do not make it a graph: scatter_elements has no TE compute.
  const relay::IRModule fixed = parse(
      R"(def @main(%d: Tensor[(4), float32], %i: Tensor[(2), int64], %u: Tensor[(2), float32]) {
  scatter_elements(%d, %i, %u)
})");
  EXPECT_TRUE(needsVM(fixed));
  EXPECT_TRUE(test::vmMatchesInterpreter(buildVM(fixed), fixed,
                                         {randomTensor({4}, DataType::float32(), 1, -1, 1),
                                          indicesIn(1, 2, 4, DataType::int64(), 3).reshaped({2}),
                                          randomTensor({2}, DataType::float32(), 2, -1, 1)}));
}

TEST(BuildDynamicBuiltins, OutOfRangeIndexIsACleanError) {
  const relay::IRModule m = parse(
      R"(def @main(%d: Tensor[(?), float32], %i: Tensor[(1), int64], %u: Tensor[(1), float32]) {
  scatter_elements(%d, %i, %u)
})");
  const Built built = buildVM(m);
  runtime::vm::VirtualMachine vm(*built.exec);
  NDArray index = NDArray::empty({1}, DataType::int64());
  index.setInt(0, 4);
  const Diagnostic d = tessera::test::diagnosticOf([&] {
    vm.invoke("main", {randomTensor({4}, DataType::float32(), 1, 0, 1), index,
                       randomTensor({1}, DataType::float32(), 2, 0, 1)});
  });
  EXPECT_EQ(d.code, "vm_builtin");
  EXPECT_NE(d.message.find("index 4 is out of range for axis 0 of extent 4"), std::string::npos)
      << d.message;
}

TEST(BuildDynamicBuiltins, DynReshapeReadsItsShapeWhenTheProgramRuns) {
  const relay::IRModule m =
      parse(R"(def @main(%x: Tensor[(?, 6), float32], %s: Tensor[(3), int64]) {
  %0 = dyn.reshape(%x, %s);
  nn.relu(reshape(%0, newshape=[0, 0, 2]))
})");
  const std::string printed = relay::printModule(m);
  EXPECT_NE(printed.find("Tensor[(?, ?, 2), float32]"), std::string::npos) << printed;
  const Built built = buildVM(m);
  for (int64_t rows : {1, 4}) {
    NDArray shape = NDArray::empty({3}, DataType::int64());
    shape.setInt(0, rows);
    shape.setInt(1, -1);
    shape.setInt(2, 2);
    EXPECT_TRUE(test::vmMatchesInterpreter(
        built, m, {randomTensor({rows, 6}, DataType::float32(), 5, -1, 1), shape}))
        << rows;
  }
}

// torchvision's MultiScaleRoIAlign writes pooled boxes into rows numbered at run time.
TEST(BuildDynamicBuiltins, OnnxScatterElementsOverAnyRowsIsTheBuiltin) {
  tessera::test::OnnxGraph g(13);
  g.input("d", {-1, 4}).input("i", {-1, 4}, ::onnx::TensorProto::INT64).input("u", {-1, 4});
  g.node("ScatterElements", {"d", "i", "u"}, {"y"}).i("axis", 0);
  g.output("y");
  const relay::IRModule m = frontend::onnx::importOnnxBytes(g.bytes(), {.dynamicDims = true});
  const std::string printed = relay::printModule(m);
  EXPECT_NE(printed.find("scatter_elements(%d, %i, %u"), std::string::npos) << printed;
  const Built built = buildVM(m);
  for (int64_t rows : {1, 3, 8})
    EXPECT_TRUE(
        test::vmMatchesInterpreter(built, m,
                                   {randomTensor({rows, 4}, DataType::float32(), 6, -1, 1),
                                    indicesIn(rows, 4, rows, DataType::int64(), 7),
                                    randomTensor({rows, 4}, DataType::float32(), 8, -1, 1)}))
        << rows;
}

TEST(BuildDynamicBuiltins, DynStridedSliceReadsItsBoundsWhenTheProgramRuns) {
  const relay::IRModule m = parse(
      R"(def @main(%x: Tensor[(?, 5), float32], %b: Tensor[(2), int64], %e: Tensor[(2), int64], %s: Tensor[(2), int64]) {
  %0 = dyn.strided_slice(%x, %b, %e, %s, axes=[1, 0]);
  add(%0, 1f)
})");
  const Built built = buildVM(m);
  auto ints = [](std::vector<int64_t> v) {
    NDArray a = NDArray::empty({static_cast<int64_t>(v.size())}, DataType::int64());
    for (size_t k = 0; k < v.size(); ++k) a.setInt(static_cast<int64_t>(k), v[k]);
    return a;
  };
  const NDArray x = randomTensor({6, 5}, DataType::float32(), 12, -1, 1);
  // Columns 1, 3 of rows 0-1; columns from the last back by 2 of rows from 3 back; nothing.
  EXPECT_TRUE(
      test::vmMatchesInterpreter(built, m, {x, ints({1, 0}), ints({100, 2}), ints({2, 1})}));
  EXPECT_TRUE(
      test::vmMatchesInterpreter(built, m, {x, ints({-1, 3}), ints({-100, -100}), ints({-2, -1})}));
  EXPECT_TRUE(test::vmMatchesInterpreter(built, m, {x, ints({4, 0}), ints({2, 6}), ints({1, 1})}));
}

// torchvision's `split(boxes_per_image)`: a Slice whose end is another tensor's row count.
TEST(BuildDynamicBuiltins, OnnxSliceToARunTimeEnd) {
  tessera::test::OnnxGraph g(13);
  g.input("x", {-1, 4}).input("p", {-1, 2});
  NDArray zero = NDArray::empty({1}, DataType::int64());
  zero.setInt(0, 0);
  NDArray index = NDArray::scalarInt(0, DataType::int64());
  g.initializer("zero", zero).initializer("index", index);
  g.node("Shape", {"p"}, {"ps"});
  g.node("Gather", {"ps", "index"}, {"rows"});
  g.node("Unsqueeze", {"rows", "zero"}, {"end"});
  g.node("Slice", {"x", "zero", "end", "zero"}, {"y"});
  g.output("y");
  const relay::IRModule m = frontend::onnx::importOnnxBytes(g.bytes(), {.dynamicDims = true});
  const std::string printed = relay::printModule(m);
  EXPECT_NE(printed.find("dyn.strided_slice"), std::string::npos) << printed;
  const Built built = buildVM(m);
  for (auto [rows, keep] : {std::pair<int64_t, int64_t>{5, 3}, {2, 2}, {3, 6}, {4, 0}})
    EXPECT_TRUE(
        test::vmMatchesInterpreter(built, m,
                                   {randomTensor({rows, 4}, DataType::float32(), 10, -1, 1),
                                    randomTensor({keep, 2}, DataType::float32(), 11, -1, 1)}))
        << rows << " rows, " << keep << " kept";
}

// Flatten of a tensor whose `?` extents are past the leading axis, at every axis.
TEST(BuildDynamicBuiltins, OnnxFlattenMergesAnyExtents) {
  tessera::test::OnnxGraph g(13);
  g.input("x", {-1, -1, 4});
  for (int axis : {0, 1, 2, 3})
    g.node("Flatten", {"x"}, {"f" + std::to_string(axis)}).i("axis", axis);
  for (int axis : {0, 1, 2, 3}) g.output("f" + std::to_string(axis));
  const relay::IRModule m = frontend::onnx::importOnnxBytes(g.bytes(), {.dynamicDims = true});
  const Built built = buildVM(m);
  for (std::vector<int64_t> shape : {std::vector<int64_t>{2, 3, 4}, {1, 5, 4}, {3, 1, 4}}) {
    EXPECT_TRUE(
        test::vmMatchesInterpreter(built, m, {randomTensor(shape, DataType::float32(), 9, -1, 1)}))
        << shape[0] << "x" << shape[1];
  }
}

}  // namespace
}  // namespace tessera::driver
