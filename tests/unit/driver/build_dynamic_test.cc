// Shape-dynamic modules on the VM: `?` dims typed through, outputs allocated from shape functions,
// kernels compiled for symbolic extents, and the ops whose output shapes come from the data run as
// VM builtins. Every module is compiled once and run at several shapes against the reference
// interpreter (the oracle) on seeded random inputs.

#include <gtest/gtest.h>

#include "build_test_util.h"
#include "driver/build.h"
#include "frontend/onnx/importer.h"
#include "lower/relay/kernel_set.h"
#include "lower/relay/row_kernels.h"
#include "relay/shape_func.h"
#include "runtime/vm/vm.h"
#include "unit/frontend/onnx_graph_builder.h"

namespace tessera::driver {
namespace {

using tessera::test::randomTensor;
using test::buildVM;
using test::parse;

// Sparse data: about half the elements are zero, so argwhere and unique see repeats.
NDArray sparse(const std::vector<int64_t>& shape, uint64_t seed) {
  NDArray x = randomTensor(shape, DataType::float32(), seed, -2, 2);
  for (int64_t i = 0; i < x.numel(); ++i)
    if (x.getFloat(i) < 0) x.setFloat(i, 0);
  return x;
}

TEST(BuildDynamic, DenseSoftmaxOnAnyBatchCompilesOnce) {
  const relay::IRModule m = test::withRandomConstants(parse(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(?, 8), float32]) {
  %0 = nn.dense(%x, meta[relay.Constant][0] /* ty=Tensor[(16, 8), float32] */, units=16);
  %1 = nn.bias_add(%0, meta[relay.Constant][1] /* ty=Tensor[(16), float32] */);
  nn.softmax(nn.relu(%1))
}
)"),
                                                      3);
  EXPECT_TRUE(needsVM(m));
  const Built built = buildVM(m);
  ASSERT_TRUE(built.exec);
  EXPECT_EQ(built.exec->functions.at("main").numShapeVars, 1);
  for (int64_t batch : {1, 3, 8})
    EXPECT_TRUE(
        test::vmMatchesInterpreter(built, m, {randomTensor({batch, 8}, DataType::float32(), 5)}))
        << "batch " << batch;
}

// A CNN's kernels with a symbolic batch: packed convolution weights, pooling, flatten, dense.
TEST(BuildDynamic, ConvNetOnAnyBatch) {
  const relay::IRModule m = test::withRandomConstants(parse(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(?, 3, 12, 12), float32]) {
  %0 = nn.conv2d(%x, meta[relay.Constant][0] /* ty=Tensor[(8, 3, 3, 3), float32] */, padding=[1, 1, 1, 1], channels=8, kernel_size=[3, 3]);
  %1 = nn.relu(%0);
  %2 = nn.max_pool2d(%1, pool_size=[2, 2], strides=[2, 2]);
  %3 = nn.batch_flatten(%2);
  %4 = nn.dense(%3, meta[relay.Constant][1] /* ty=Tensor[(10, 288), float32] */, units=10);
  add(%4, meta[relay.Constant][2] /* ty=Tensor[(10), float32] */)
}
)"),
                                                      11);
  const Built built = buildVM(m);
  for (int64_t batch : {1, 3, 8})
    EXPECT_TRUE(test::vmMatchesInterpreter(
        built, m, {randomTensor({batch, 3, 12, 12}, DataType::float32(), 9)}))
        << "batch " << batch;
}

