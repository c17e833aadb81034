// Tessera's precision extensions of relay.quantize (docs/design/quantization.md):
//  * per-channel weight scales (weight_scale="per_channel_max", quantize/per_channel.h): the
//    scales calibrate chooses, where realize requantizes, and the accuracy gained on a weight
//    with an outlier, on the interpreter and compiled;
//  * unsigned_inputs: values that cannot be negative quantized to uint8 [0, 255];
//  * rounding="TONEAREST" average pooling that keeps fraction bits instead of truncating.
#include <gtest/gtest.h>

#include <cmath>

#include "driver/compiled_runner.h"
#include "narrowing_check.h"
#include "relay/builder.h"
#include "relay/op/quantize.h"
#include "relay/quantize/annotate.h"
#include "relay/quantize/calibrate.h"
#include "relay/quantize/partition.h"
#include "relay/quantize/per_channel.h"
#include "relay/quantize/quantize.h"
#include "relay/quantize/quantize_util.h"
#include "relay/text/printer.h"
#include "relay/type_infer.h"
#include "relay/visit.h"
#include "test_util.h"

namespace tessera::relay::quantize {
namespace {

// Weights as batch-norm folding leaves them: values of about 0.1, and one outlier of 3 in output
// channel 0 that sets a single scale for all of them.
NDArray outlierWeight(const std::vector<int64_t>& shape, uint64_t seed) {
  NDArray w = test::randomTensor(shape, DataType::float32(), seed, -0.1, 0.1);
  w.setFloat(0, 3.0);
  return w;
}

// conv2d (4 channels) + bias + relu.
IRModule convModel() {
  Conv2DAttrs attrs;
  attrs.padding = {1, 1, 1, 1};
  attrs.channels = 4;
  attrs.kernelSize = std::vector<int64_t>{3, 3};
  Expr y = nn::conv2d(var("x", {1, 3, 6, 6}), constant(outlierWeight({4, 3, 3, 3}, 1)), attrs);
  y = nn::relu(add(y, constant(test::randomTensor({4, 1, 1}, DataType::float32(), 2, 0, 0.01))));
  return inferTypes(IRModule::fromExpr(function(y)));
}

// conv2d, max pool, then dense (4 units) on the flattened pool.
IRModule denseModel() {
  Conv2DAttrs attrs;
  attrs.padding = {1, 1, 1, 1};
  attrs.channels = 4;
  attrs.kernelSize = std::vector<int64_t>{3, 3};
  Expr y = nn::conv2d(var("x", {1, 3, 6, 6}), constant(outlierWeight({4, 3, 3, 3}, 1)), attrs);
  nn::MaxPool2DAttrs pool;
  pool.poolSize = {2, 2};
  pool.strides = {2, 2};
  y = nn::batchFlatten(nn::maxPool2d(y, pool));
  return inferTypes(
      IRModule::fromExpr(function(nn::dense(y, constant(outlierWeight({4, 36}, 3))))));
}

QConfig config(const std::string& weightScale) {
  QConfig cfg;  // every conv2d quantized, global_scale 8
  cfg.weightScale = weightScale;
  cfg.skipDenseLayer = false;
  cfg.calibrateMode = "kl_divergence";
  return cfg;
}

CalibrationDataset dataset() {
  CalibrationDataset d;
  for (uint64_t s = 0; s < 4; ++s)
    d.push_back({{"x", test::randomTensor({1, 3, 6, 6}, DataType::float32(), 100 + s)}});
  return d;
}

// Per output channel (axis 1), the L2 error of `got` against `ref` relative to the channel's norm,
// accumulated over calls.
struct ChannelError {
  std::vector<double> err, norm;
  void add(const NDArray& got, const NDArray& ref) {
    const int64_t channels = ref.shape()[1];
    const int64_t inner = ref.numel() / ref.shape()[0] / channels;
    err.resize(static_cast<size_t>(channels)), norm.resize(static_cast<size_t>(channels));
    for (int64_t i = 0; i < ref.numel(); ++i) {
      const auto c = static_cast<size_t>((i / inner) % channels);
      err[c] += std::pow(got.getFloat(i) - ref.getFloat(i), 2);
      norm[c] += std::pow(ref.getFloat(i), 2);
    }
  }
  double worst() const {
    double w = 0;
    for (size_t c = 0; c < err.size(); ++c) w = std::max(w, std::sqrt(err[c] / norm[c]));
    return w;
  }
};

// The module `m` after partition, annotate and calibrate (the simulated quantizes bound), typed.
IRModule calibrated(const IRModule& m) {
  const IRModule annotated = inferTypes(IRModule::fromExpr(annotate(partition(m.main()))));
  return inferTypes(IRModule::fromExpr(calibrate(annotated.main(), dataset(), runOnInterpreter)));
}

// The shapes of the dom_scale arguments of the weight simulated quantizes, in visit order.
std::vector<std::string> weightScaleTypes(const IRModule& simulated) {
  std::vector<std::string> out;
  postOrderVisit(simulated.main()->body, [&](const Expr& e) {
    const auto* call = e->as<CallNode>();
    const auto* op = call ? call->op->as<OpNode>() : nullptr;
    if (!op || op->name != "relay.op.annotation.simulated_quantize") return;
    if (attrsAs<SimulatedQuantizeAttrs>(call->attrs.get())->kind ==
        static_cast<int>(QAnnotateKind::kWeight))
      out.push_back(typeToString(call->args[1]->checkedType));
  });
  return out;
}

TEST(QuantizePerChannel, ScalesAreEachChannelsMaxAndNeverZero) {
  // OIHW [3, 2, 1, 1]: channel maxima 0.5, 4 and 0 (the zero channel takes the largest scale).
  const NDArray w = test::tensorOf({3, 2, 1, 1}, DataType::float32(), {0.25, -0.5, 4, -1, 0, 0});
  const NDArray s = perChannelScales(w, 0, 128);
  EXPECT_EQ(s.shape(), (std::vector<int64_t>{3, 1, 1, 1}));
  EXPECT_EQ(test::valuesOf(s), (std::vector<double>{0.5 / 128, 4.0 / 128, 4.0 / 128}));
  EXPECT_FLOAT_EQ(maxScale(s), 4.0f / 128);
  // The same values as HWIO [1, 1, 2, 3]: channels along the last axis.
  const NDArray hwio = test::tensorOf({1, 1, 2, 3}, DataType::float32(), {0.25, 4, 0, -0.5, -1, 0});
  EXPECT_EQ(test::valuesOf(perChannelScales(hwio, 3, 128)), test::valuesOf(s));
  EXPECT_EQ(perChannelScales(hwio, 3, 128).shape(), (std::vector<int64_t>{1, 1, 1, 3}));
  // An all-zero weight: scale 1 / 128 (not 0, which max gives).
  EXPECT_EQ(
      test::valuesOf(perChannelScales(test::tensorOf({2, 1}, DataType::float32(), {0, 0}), 0, 128)),
      (std::vector<double>{1.0 / 128, 1.0 / 128}));
}

TEST(QuantizePerChannel, CalibrateBindsOneScalePerOutputChannel) {
  QConfigScope scope(config("per_channel_max"));
  const IRModule c = calibrated(denseModel());
  EXPECT_EQ(weightScaleTypes(c),
            (std::vector<std::string>{"Tensor[(4, 1, 1, 1), float32]", "Tensor[(4, 1), float32]"}));
  // The conv weight's scales are its channels' max / 128.
  const NDArray expected = perChannelScales(outlierWeight({4, 3, 3, 3}, 1), 0, 128);
  bool found = false;
  postOrderVisit(c.main()->body, [&](const Expr& e) {
    const auto* k = e->as<ConstantNode>();
    if (k && k->data.shape() == expected.shape()) {
      found = true;
      EXPECT_EQ(test::valuesOf(k->data), test::valuesOf(expected));
    }
  });
  EXPECT_TRUE(found);
}

TEST(QuantizePerChannel, RealizeRequantizesRightAfterTheProduct) {
  QConfigScope scope(config("per_channel_max"));
  const IRModule q = quantize(denseModel(), {}, dataset());
  const std::string text = printModule(q);
  // The int8 x int8 -> int32 products are each followed by their per-channel rescale.
  size_t conv = text.find("nn.conv2d(");
  ASSERT_NE(conv, std::string::npos) << text;
  EXPECT_NE(text.find("out_dtype=\"int32\"", conv), std::string::npos) << text;
  EXPECT_NE(text.find("round(", conv), std::string::npos) << text;
  EXPECT_NE(text.find("Tensor[(4, 1, 1), float32]"), std::string::npos) << text;  // the ratios
  EXPECT_NE(text.find("nn.dense("), std::string::npos) << text;
  EXPECT_EQ(text.find("simulated_quantize"), std::string::npos) << text;
}

// Each output channel of the conv (then of the dense) keeps its precision: the worst channel's
// error is less than half of that than with one scale per weight.
TEST(QuantizePerChannel, MoreAccurateThanOneScaleOnInterpreterAndCompiled) {
  const driver::ModuleRunner compiled = driver::compiledRunner();
  for (const IRModule& float_ : {convModel(), denseModel()}) {
    IRModule perTensor, perChannel;
    {
      QConfigScope scope(config("max"));
      perTensor = quantize(float_, {}, dataset());
    }
    {
      QConfigScope scope(config("per_channel_max"));
      perChannel = quantize(float_, {}, dataset());
    }
    ChannelError channel, tensor;
    for (uint64_t seed = 0; seed < 4; ++seed) {
      const NDArray x = test::randomTensor({1, 3, 6, 6}, DataType::float32(), 200 + seed);
      const NDArray ref = runOnInterpreter(float_, {{"x", x}}).at(0);
      const NDArray got = runOnInterpreter(perChannel, {{"x", x}}).at(0);
      channel.add(got, ref);
      tensor.add(runOnInterpreter(perTensor, {{"x", x}}).at(0), ref);
      // The compiled kernels compute the same values (the per-channel rescale is a float32
      // multiply and round on both).
      EXPECT_TRUE(test::allClose(compiled(perChannel, {{"x", x}}).at(0), got, 1e-5, 1e-6));
    }
    SCOPED_TRACE("worst channel: per-channel " + std::to_string(channel.worst()) + ", per-tensor " +
                 std::to_string(tensor.worst()));
    EXPECT_LT(channel.worst(), 0.05);
    EXPECT_LT(2 * channel.worst(), tensor.worst());
  }
}

TEST(QuantizePerChannel, ASharedWeightKeepsOneScale) {
  // One weight used by two convolutions: its channels are not one product's outputs, so it is
  // quantized per tensor (weight_scale "max").
  Conv2DAttrs attrs;
  attrs.channels = 3;
  attrs.kernelSize = std::vector<int64_t>{1, 1};
  const Expr w = constant(outlierWeight({3, 3, 1, 1}, 7));
  const Expr x = var("x", {1, 3, 4, 4});
  const IRModule m = inferTypes(IRModule::fromExpr(
      function(add(nn::conv2d(x, w, attrs), nn::conv2d(nn::relu(x), w, attrs)))));
  QConfigScope scope(config("per_channel_max"));
  const IRModule annotated = inferTypes(IRModule::fromExpr(annotate(partition(m.main()))));
  CalibrationDataset d = {{{"x", test::randomTensor({1, 3, 4, 4}, DataType::float32(), 9)}}};
  const IRModule c =
      inferTypes(IRModule::fromExpr(calibrate(annotated.main(), d, runOnInterpreter)));
  EXPECT_EQ(weightScaleTypes(c), (std::vector<std::string>{"float32"}));
}

TEST(QuantizePerChannel, AScaleThatDoesNotBroadcastIsALocatedError) {
  const Expr sq = simulatedQuantize(
      var("w", {4, 3}), var("s", {3, 1}), var("lo", scalarType(DataType::float32())),
      var("hi", scalarType(DataType::float32())), QAnnotateKind::kWeight);
  const Diagnostic d = test::diagnosticOf([&] { inferTypes(IRModule::fromExpr(function(sq))); });
  EXPECT_EQ(d.code, "simulated_quantize_scale");
  EXPECT_NE(d.message.find("(4, 3) and (3, 1) cannot be broadcast"), std::string::npos)
      << d.message;
}

TEST(QuantizePerChannel, TheOptionIsValidated) {
  QConfig cfg;
  cfg.weightScale = "per_channel";
  const Diagnostic d = test::diagnosticOf([&] { cfg.validate(); });
  EXPECT_NE(d.message.find("weight_scale"), std::string::npos) << d.message;
}

// --- unsigned_inputs -------------------------------------------------------------------------

TEST(QuantizeUnsigned, CannotBeNegativeFollowsTheStructure) {
  const Expr x = var("x", {1, 2, 4, 4});
  const Expr r = nn::relu(x);
  nn::MaxPool2DAttrs pool;
  pool.poolSize = {2, 2};
  EXPECT_TRUE(cannotBeNegative(r));
  EXPECT_FALSE(cannotBeNegative(x));
  EXPECT_TRUE(cannotBeNegative(nn::maxPool2d(r, pool)));
  EXPECT_TRUE(cannotBeNegative(add(r, nn::relu(var("y", {1, 2, 4, 4})))));
  EXPECT_FALSE(cannotBeNegative(add(r, x)));
  EXPECT_TRUE(cannotBeNegative(clip(x, 0, 6)));
  EXPECT_FALSE(cannotBeNegative(clip(x, -1, 1)));
  EXPECT_TRUE(cannotBeNegative(concatenate({r, r}, 1)));
  EXPECT_TRUE(
      cannotBeNegative(multiply(r, constant(test::tensorOf({1}, DataType::float32(), {2})))));
  EXPECT_FALSE(
      cannotBeNegative(multiply(r, constant(test::tensorOf({1}, DataType::float32(), {-2})))));
  // A shared sum nested 40 deep is decided without walking every path.
  Expr deep = r;
  for (int i = 0; i < 40; ++i) deep = add(deep, deep);
  EXPECT_TRUE(cannotBeNegative(deep));
}

// conv2d of relu(x): the conv reads values that cannot be negative.
IRModule reluConvModel() {
  Conv2DAttrs attrs;
  attrs.padding = {1, 1, 1, 1};
  attrs.channels = 4;
  attrs.kernelSize = std::vector<int64_t>{3, 3};
  const Expr y = nn::conv2d(nn::relu(var("x", {1, 3, 6, 6})),
                            constant(test::randomTensor({4, 3, 3, 3}, DataType::float32(), 11)),
                            attrs);
  return inferTypes(IRModule::fromExpr(function(y)));
}

double relativeL2(const NDArray& got, const NDArray& ref) {
  ChannelError e;
  e.add(got, ref);
  double err = 0, norm = 0;
  for (size_t c = 0; c < e.err.size(); ++c) err += e.err[c], norm += e.norm[c];
  return std::sqrt(err / norm);
}

// Percentile thresholds (the largest magnitude, here): the quantization step, not clipping,
// makes the error.
QConfig percentile(const std::string& weightScale) {
  QConfig cfg = config(weightScale);
  cfg.calibrateMode = "percentile";
  return cfg;
}

TEST(QuantizeUnsigned, ValuesAfterReluBecomeUint8WithHalfTheStep) {
  const IRModule float_ = reluConvModel();
  IRModule signed_, unsigned_;
  {
    QConfigScope scope(percentile("max"));
    signed_ = quantize(float_, {}, dataset());
  }
  {
    QConfig cfg = percentile("max");
    cfg.unsignedInputs = true;
    QConfigScope scope(cfg);
    EXPECT_NE(cfg.str().find(", unsigned_inputs=True)"), std::string::npos) << cfg.str();
    unsigned_ = quantize(float_, {}, dataset());
  }
  EXPECT_EQ(config("max").str().find("unsigned_inputs"), std::string::npos);
  // The conv reads the relu's output as uint8, and every cast to uint8 is clipped to [0, 255]
  // first.
  const std::string text = printModule(unsigned_);
  EXPECT_NE(text.find("Tensor[(1, 3, 6, 6), uint8]"), std::string::npos) << text;
  EXPECT_NE(text.find("a_max=255f"), std::string::npos) << text;
  EXPECT_TRUE(test::noUnclippedInt8Cast(unsigned_));
  EXPECT_EQ(printModule(signed_).find("uint8"), std::string::npos);

  const driver::ModuleRunner compiled = driver::compiledRunner();
  double eSigned = 0, eUnsigned = 0;
  for (uint64_t seed = 0; seed < 4; ++seed) {
    const NDArray x = test::randomTensor({1, 3, 6, 6}, DataType::float32(), 300 + seed);
    const NDArray ref = runOnInterpreter(float_, {{"x", x}}).at(0);
    const NDArray got = runOnInterpreter(unsigned_, {{"x", x}}).at(0);
    eUnsigned += relativeL2(got, ref);
    eSigned += relativeL2(runOnInterpreter(signed_, {{"x", x}}).at(0), ref);
    EXPECT_TRUE(test::allClose(compiled(unsigned_, {{"x", x}}).at(0), got, 1e-5, 1e-6));
  }
  // The function's int8 result dominates this model's error, so the input's finer step shows
  // as no loss here (ResNet-18: tests/models/quantize_resnet18_test.cc).
  SCOPED_TRACE("unsigned " + std::to_string(eUnsigned) + ", signed " + std::to_string(eSigned));
  EXPECT_LE(eUnsigned, eSigned);
  // Half the step: the input is multiplied by 256 / threshold instead of 128 / threshold.
  const auto inverseScale = [](const std::string& t) {
    const size_t at = t.find("multiply(%0, ");
    EXPECT_NE(at, std::string::npos) << t;
    return at == std::string::npos ? 0.0 : std::stod(t.substr(at + 13));
  };
  EXPECT_NEAR(inverseScale(text), 2 * inverseScale(printModule(signed_)), 1e-2);
}

// --- average pooling under rounding="TONEAREST" ------------------------------------------------

// conv2d, relu, global_avg_pool2d over 6x6: the pool's input is an int8 value.
IRModule poolModel() {
  Conv2DAttrs attrs;
  attrs.padding = {1, 1, 1, 1};
  attrs.channels = 8;
  attrs.kernelSize = std::vector<int64_t>{3, 3};
  Expr y = nn::conv2d(var("x", {1, 3, 6, 6}),
                      constant(test::randomTensor({8, 3, 3, 3}, DataType::float32(), 21)), attrs);
  return inferTypes(IRModule::fromExpr(function(nn::globalAvgPool2d(nn::relu(y)))));
}

TEST(QuantizeRounding, ToNearestAveragePoolingKeepsFractionBits) {
  const IRModule float_ = poolModel();
  IRModule truncating, rounding;
  {
    QConfigScope scope(config("max"));
    truncating = quantize(float_, {}, dataset());
  }
  {
    QConfig cfg = config("max");
    cfg.rounding = "TONEAREST";
    QConfigScope scope(cfg);
    rounding = quantize(float_, {}, dataset());
  }
  // 8 fraction bits before the 36-tap sum (TVM's truncating division stays under UPWARD).
  const std::string text = printModule(rounding);
  EXPECT_NE(text.find("left_shift("), std::string::npos) << text;
  EXPECT_EQ(printModule(truncating).find("left_shift("), std::string::npos);
  const driver::ModuleRunner compiled = driver::compiledRunner();
  double eTruncating = 0, eRounding = 0;
  for (uint64_t seed = 0; seed < 4; ++seed) {
    const NDArray x = test::randomTensor({1, 3, 6, 6}, DataType::float32(), 400 + seed);
    const NDArray ref = runOnInterpreter(float_, {{"x", x}}).at(0);
    const NDArray got = runOnInterpreter(rounding, {{"x", x}}).at(0);
    eRounding += relativeL2(got, ref);
    eTruncating += relativeL2(runOnInterpreter(truncating, {{"x", x}}).at(0), ref);
    EXPECT_TRUE(test::allClose(compiled(rounding, {{"x", x}}).at(0), got, 1e-5, 1e-6));
  }
  SCOPED_TRACE("rounding " + std::to_string(eRounding) + ", truncating " +
               std::to_string(eTruncating));
  EXPECT_LT(eRounding, 0.5 * eTruncating);
}

}  // namespace
}  // namespace tessera::relay::quantize
