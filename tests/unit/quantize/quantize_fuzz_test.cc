// Fuzzed qconfigs never crash: random configurations (valid and impossible: odd bit widths,
// negative or zero scales, unknown modes, skip lists, debug op subsets, chunked calibration) on a
// conv/pool/dense model either quantize to a module that type-checks and runs, or fail with a
// DiagnosticError naming the problem. An internal error or a crash fails the test.
#include <gtest/gtest.h>

#include <random>

#include "relay/builder.h"
#include "relay/interp/interpreter.h"
#include "relay/quantize/quantize.h"
#include "relay/type_infer.h"
#include "support/diagnostic.h"
#include "test_util.h"

namespace tessera::relay::quantize {
namespace {

IRModule fuzzModel() {
  Conv2DAttrs attrs;
  attrs.padding = {1, 1, 1, 1};
  attrs.channels = 6;
  attrs.kernelSize = std::vector<int64_t>{3, 3};
  const Expr x = var("x", {1, 2, 6, 6});
  Expr y = nn::conv2d(x, constant(test::randomTensor({6, 2, 3, 3}, DataType::float32(), 1)), attrs);
  y = add(y, constant(test::randomTensor({6, 1, 1}, DataType::float32(), 2)));
  y = nn::relu(y);
  attrs.channels = 6;
  Expr z = nn::conv2d(y, constant(test::randomTensor({6, 6, 3, 3}, DataType::float32(), 3)), attrs);
  y = add(z, y);  // a residual add of two quantized values
  y = nn::maxPool2d(y, {.poolSize = {2, 2}, .strides = {2, 2}});
  y = nn::batchFlatten(y);
  y = nn::dense(y, constant(test::randomTensor({4, 54}, DataType::float32(), 4)));
  return inferTypes(IRModule::fromExpr(function(y)));
}

template <typename T>
T pick(std::mt19937& rng, const std::vector<T>& options) {
  return options[std::uniform_int_distribution<size_t>(0, options.size() - 1)(rng)];
}

// A valid value most of the time, an impossible one sometimes.
template <typename T>
T maybe(std::mt19937& rng, const std::vector<T>& valid, const std::vector<T>& invalid) {
  return std::bernoulli_distribution(0.06)(rng) ? pick(rng, invalid) : pick(rng, valid);
}

QConfig randomConfig(std::mt19937& rng) {
  QConfig c = std::bernoulli_distribution(0.5)(rng) ? QConfig::scoped() : QConfig::builtin();
  c.nbitInput = maybe<int>(rng, {8, 8, 7, 4}, {0, 9, 16});
  c.nbitWeight = maybe<int>(rng, {8, 8, 6, 3}, {1, 33});
  c.nbitActivation = maybe<int>(rng, {32, 32, 16, 24}, {40, 0});
  c.dtypeInput = maybe<DataType>(rng, {DataType::int8(), DataType::int16()}, {DataType::float32()});
  c.calibrateMode =
      maybe<std::string>(rng, {"global_scale", "kl_divergence", "percentile"}, {"max", ""});
  c.globalScale = maybe<double>(rng, {8, 1, 0.5, 1e30}, {0, -2});
  c.weightScale = maybe<std::string>(rng, {"power2", "max", "per_channel_max"}, {"min"});
  c.skipDenseLayer = std::bernoulli_distribution(0.5)(rng);
  c.skipConvLayers = maybe<std::optional<std::vector<int64_t>>>(
      rng,
      {std::nullopt, std::vector<int64_t>{}, std::vector<int64_t>{0}, std::vector<int64_t>{1},
       std::vector<int64_t>{0, 1, 7}},
      {std::vector<int64_t>{-1}});
  c.doSimulation = std::bernoulli_distribution(0.3)(rng);
  c.roundForShift = std::bernoulli_distribution(0.5)(rng);
  c.rounding = maybe<std::string>(rng, {"UPWARD", "TONEAREST"}, {"DOWN"});
  c.debugEnabledOps = pick<std::optional<std::vector<std::string>>>(
      rng, {std::nullopt, std::nullopt, std::vector<std::string>{"nn.conv2d"},
            std::vector<std::string>{"nn.conv2d", "add", "nn.relu"}, std::vector<std::string>{}});
  c.calibrateChunkBy = maybe<int>(rng, {-1, 1, 2}, {0});
  c.unsignedInputs = std::bernoulli_distribution(0.4)(rng);
  return c;
}

TEST(QuantizeFuzz, RandomConfigurationsNeverCrash) {
  const IRModule model = fuzzModel();
  CalibrationDataset dataset;
  for (uint64_t i = 0; i < 3; ++i)
    dataset.push_back({{"x", test::randomTensor({1, 2, 6, 6}, DataType::float32(), 50 + i)}});
  std::mt19937 rng(2026);
  int quantized = 0, refused = 0;
  for (int trial = 0; trial < 80; ++trial) {
    const QConfig cfg = randomConfig(rng);
    SCOPED_TRACE("trial " + std::to_string(trial) + ": " + cfg.str());
    try {
      QConfigScope scope(cfg);
      const IRModule q = quantize(
          model, {}, std::bernoulli_distribution(0.8)(rng) ? dataset : CalibrationDataset{});
      const NDArray out = runOnInterpreter(q, dataset[0]).at(0);
      EXPECT_EQ(out.shape(), (std::vector<int64_t>{1, 4}));
      ++quantized;
    } catch (const DiagnosticError& e) {
      EXPECT_NE(e.diagnostic().code, "internal") << e.what();
      EXPECT_FALSE(e.diagnostic().message.empty());
      ++refused;
    }
  }
  // Both outcomes are exercised.
  EXPECT_GT(quantized, 5);
  EXPECT_GT(refused, 5);
}

}  // namespace
}  // namespace tessera::relay::quantize