// An ONNX model with a dynamic batch (dim_param) imported with dynamicDims: Conv, MaxPool,
// Flatten, Gemm and Softmax keep the batch as `?`, and the module compiles once.
TEST(BuildDynamic, OnnxDynamicBatchImportsAndCompilesOnce) {
  tessera::test::OnnxGraph g(13);
  g.input("x", {-1, 2, 6, 6});
  g.initializer("w", randomTensor({4, 2, 3, 3}, DataType::float32(), 1, -1, 1));
  g.initializer("b", randomTensor({4}, DataType::float32(), 2, -1, 1));
  g.initializer("fc", randomTensor({5, 36}, DataType::float32(), 3, -1, 1));
  g.node("Conv", {"x", "w", "b"}, {"c"}).ints("pads", {1, 1, 1, 1});
  g.node("Relu", {"c"}, {"r"});
  g.node("MaxPool", {"r"}, {"p"}).ints("kernel_shape", {2, 2}).ints("strides", {2, 2});
  g.node("Flatten", {"p"}, {"f"});
  g.node("Gemm", {"f", "fc"}, {"d"}).i("transB", 1);
  g.node("Softmax", {"d"}, {"y"});
  g.output("y");
  // Without dynamicDims the dim_param is an error naming the input.
  EXPECT_EQ(tessera::test::diagnosticOf([&] { frontend::onnx::importOnnxBytes(g.bytes()); }).code,
            "onnx_dynamic");
  const relay::IRModule m = frontend::onnx::importOnnxBytes(g.bytes(), {.dynamicDims = true});
  EXPECT_FALSE(relay::isKnown(relay::symValueOfType(m.main()->params[0]->type())));
  const Built built = buildVM(m);
  for (int64_t batch : {1, 3, 5})
    EXPECT_TRUE(test::vmMatchesInterpreter(
        built, m, {randomTensor({batch, 2, 6, 6}, DataType::float32(), 4)}))
        << "batch " << batch;
}

// `x.view(x.size(0), -1)` and `x.reshape(x.shape[0], c // 2, 2)` as PyTorch exports them: the
// Shape of a tensor with a `?` batch is followed at import (Gather, Unsqueeze, Concat, Div, Cast)
// into Reshape, which keeps the batch with Relay's copy code 0 or infers it with -1; two run-time
// entries make a dyn.reshape.
TEST(BuildDynamic, OnnxShapeOfADynamicBatchReachesReshape) {
  tessera::test::OnnxGraph g(13);
  g.input("x", {-1, 4, 3, 2});
  g.initializer("zero", NDArray::scalarInt(0, DataType::int64()));
  g.initializer("one", NDArray::scalarInt(1, DataType::int64()));
  g.initializer("two", NDArray::scalarInt(2, DataType::int64()));
  auto ints = [](const std::vector<int64_t>& v) {
    NDArray a = NDArray::empty({static_cast<int64_t>(v.size())}, DataType::int64());
    for (size_t k = 0; k < v.size(); ++k) a.setInt(static_cast<int64_t>(k), v[k]);
    return a;
  };
  g.initializer("minus1", ints({-1}));
  g.initializer("axes0", ints({0}));
  g.node("Shape", {"x"}, {"s"});
  g.node("Gather", {"s", "zero"}, {"batch"});
  g.node("Unsqueeze", {"batch", "axes0"}, {"batch1"});
  g.node("Concat", {"batch1", "minus1"}, {"flat_shape"}).i("axis", 0);
  g.node("Reshape", {"x", "flat_shape"}, {"f"});  // (?, 24): batch copied (0)
  g.node("Shape", {"f"}, {"fs"});
  g.node("Gather", {"fs", "one"}, {"width"});
  g.node("Div", {"width", "two"}, {"half"});
  g.node("Cast", {"half"}, {"half64"}).i("to", 7);
  g.node("Unsqueeze", {"half64", "axes0"}, {"half1"});
  g.node("Gather", {"fs", "zero"}, {"fbatch"});
  g.node("Unsqueeze", {"fbatch", "axes0"}, {"fbatch1"});
  g.node("Concat", {"fbatch1", "half1", "minus1"}, {"pair_shape"}).i("axis", 0);
  g.node("Reshape", {"f", "pair_shape"}, {"pairs"});  // (?, 12, 2): batch copied
  g.node("Reshape", {"pairs", "minus1"}, {"all"});    // (?): inferred
  g.node("Relu", {"all"}, {"y"});
  g.output("y");
  const relay::IRModule m = frontend::onnx::importOnnxBytes(g.bytes(), {.dynamicDims = true});
  const Built built = buildVM(m);
  for (int64_t batch : {1, 3, 8})
    EXPECT_TRUE(test::vmMatchesInterpreter(
        built, m, {randomTensor({batch, 4, 3, 2}, DataType::float32(), 6)}))
        << "batch " << batch;

  // x's batch is f's, but the importer follows extents of the tensor they were read from only:
  // reshaping f to (x.size(0), 12, -1) has two run-time entries, so dyn.reshape reads the shape
  // tensor when the program runs and a reshape restores the 12 to its type.
  tessera::test::OnnxGraph h = g;
  h.node("Concat", {"batch1", "half1", "minus1"}, {"two_unknown"}).i("axis", 0);
  h.node("Reshape", {"f", "two_unknown"}, {"twice"});
  h.model().mutable_graph()->clear_output();
  h.output("twice");
  const relay::IRModule twice = frontend::onnx::importOnnxBytes(h.bytes(), {.dynamicDims = true});
  EXPECT_EQ(typeToString(twice.main()->body->checkedType), "Tensor[(?, 12, ?), float32]");
  const Built twiceBuilt = buildVM(twice);
  for (int64_t batch : {1, 3})
    EXPECT_TRUE(test::vmMatchesInterpreter(
        twiceBuilt, twice, {randomTensor({batch, 4, 3, 2}, DataType::float32(), 7)}))
        << "batch " << batch;
}

