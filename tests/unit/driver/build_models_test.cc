// build() + graph executor against the reference interpreter on every runnable model of the test
// suite (golden seeds, ONNX models) and small CNN, MLP, transformer-like and integer programs.
#include <gtest/gtest.h>

#include "build_test_util.h"
#include "frontend/onnx/importer.h"
#include "relay/strategy/packed_weights.h"
#include "runtime/npy.h"

namespace tessera::driver::test {

using runtime::GraphExecutor;
namespace {

const char* const kCnn = R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1, 3, 16, 16), float32], %w1: Tensor[(8, 3, 3, 3), float32],
          %b1: Tensor[(8), float32], %w2: Tensor[(16, 8, 3, 3), float32],
          %wd: Tensor[(10, 64), float32]) {
  %0 = nn.conv2d(%x, %w1, padding=[1, 1, 1, 1], channels=8, kernel_size=[3, 3]);
  %1 = nn.bias_add(%0, %b1);
  %2 = nn.relu(%1);
  %3 = nn.max_pool2d(%2, pool_size=[2, 2], strides=[2, 2]);
  %4 = nn.conv2d(%3, %w2, strides=[2, 2], padding=[1, 1, 1, 1], channels=16, kernel_size=[3, 3]);
  %5 = nn.relu(%4);
  %6 = nn.avg_pool2d(%5, pool_size=[2, 2], strides=[2, 2]);
  %7 = nn.batch_flatten(%6);
  %8 = nn.dense(%7, %wd, units=10);
  nn.softmax(%8)
}
)";

const char* const kMlp = R"(#[version = "0.0.5"]
def @main(%x: Tensor[(4, 32), float32], %w0: Tensor[(64, 32), float32], %b0: Tensor[(64), float32],
          %w1: Tensor[(64, 64), float32], %w2: Tensor[(10, 64), float32]) {
  %0 = nn.dense(%x, %w0, units=64);
  %1 = nn.bias_add(%0, %b0);
  %2 = nn.relu(%1);
  %3 = nn.dense(%2, %w1, units=64);
  %4 = tanh(%3);
  %5 = nn.dense(%4, %w2, units=10);
  nn.log_softmax(%5)
}
)";

// One attention head with a residual connection and layer norm.
const char* const kAttention = R"(#[version = "0.0.5"]
def @main(%x: Tensor[(8, 16), float32], %wq: Tensor[(16, 16), float32],
          %wk: Tensor[(16, 16), float32], %wv: Tensor[(16, 16), float32],
          %gamma: Tensor[(16), float32], %beta: Tensor[(16), float32]) {
  %0 = nn.dense(%x, %wq, units=16);
  %1 = nn.dense(%x, %wk, units=16);
  %2 = nn.dense(%x, %wv, units=16);
  %3 = reshape(%0, newshape=[1, 8, 16]);
  %4 = reshape(%1, newshape=[1, 8, 16]);
  %5 = nn.batch_matmul(%3, %4, transpose_b=True);
  %6 = multiply(%5, 0.25f);
  %7 = nn.softmax(%6, axis=-1);
  %8 = reshape(%2, newshape=[1, 8, 16]);
  %9 = transpose(%8, axes=[0, 2, 1]);
  %10 = nn.batch_matmul(%7, %9, transpose_b=True);
  %11 = reshape(%10, newshape=[8, 16]);
  %12 = add(%11, %x);
  nn.layer_norm(%12, %gamma, %beta)
}
)";

// Integer arithmetic, a split into a tuple and a tuple result: compared exactly.
const char* const kIntegerTuple = R"(#[version = "0.0.5"]
def @main(%a: Tensor[(4, 6), int32], %b: Tensor[(4, 6), int32]) {
  %0 = add(%a, %b);
  %1 = multiply(%0, %a);
  %2 = split(%1, indices_or_sections=2, axis=1);
  %3 = %2.0;
  %4 = %2.1;
  %5 = maximum(%3, %4);
  %6 = sum(%5, axis=[1]);
  %7 = subtract(%4, %3);
  (%6, %7, %a)
}
)";

