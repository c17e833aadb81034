// ONNX importer, operator modes beyond plain inference: BatchNormalization in training mode,
// Dropout with ratio 0 in training mode, PRelu's pre-opset-7 per-channel slope, the inverse
// trigonometric functions, and values computed from specialised graph inputs (the expanded
// window functions' Range). Results against values computed here.
#include <cmath>

#include <gtest/gtest.h>

#include "onnx_test_util.h"

namespace tessera::test {
namespace {

TEST(OnnxModes, InverseTrigonometricFunctionsMatchTheCLibrary) {
  const std::vector<double> x = {-0.9, -0.25, 0, 0.5, 0.99};
  OnnxGraph g(13);
  g.input("x", {5});
  g.node("Asin", {"x"}, {"asin"});
  g.node("Acos", {"x"}, {"acos"});
  g.node("Atan", {"x"}, {"atan"});
  g.output("asin").output("acos").output("atan");
  relay::Value v = runOnnx(g, {f32({5}, x)});
  double (*fns[])(double) = {std::asin, std::acos, std::atan};
  for (int k = 0; k < 3; ++k) {
    std::vector<double> want;
    for (double e : x) want.push_back(fns[k](e));
    EXPECT_TRUE(allClose(v.fields()[k].tensor(), f32({5}, want))) << k;
  }
}

// Training mode: Y from the batch's mean and biased variance over (N, H, W); the running
// statistics blend them into the given ones with the momentum.
TEST(OnnxModes, BatchNormalizationTrainingModeUsesBatchStatistics) {
  const std::vector<double> x = {-1, 0, 1, 2, 3, 4, 5, 7, -2, 0.5, 1, 6};  // (2, 2, 1, 3)
  const double s[] = {1, 1.5}, bias[] = {0, 1}, mean[] = {0, 3}, var[] = {1, 1.5};
  const double momentum = 0.8, eps = 1e-3;
  OnnxGraph g(15);
  g.input("x", {2, 2, 1, 3})
      .initializer("s", f32({2}, {1, 1.5}))
      .initializer("b", f32({2}, {0, 1}))
      .initializer("m", f32({2}, {0, 3}))
      .initializer("v", f32({2}, {1, 1.5}));
  g.node("BatchNormalization", {"x", "s", "b", "m", "v"}, {"y", "rm", "rv"})
      .i("training_mode", 1)
      .f("momentum", static_cast<float>(momentum))
      .f("epsilon", static_cast<float>(eps));
  g.output("y").output("rm").output("rv");
  double batchMean[2] = {0, 0}, batchVar[2] = {0, 0};
  auto channel = [](int i) { return (i / 3) % 2; };
  for (int i = 0; i < 12; ++i) batchMean[channel(i)] += x[i] / 6;
  for (int i = 0; i < 12; ++i)
    batchVar[channel(i)] += (x[i] - batchMean[channel(i)]) * (x[i] - batchMean[channel(i)]) / 6;
  std::vector<double> y;
  for (int i = 0; i < 12; ++i) {
    const int c = channel(i);
    y.push_back(s[c] * (x[i] - batchMean[c]) / std::sqrt(batchVar[c] + eps) + bias[c]);
  }
  relay::Value v = runOnnx(g, {f32({2, 2, 1, 3}, x)});
  EXPECT_TRUE(allClose(v.fields()[0].tensor(), f32({2, 2, 1, 3}, y)));
  EXPECT_TRUE(allClose(v.fields()[1].tensor(),
                       f32({2}, {mean[0] * momentum + batchMean[0] * (1 - momentum),
                                 mean[1] * momentum + batchMean[1] * (1 - momentum)})));
  EXPECT_TRUE(allClose(v.fields()[2].tensor(),
                       f32({2}, {var[0] * momentum + batchVar[0] * (1 - momentum),
                                 var[1] * momentum + batchVar[1] * (1 - momentum)})));
}

TEST(OnnxModes, DropoutTrainingWithRatioZeroKeepsEverythingOtherRatiosAreErrors) {
  for (double ratio : {0.0, 0.5}) {
    OnnxGraph g(13);
    g.input("x", {2, 2})
        .initializer("r", f32({}, {ratio}))
        .initializer("t", tensorOf({}, DataType::boolType(), {1}));
    g.node("Dropout", {"x", "r", "t"}, {"y", "mask"});
    g.output("y").output("mask");
    if (ratio != 0) {
      const Diagnostic d = diagnosticOf([&] { frontend::onnx::importOnnxBytes(g.bytes(), {}); });
      EXPECT_EQ(d.code, "onnx_unsupported_attr");
      EXPECT_NE(d.message.find("random dropout"), std::string::npos) << d.message;
      continue;
    }
    relay::Value v = runOnnx(g, {f32({2, 2}, {1, -2, 3, 4})});
    EXPECT_TRUE(allClose(v.fields()[0].tensor(), f32({2, 2}, {1, -2, 3, 4})));
    const NDArray& mask = v.fields()[1].tensor();
    for (int64_t i = 0; i < mask.numel(); ++i) EXPECT_EQ(mask.getInt(i), 1);
  }
}

// Opset 6 (converted to 11): a (C) slope that numpy cannot broadcast against (N, C, W) is per
// channel; one it can broadcast keeps numpy's meaning.
TEST(OnnxModes, PReluLegacySlopeIsPerChannel) {
  OnnxGraph g(6);
  g.input("x", {1, 3, 2}).initializer("slope", f32({3}, {0.5, 2, -1}));
  g.node("PRelu", {"x", "slope"}, {"y"});
  g.output("y");
  EXPECT_TRUE(allClose(runOnnx1(g, {f32({1, 3, 2}, {-2, 4, -2, 4, -2, 4})}),
                       f32({1, 3, 2}, {-1, 4, -4, 4, 2, 4})));
  OnnxGraph h(13);
  h.input("x", {1, 2, 3}).initializer("slope", f32({3}, {0.5, 2, -1}));
  h.node("PRelu", {"x", "slope"}, {"y"});
  h.output("y");
  EXPECT_TRUE(allClose(runOnnx1(h, {f32({1, 2, 3}, {-2, -2, -2, 4, 4, -4})}),
                       f32({1, 2, 3}, {-1, -4, 2, 4, 4, 4})));
}

// Range's limit is Cast(size) of a graph input: with the input's value given it is computed at
// import (the module specialised to it); without, the error names the node.
TEST(OnnxModes, ValuesComputedFromSpecialisedInputsAreKnownAtImport) {
  OnnxGraph g(13);
  g.input("n", {}, ::onnx::TensorProto::INT64)
      .initializer("zero", f32({}, {0}))
      .initializer("one", f32({}, {1}));
  g.node("Cast", {"n"}, {"limit"}).i("to", ::onnx::TensorProto::FLOAT);
  g.node("Range", {"zero", "limit", "one"}, {"y"});
  g.output("y");
  const Diagnostic d = diagnosticOf([&] { frontend::onnx::importOnnxBytes(g.bytes(), {}); });
  EXPECT_EQ(d.code, "onnx_dynamic");
  frontend::onnx::ImportOptions options;
  const NDArray n = i64({}, {4});
  options.inputValues["n"] = n;
  EXPECT_TRUE(allClose(runOnnx1(g, {n}, options), f32({4}, {0, 1, 2, 3})));
}

}  // namespace
}  // namespace tessera::test