// Row kernels only where every op keeps the batch's rows apart: an op along axis 0, a reshape
// across rows or a reduction over them is compiled for symbolic extents instead.
TEST(BuildDynamic, RowSplitOnlyWhereRowsStayApart) {
  const auto split = [](const std::string& body) {
    const relay::IRModule m = parse("def @main(%x: Tensor[(?, 4), float32]) { " + body + " }");
    const relay::Function fused = lower::wrapOpCall(*m.main()->body->as<relay::CallNode>());
    std::string why;
    const bool ok = lower::splitByRows(fused, &why).has_value();
    return ok ? std::string("rows") : why;
  };
  EXPECT_EQ(split("nn.softmax(%x, axis=1)"), "rows");
  EXPECT_EQ(split("nn.relu(%x)"), "rows");
  EXPECT_EQ(split("transpose(%x, axes=[0, 1])"), "rows");
  EXPECT_NE(split("nn.softmax(%x, axis=0)"), "rows");
  EXPECT_NE(split("nn.softmax(%x, axis=-2)"), "rows");
  EXPECT_NE(split("reshape(%x, newshape=[-1, 2])"), "rows");
  EXPECT_NE(split("sum(%x, axis=[0], keepdims=True)"), "rows");
  EXPECT_NE(split("transpose(%x, axes=[1, 0])"), "rows");
}

// Shape functions that compute a dim: reshape's -1 and concatenate along the `?` axis.
TEST(BuildDynamic, ReshapeAndConcatenateComputeTheirExtents) {
  const relay::IRModule m = parse(R"(def @main(%x: Tensor[(?, 4), float32]) {
  %0 = reshape(%x, newshape=[-1, 2]);
  %1 = concatenate((%0, multiply(%0, 2f)), axis=0);
  %2 = reshape(%1, newshape=[2, -1]);
  (exp(%2), %0)
})");
  const Built built = buildVM(m);
  for (int64_t n : {1, 2, 5})
    EXPECT_TRUE(
        test::vmMatchesInterpreter(built, m, {randomTensor({n, 4}, DataType::float32(), 2)}))
        << n;
}

