// The quantizer's parts on their own: weight thresholds, percentile, the numpy histogram and the
// KL search on hand-checked data, qconfig scopes and validation, debug_enabled_ops, and the
// located errors for bad calibration data.
#include <gtest/gtest.h>

#include <cmath>

#include "relay/builder.h"
#include "relay/quantize/kl_divergence.h"
#include "relay/quantize/quantize.h"
#include "relay/text/printer.h"
#include "relay/type_infer.h"
#include "test_util.h"

namespace tessera::relay::quantize {
namespace {

NDArray values(const std::vector<double>& v) {
  return test::tensorOf({static_cast<int64_t>(v.size())}, DataType::float32(), v);
}

TEST(QuantizeCalibration, WeightThresholds) {
  EXPECT_FLOAT_EQ(weightThreshold(values({0.3, -0.7, 0.1}), "max"), 0.7f);
  EXPECT_FLOAT_EQ(weightThreshold(values({0.3, -0.7, 0.1}), "power2"), 1.0f);
  EXPECT_FLOAT_EQ(weightThreshold(values({3, -2}), "power2"), 4.0f);
  EXPECT_FLOAT_EQ(weightThreshold(values({0, 0}), "power2"), 1.0f);  // an all-zero weight
  EXPECT_FLOAT_EQ(weightThreshold(values({0, 0}), "max"), 0.0f);     // seed 000's zero scale
}

TEST(QuantizeCalibration, PercentileIsTheKthSmallestMagnitude) {
  std::vector<float> s;
  for (int i = 0; i < 200000; ++i) s.push_back(i % 2 ? -float(i) : float(i));
  // k = floor(200000 * 0.99999) = 199998.
  EXPECT_FLOAT_EQ(percentileThreshold(s), 199998.0f);
}

TEST(QuantizeCalibration, HistogramFollowsNumpy) {
  // numpy.histogram([-1, 0, 1, 0.5], bins=4, range=(-1, 1)) -> [1, 0, 1, 2]: the last edge is
  // inside the last bin, a value on an inner edge goes to the bin it starts.
  const Histogram h = symmetricHistogram({-1, 0, 1, 0.5f}, 4);
  EXPECT_EQ(h.counts, (std::vector<int>{1, 0, 1, 2}));
  EXPECT_EQ(h.edges, (std::vector<float>{-1, -0.5f, 0, 0.5f, 1}));
  // All zeros: numpy widens the range to (-0.5, 0.5).
  EXPECT_EQ(symmetricHistogram({0, 0}, 2).edges, (std::vector<float>{-0.5f, 0, 0.5f}));
}

TEST(QuantizeCalibration, KlClipsARareOutlier) {
  // 20000 values spread over [-1, 1] and one at 100: the histogram spans [-100, 100] in bins of
  // 0.025, and the smallest candidate threshold is 128 bins from the centre (3.2): 255 levels
  // need 255 bins. Keeping the outlier would waste almost all levels on empty range; the KL
  // threshold stays among the first candidates.
  std::vector<float> s;
  for (int i = 0; i < 20000; ++i) s.push_back(-1.0f + 2.0f * static_cast<float>(i) / 19999.0f);
  s.push_back(100.0f);
  const float t = klDivergenceThreshold(s);
  EXPECT_GE(t, 3.2f);
  EXPECT_LT(t, 5.0f);
  // Without the outlier the histogram spans the data: the threshold covers most of it.
  s.pop_back();
  const float bulk = klDivergenceThreshold(s);
  EXPECT_GT(bulk, 0.8f);
  EXPECT_LE(bulk, 1.0f);
}

TEST(QuantizeConfig, ScopesNestAndTheBuiltinDefaultSkipsNothing) {
  EXPECT_FALSE(currentQConfig().skipConvLayers.has_value());
  {
    QConfigScope outer(QConfig::scoped());
    EXPECT_EQ(*currentQConfig().skipConvLayers, std::vector<int64_t>{0});
    QConfig inner = QConfig::scoped();
    inner.globalScale = 4;
    {
      QConfigScope scope(inner);
      EXPECT_EQ(currentQConfig().globalScale, 4);
    }
    EXPECT_EQ(currentQConfig().globalScale, 8);
  }
  EXPECT_FALSE(currentQConfig().skipConvLayers.has_value());
}

TEST(QuantizeConfig, ImpossibleConfigurationsAreLocatedErrors) {
  QConfig zero;
  zero.nbitInput = 0;
  Diagnostic d = test::diagnosticOf([&] { QConfigScope scope(zero); });
  EXPECT_EQ(d.code, "qconfig");
  EXPECT_NE(d.message.find("nbit_input"), std::string::npos) << d.message;
  QConfig mode;
  mode.calibrateMode = "entropy";
  d = test::diagnosticOf([&] { QConfigScope scope(mode); });
  EXPECT_NE(d.message.find("calibrate_mode: \"entropy\" is not one of"), std::string::npos)
      << d.message;
}

IRModule convModel() {
  Conv2DAttrs attrs;
  attrs.padding = {1, 1, 1, 1};
  attrs.channels = 4;
  attrs.kernelSize = std::vector<int64_t>{3, 3};
  Expr y = nn::conv2d(var("x", {1, 2, 5, 5}),
                      constant(test::randomTensor({4, 2, 3, 3}, DataType::float32(), 1)), attrs);
  y = add(y, constant(test::randomTensor({4, 1, 1}, DataType::float32(), 2)));
  return inferTypes(IRModule::fromExpr(function(nn::relu(y))));
}

TEST(QuantizeDataset, BadCalibrationDataIsALocatedError) {
  QConfig cfg;
  cfg.calibrateMode = "kl_divergence";
  QConfigScope scope(cfg);
  const IRModule m = convModel();
  const NDArray good = test::randomTensor({1, 2, 5, 5}, DataType::float32(), 3);
  auto errorOf = [&](const CalibrationDataset& data) {
    const Diagnostic d = test::diagnosticOf([&] { quantize(m, {}, data); });
    EXPECT_EQ(d.code, "quantize_dataset");
    return d.message;
  };
  EXPECT_NE(errorOf({}).find("it is empty"), std::string::npos);
  EXPECT_NE(errorOf({{{"y", good}}}).find("has no input 'y'"), std::string::npos);
  EXPECT_NE(errorOf({{{"x", test::randomTensor({1, 2, 4, 4}, DataType::float32(), 3)}}})
                .find("input 'x' is Tensor[(1, 2, 4, 4), float32]"),
            std::string::npos);
  NDArray nan = test::randomTensor({1, 2, 5, 5}, DataType::float32(), 3);
  nan.setFloat(7, std::nan(""));
  EXPECT_NE(errorOf({{{"x", nan}}}).find("NaN or infinite value at element 7"), std::string::npos);
}

TEST(QuantizeAnnotate, DebugEnabledOpsLimitTheRules) {
  QConfig cfg;
  cfg.doSimulation = true;
  cfg.debugEnabledOps = std::vector<std::string>{"nn.conv2d"};
  QConfigScope scope(cfg);
  const std::string text = printModule(quantize(convModel()));
  // The conv's input is simulated (its weight's simulation is folded into the constant); the
  // add has no rule enabled, so no bias or activation quantize appears.
  EXPECT_NE(text.find("relay.op.annotation.simulated_quantize"), std::string::npos) << text;
  EXPECT_NE(text.find("kind=1"), std::string::npos);
  EXPECT_EQ(text.find("kind=3"), std::string::npos) << text;
}

// Global scale with power-of-two weights: requantization becomes shifts (spec §5.10).
TEST(QuantizeRealize, PowerOfTwoScalesBecomeShifts) {
  QConfigScope scope(QConfig{});
  const IRModule q = quantize(convModel());
  const std::string text = printModule(q);
  EXPECT_NE(text.find("right_shift("), std::string::npos) << text;
  EXPECT_EQ(text.find("fixed_point_multiply"), std::string::npos) << text;
  // global_scale 8 quantizes inputs in steps of 1/16: the result follows the float one within a
  // few steps.
  for (uint64_t seed = 0; seed < 3; ++seed) {
    const NDArray x = test::randomTensor({1, 2, 5, 5}, DataType::float32(), 40 + seed);
    const NDArray ref = runOnInterpreter(convModel(), {{"x", x}}).at(0);
    const NDArray got = runOnInterpreter(q, {{"x", x}}).at(0);
    double err = 0, norm = 0;
    for (int64_t i = 0; i < ref.numel(); ++i) {
      err += std::pow(got.getFloat(i) - ref.getFloat(i), 2);
      norm += std::pow(ref.getFloat(i), 2);
    }
    EXPECT_LT(std::sqrt(err / norm), 0.1);
  }
}

// ResNet's head: global_avg_pool2d stops quantization, so the dense after it (a plain weight,
// skipped by default anyway) runs in float on the dequantized pool output.
TEST(QuantizeRealize, ClassifierHeadAfterGlobalPoolStaysFloat) {
  Conv2DAttrs attrs;
  attrs.padding = {1, 1, 1, 1};
  attrs.channels = 8;
  attrs.kernelSize = std::vector<int64_t>{3, 3};
  Expr y = nn::relu(nn::conv2d(var("x", {1, 3, 6, 6}),
                               constant(test::randomTensor({8, 3, 3, 3}, DataType::float32(), 4)),
                               attrs));
  y = nn::batchFlatten(nn::globalAvgPool2d(y));
  y = nn::dense(y, constant(test::randomTensor({5, 8}, DataType::float32(), 5)));
  const IRModule model = inferTypes(IRModule::fromExpr(function(y)));
  for (bool skipDense : {true, false}) {
    QConfig cfg;
    cfg.skipDenseLayer = skipDense;
    QConfigScope scope(cfg);
    const IRModule q = quantize(model);
    const std::string text = printModule(q);
    EXPECT_NE(text.find("nn.dense(%"), std::string::npos) << text;
    EXPECT_EQ(text.find("out_dtype=\"int32\") /* ty=Tensor[(1, 5)"), std::string::npos) << text;
    EXPECT_TRUE(test::sameBehaviour(model, q, 2, 0.2, 0.2));
  }
}

}  // namespace
}  // namespace tessera::relay::quantize