TEST(BuildModels, SmallCnnMatchesInterpreter) {
  EXPECT_TRUE(matchesInterpreter(parse(kCnn), 1));
}

TEST(BuildModels, MlpMatchesInterpreter) {
  EXPECT_TRUE(matchesInterpreter(parse(kMlp), 2));
}

TEST(BuildModels, AttentionBlockMatchesInterpreter) {
  EXPECT_TRUE(matchesInterpreter(parse(kAttention), 3));
}

TEST(BuildModels, IntegerGraphWithTuplesIsExact) {
  EXPECT_TRUE(matchesInterpreter(parse(kIntegerTuple), 4));
}

TEST(BuildModels, OptLevelZeroCompilesUnfusedOps) {
  // FuseOps does not run at level 0: every op becomes a kernel of its own.
  BuildOptions options;
  options.optLevel = 0;
  const Built built = build(parse(kMlp), codegen::hostTarget(), {}, options);
  EXPECT_EQ(built.graph.calls.size(), 7u);
  EXPECT_TRUE(matchesInterpreter(parse(kMlp), 5, 1e-4, 1e-5, 0));
}

// The seeds' graphs: those whose ops all have a compute. Constants without data get random data.
class SeedModels : public ::testing::TestWithParam<std::string> {};

TEST_P(SeedModels, MatchInterpreter) {
  const relay::IRModule module = withRandomConstants(
      parse(tessera::test::readFile(tessera::test::sourcePath(GetParam()))), 11);
  EXPECT_TRUE(matchesInterpreter(module, 6)) << GetParam();
}

INSTANTIATE_TEST_SUITE_P(Golden, SeedModels,
                         ::testing::Values("tests/golden/text/seed000_graph_pack.relay",
                                           "tests/golden/text/seed000_quantized.relay",
                                           "tests/golden/text/seed003_before.relay",
                                           "tests/golden/text/seed003_before.expected.relay",
                                           "tests/golden/text/seed003_after.relay",
                                           "tests/golden/text/seed003_after.expected.relay",
                                           "tests/golden/text/seed001_fuse_ops.relay",
                                           "tests/cli/mlp.relay",
                                           "tests/data/tir/dense_relu.relay"));

// The one seed that is not runnable as a graph: @main calls another global function.
TEST(BuildModels, SeedCallingAnotherGlobalIsDiagnosed) {
  const relay::IRModule module = withRandomConstants(
      parse(tessera::test::readFile(
          tessera::test::sourcePath("tests/golden/text/seed000_merge_composite.relay"))),
      11);
  const Diagnostic d = tessera::test::diagnosticOf([&] { build(module, codegen::hostTarget()); });
  EXPECT_EQ(d.code, "build");
  EXPECT_NE(d.message.find("@main calls @vta_preprocessing__0"), std::string::npos) << d.message;
}

relay::IRModule importModel(const std::string& path,
                            std::map<std::string, std::vector<int64_t>> shapes = {}) {
  frontend::onnx::ImportOptions options;
  options.inputShapes = std::move(shapes);
  return relay::inferTypes(frontend::onnx::importOnnx(tessera::test::sourcePath(path), options));
}

TEST(BuildModels, OnnxTestMlpMatchesInterpreter) {
  EXPECT_TRUE(matchesInterpreter(importModel("tests/data/onnx/mlp.onnx", {{"x", {3, 4}}}), 7));
}