// torchvision's box clipping over `?` boxes, fused into one kernel (RetinaNet's postprocessing):
// strided slices of the columns, then expand_dims, concatenate and a reshape to [-1, 4], joined
// with another level's boxes. The intermediates' `?` extents must be expressions of the
// parameters' (a fresh size variable there was unbound: "variable 'any_dim' is used but not
// defined").
TEST(BuildDynamic, SlicedAndReshapedIntermediatesKeepBoundExtents) {
  const relay::IRModule m =
      parse(R"(def @main(%a: Tensor[(?, 4), float32], %b: Tensor[(?, 4), float32]) {
  %0 = strided_slice(%a, begin=[0], end=[9223372036854775807], strides=[2], axes=[1]);
  %1 = strided_slice(%a, begin=[1], end=[9223372036854775807], strides=[2], axes=[1]);
  %2 = expand_dims(minimum(maximum(%0, 0f), 1f), axis=2);
  %3 = expand_dims(minimum(maximum(%1, 0f), 1f), axis=2);
  %4 = reshape(concatenate((%2, %3), axis=2), newshape=[-1, 4]);
  %5 = strided_slice(%b, begin=[1], end=[-1], strides=[1], axes=[0]);
  concatenate((%4, exp(%5)), axis=0)
})");
  const Built built = buildVM(m);
  for (const auto& [na, nb] : {std::pair<int64_t, int64_t>{1, 2}, {3, 1}, {7, 5}})
    EXPECT_TRUE(test::vmMatchesInterpreter(built, m,
                                           {randomTensor({na, 4}, DataType::float32(), 3, -1, 2),
                                            randomTensor({nb, 4}, DataType::float32(), 4)}))
        << na << " " << nb;
}

TEST(BuildDynamic, ShapeFunctionsComposeThroughAFusedFunction) {
  const relay::IRModule m = parse(R"(def @main(%x: Tensor[(?, 6), float32]) {
  reshape(transpose(%x, axes=[1, 0]), newshape=[3, -1])
})");
  const relay::Function& main = m.main();
  const auto n = tir::makeSizeVar("n", DataType::int64());
  relay::SymValue x{.shape = {n, tir::intImm(6, DataType::int64())}};
  // The call's result is (3, (6 * n) // 3) = (3, 2n) in any form the simplifier prefers.
  const auto* call = main->body->as<relay::CallNode>();
  ASSERT_TRUE(call);
  std::string why;
  const auto* transpose = call->args[0]->as<relay::CallNode>();
  std::optional<relay::SymValue> t = relay::callOutputShape(*transpose, {x}, &why);
  ASSERT_TRUE(t) << why;
  std::optional<relay::SymValue> out = relay::callOutputShape(*call, {*t}, &why);
  ASSERT_TRUE(out) << why;
  ASSERT_EQ(out->shape.size(), 2u);
  EXPECT_EQ(*tir::asConstInt(out->shape[0]), 3);
  const tir::PrimExpr twice =
      relay::simplifyDim(tir::sub(out->shape[1], tir::mul(n, tir::intImm(2, DataType::int64()))));
  ASSERT_TRUE(tir::asConstInt(twice)) << "not 2n";
  EXPECT_EQ(*tir::asConstInt(twice), 0);
}

