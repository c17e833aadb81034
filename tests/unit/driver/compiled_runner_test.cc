// driver::compiledRunner: a module built for the host gives the interpreter's outputs (within
// float rounding) for every sample, and quantize() calibrates through it.
#include <gtest/gtest.h>

#include "driver/compiled_runner.h"
#include "relay/builder.h"
#include "relay/quantize/calibrate.h"
#include "relay/quantize/qconfig.h"
#include "relay/quantize/quantize.h"
#include "relay/type_infer.h"
#include "test_util.h"

namespace tessera::driver::test {
namespace {

using relay::Expr;

relay::IRModule convModule() {
  relay::Conv2DAttrs attrs;
  attrs.padding = {1, 1};
  attrs.channels = 16;
  attrs.kernelSize = std::vector<int64_t>{3, 3};
  Expr y = relay::nn::relu(relay::nn::conv2d(
      relay::var("x", {1, 8, 10, 10}),
      relay::constant(tessera::test::randomTensor({16, 8, 3, 3}, DataType::float32(), 2)), attrs));
  return relay::inferTypes(relay::IRModule::fromExpr(relay::function(relay::tuple({y, y}))));
}

TEST(CompiledRunner, MatchesTheInterpreterOnEverySample) {
  const relay::IRModule mod = convModule();
  const ModuleRunner run = compiledRunner();
  for (uint64_t seed : {1, 2, 3}) {
    const std::map<std::string, NDArray> inputs = {
        {"x", tessera::test::randomTensor({1, 8, 10, 10}, DataType::float32(), seed)}};
    const std::vector<NDArray> expected = relay::quantize::runOnInterpreter(mod, inputs);
    const std::vector<NDArray> actual = run(mod, inputs);
    ASSERT_EQ(actual.size(), 2u);
    for (size_t i = 0; i < actual.size(); ++i)
      EXPECT_TRUE(tessera::test::allClose(actual[i], expected[i], 1e-4, 1e-5)) << seed;
  }
}

TEST(CompiledRunner, QuantizeCalibratesThroughIt) {
  relay::quantize::QConfig config = relay::quantize::QConfig::scoped();
  config.calibrateMode = "percentile";
  config.skipConvLayers = std::vector<int64_t>{};
  relay::quantize::QConfigScope scope(config);
  relay::quantize::CalibrationDataset dataset;
  for (uint64_t seed : {4, 5})
    dataset.push_back(
        {{"x", tessera::test::randomTensor({1, 8, 10, 10}, DataType::float32(), seed)}});
  const relay::IRModule mod = convModule();
  const relay::IRModule compiled = relay::quantize::quantize(mod, {}, dataset, compiledRunner());
  const relay::IRModule interpreted =
      relay::quantize::quantize(mod, {}, dataset, relay::quantize::runOnInterpreter);
  // The same integer program; the scales may differ in their last bits (float rounding).
  const std::map<std::string, NDArray> x = {
      {"x", tessera::test::randomTensor({1, 8, 10, 10}, DataType::float32(), 6)}};
  const std::vector<NDArray> a = relay::quantize::runOnInterpreter(compiled, x);
  const std::vector<NDArray> b = relay::quantize::runOnInterpreter(interpreted, x);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i)
    EXPECT_TRUE(tessera::test::allClose(a[i], b[i], 0.05, 0.05));
}

}  // namespace
}  // namespace tessera::driver::test