// The FashionMNIST models on real images: same logits (to rounding) and same predicted classes.
TEST(BuildModels, FashionMnistModelsPredictLikeInterpreter) {
  const std::map<std::string, NDArray> samples =
      readNpz(tessera::test::sourcePath("examples/fashion_mnist/samples.npz"));
  const NDArray& images = samples.at("images");
  for (const std::string model : {"mlp", "cnn"}) {
    const relay::IRModule module = importModel("examples/fashion_mnist/" + model + ".onnx");
    const std::vector<int64_t> shape =
        model == "mlp" ? std::vector<int64_t>{1, 784} : std::vector<int64_t>{1, 1, 28, 28};
    const Built built = build(module, codegen::hostTarget());
    GraphExecutor executor(built.model());
    relay::Interpreter interpreter(module);
    for (int64_t i = 0; i < std::min<int64_t>(images.shape()[0], 4); ++i) {
      NDArray image = NDArray::empty(shape, DataType::float32());
      for (int64_t k = 0; k < 784; ++k) image.setFloat(k, images.getFloat(i * 784 + k));
      executor.setInput(0, image);
      executor.run();
      const NDArray expected = interpreter.run({image}).tensor();
      EXPECT_TRUE(tessera::test::allClose(executor.getOutput(0), expected, 1e-4, 1e-4))
          << model << " image " << i;
      int64_t best = 0, bestExpected = 0;
      for (int64_t c = 1; c < 10; ++c) {
        if (executor.getOutput(0).getFloat(c) > executor.getOutput(0).getFloat(best)) best = c;
        if (expected.getFloat(c) > expected.getFloat(bestExpected)) bestExpected = c;
      }
      EXPECT_EQ(best, bestExpected) << model << " image " << i;
    }
  }
}

TEST(BuildModels, IdenticalFunctionsShareOneKernel) {
  const Built built = build(parse(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(4, 8), float32], %w: Tensor[(8, 8), float32]) {
  %0 = nn.dense(%x, %w, units=8);
  %1 = nn.relu(%0);
  %2 = nn.dense(%1, %w, units=8);
  %3 = nn.relu(%2);
  %4 = nn.dense(%3, %w, units=8);
  nn.relu(%4)
}
)"),
                            codegen::hostTarget());
  ASSERT_EQ(built.graph.calls.size(), 3u);
  ASSERT_EQ(built.kernels.size(), 1u);
  EXPECT_EQ(built.kernels[0]->name, "fused_nn_dense_nn_relu");
  for (const runtime::KernelCall& call : built.graph.calls)
    EXPECT_EQ(call.kernel, "fused_nn_dense_nn_relu");
}

TEST(BuildModels, BoundParamsBecomeGraphParams) {
  const relay::IRModule module = parse(kMlp);
  std::map<std::string, NDArray> params;
  params["w2"] = tessera::test::randomTensor({10, 64}, DataType::float32(), 9);
  const Built built = build(module, codegen::hostTarget(), params);
  EXPECT_EQ(built.graph.inputs.size(), 4u);
  ASSERT_EQ(built.graph.params.size(), 1u);
  // The dense weight is stored packed for the x86 schedule (10 rows: one block of 10 lanes) ...
  EXPECT_TRUE(built.params.at(built.graph.params[0].name)
                  .bitwiseEqual(relay::strategy::packWeight(
                      params["w2"], {relay::strategy::PackKind::kDense, 10})));
  // ... and as given when the default schedules are off.
  const Built plain =
      build(module, codegen::hostTarget(), params, {.optLevel = 3, .defaultSchedules = false});
  ASSERT_EQ(plain.graph.params.size(), 1u);
  EXPECT_TRUE(plain.params.at(plain.graph.params[0].name).bitwiseEqual(params["w2"]));
}

TEST(BuildModels, CompilingTwiceGivesTheSameDescription) {
  const std::string first = build(parse(kCnn), codegen::hostTarget()).graph.toJson();
  EXPECT_EQ(build(parse(kCnn), codegen::hostTarget()).graph.toJson(), first);
}

TEST(BuildModels, ForwardingGraphNeedsNoKernels) {
  const Built built = build(parse(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(2, 2), int8]) { (%x, %x) }
)"),
                            codegen::hostTarget());
  EXPECT_TRUE(built.graph.calls.empty());
  GraphExecutor executor(built.model());
  const NDArray x = tessera::test::tensorOf({2, 2}, DataType::int8(), {1, -2, 3, -4});
  executor.setInput("x", x);
  executor.run();
  ASSERT_EQ(executor.numOutputs(), 2);
  EXPECT_TRUE(executor.getOutput(1).bitwiseEqual(x));
}

}  // namespace
}  // namespace tessera::driver::test