// ONNX NonZero, Compress and Unique as the importer writes them, compiled.
TEST(BuildDynamic, DataDependentOpsRunAsBuiltins) {
  const relay::IRModule m = parse(R"(def @main(%x: Tensor[(3, 5), float32], %c: Tensor[(5), bool]) {
  %0 = transpose(argwhere(%x), axes=[1, 0]);
  %1 = take(%x, squeeze(argwhere(%c), axis=[1]), axis=1);
  %2 = unique(%x, sorted=False);
  %3 = unique(%x, axis=1);
  (%0, add(%1, 1f), %2.0, %2.1, %2.2, %2.3, %3.0, %3.2)
})");
  const Built built = buildVM(m);
  for (uint64_t seed : {1, 2, 3}) {
    NDArray c = NDArray::empty({5}, DataType::boolType());
    for (int64_t i = 0; i < 5; ++i) c.setInt(i, (seed >> (i % 2)) & 1);
    EXPECT_TRUE(test::vmMatchesInterpreter(built, m, {sparse({3, 5}, seed), c})) << seed;
  }
  // No element non-zero: zero rows.
  NDArray none = NDArray::empty({5}, DataType::boolType());
  for (int64_t i = 0; i < 5; ++i) none.setInt(i, 0);
  NDArray zeros = NDArray::empty({3, 5}, DataType::float32());
  for (int64_t i = 0; i < zeros.numel(); ++i) zeros.setFloat(i, 0);
  EXPECT_TRUE(test::vmMatchesInterpreter(built, m, {zeros, none}));
}

TEST(BuildDynamic, NonMaxSuppressionRunsAsABuiltin) {
  const relay::IRModule m =
      parse(R"(def @main(%b: Tensor[(2, 6, 4), float32], %s: Tensor[(2, 3, 6), float32]) {
  vision.all_class_non_max_suppression(%b, %s, 3i64, 0.4f, 0.2f, center_point_box=True)
})");
  const Built built = buildVM(m);
  for (uint64_t seed : {4, 5}) {
    NDArray boxes = randomTensor({2, 6, 4}, DataType::float32(), seed, 0, 1);
    EXPECT_TRUE(test::vmMatchesInterpreter(
        built, m, {boxes, randomTensor({2, 3, 6}, DataType::float32(), seed + 10, 0, 1)}))
        << seed;
  }
}

// A data-dependent value chosen by a run-time condition: the join binds its extent.
TEST(BuildDynamic, BranchesWithDifferentExtentsJoin) {
  const relay::IRModule m = parse(R"(def @main(%c: bool, %x: Tensor[(2, 3), float32]) {
  %0 = if (%c) { argwhere(%x) } else { argwhere(negative(%x)) };
  add(%0, 1i64)
})");
  const Built built = buildVM(m);
  const NDArray x = randomTensor({2, 3}, DataType::float32(), 8, -1, 1);
  for (bool c : {true, false}) {
    NDArray cond = NDArray::empty({}, DataType::boolType());
    cond.setInt(0, c ? 1 : 0);
    EXPECT_TRUE(test::vmMatchesInterpreter(built, m, {cond, x})) << c;
  }
}

// A `?` extent no shape function computes is a located error at build time, and inputs of the
// wrong rank a clean error at run time. (Two independent `?` dims meeting in one op build: see
// build_dynamic_equal_dims_test.cc.)
TEST(BuildDynamic, UncomputedDimsAndWrongInputsAreCleanErrors) {
  const relay::IRModule m = parse(R"(def @main(%x: Tensor[(?, 4), float32]) {
  nn.pad(%x, 0f, pad_width=[[1, 1], [0, 0]])
})");
  Diagnostic d = tessera::test::diagnosticOf([&] { buildVM(m); });
  EXPECT_EQ(d.code, "dynamic_shape") << d.message;
  EXPECT_NE(d.message.find("nn.pad"), std::string::npos) << d.message;

  const relay::IRModule ok = parse(R"(def @main(%x: Tensor[(?, 4), float32]) { exp(%x) })");
  runtime::vm::VirtualMachine vm(*buildVM(ok).exec);
  d = tessera::test::diagnosticOf(
      [&] { vm.invoke("main", {randomTensor({4}, DataType::float32(), 1)}); });
  EXPECT_EQ(d.code, "vm_input") << d.message;
  d = tessera::test::diagnosticOf([&] {
    vm.invoke("main", {randomTensor({2, 5}, DataType::float32(), 1)});
  });
  EXPECT_EQ(d.code, "vm_input") << d.message;
}

}  // namespace
}  // namespace tessera::driver
