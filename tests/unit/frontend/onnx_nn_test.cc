// ONNX importer, windowed and linear-algebra operators: results of the imported graph under the
// reference interpreter against the ONNX spec's examples or values computed here.
#include <cmath>

#include <gtest/gtest.h>

#include "onnx_test_util.h"

namespace tessera::test {
namespace {

// The ONNX spec's Conv examples: x = 0..24 (1x1x5x5), W = ones (1x1x3x3).
OnnxGraph convGraph() {
  OnnxGraph g(13);
  g.input("x", {1, 1, 5, 5}).initializer("W", f32({1, 1, 3, 3}, std::vector<double>(9, 1.0)));
  return g;
}

TEST(OnnxNn, ConvWithPaddingMatchesSpec) {
  OnnxGraph g = convGraph();
  g.node("Conv", {"x", "W"}, {"y"}).ints("kernel_shape", {3, 3}).ints("pads", {1, 1, 1, 1});
  g.output("y");
  EXPECT_TRUE(
      allClose(runOnnx1(g, {f32({1, 1, 5, 5}, iota(25))}),
               f32({1, 1, 5, 5}, {12,  21, 27, 33,  24,  33,  54,  63, 72,  51,  63,  99, 108,
                                  117, 81, 93, 144, 153, 162, 111, 72, 111, 117, 123, 84})));
}

TEST(OnnxNn, ConvWithoutPaddingMatchesSpec) {
  OnnxGraph g = convGraph();
  g.node("Conv", {"x", "W"}, {"y"}).ints("kernel_shape", {3, 3});
  g.output("y");
  EXPECT_TRUE(allClose(runOnnx1(g, {f32({1, 1, 5, 5}, iota(25))}),
                       f32({1, 1, 3, 3}, {54, 63, 72, 99, 108, 117, 144, 153, 162})));
}

TEST(OnnxNn, ConvStridedAndAutoPadSameLowerMatchSpec) {
  OnnxGraph g = convGraph();
  g.node("Conv", {"x", "W"}, {"y"}).ints("strides", {2, 2}).ints("pads", {1, 1, 1, 1});
  g.node("Conv", {"x", "W"}, {"z"}).ints("strides", {2, 2}).s("auto_pad", "SAME_LOWER");
  g.output("y").output("z");
  relay::Value v = runOnnx(g, {f32({1, 1, 5, 5}, iota(25))});
  const NDArray want = f32({1, 1, 3, 3}, {12, 27, 24, 63, 108, 81, 72, 117, 84});
  ASSERT_TRUE(v.isTuple());
  EXPECT_TRUE(allClose(v.fields()[0].tensor(), want));
  EXPECT_TRUE(allClose(v.fields()[1].tensor(), want));
}

TEST(OnnxNn, DepthwiseConvWithBias) {
  // Two channels, group 2: each channel convolved with its own 1x2 kernel, plus a bias.
  OnnxGraph g(13);
  g.input("x", {1, 2, 1, 3})
      .initializer("W", f32({2, 1, 1, 2}, {1, -1, 2, 1}))
      .initializer("B", f32({2}, {10, 20}));
  g.node("Conv", {"x", "W", "B"}, {"y"}).i("group", 2);
  g.output("y");
  // channel 0: x=[1,2,3] -> [1-2, 2-3] + 10; channel 1: x=[4,5,6] -> [8+5, 10+6] + 20.
  EXPECT_TRUE(allClose(runOnnx1(g, {f32({1, 2, 1, 3}, {1, 2, 3, 4, 5, 6})}),
                       f32({1, 2, 1, 2}, {9, 9, 33, 36})));
}

TEST(OnnxNn, Conv1dRunsAsUnitHeight2d) {
  OnnxGraph g(13);
  g.input("x", {1, 1, 4}).initializer("W", f32({1, 1, 2}, {1, 2}));
  g.node("Conv", {"x", "W"}, {"y"}).ints("pads", {1, 0});
  g.output("y");
  // padded x = [0,1,2,3,4]: 0+2, 1+4, 2+6, 3+8.
  EXPECT_TRUE(allClose(runOnnx1(g, {f32({1, 1, 4}, {1, 2, 3, 4})}), f32({1, 1, 4}, {2, 5, 8, 11})));
}

TEST(OnnxNn, MaxPoolPrecomputedPadsMatchesSpec) {
  OnnxGraph g(12);
  g.input("x", {1, 1, 5, 5});
  g.node("MaxPool", {"x"}, {"y"}).ints("kernel_shape", {5, 5}).ints("pads", {2, 2, 2, 2});
  g.output("y");
  EXPECT_TRUE(allClose(runOnnx1(g, {f32({1, 1, 5, 5}, iota(25, 1))}),
                       f32({1, 1, 5, 5}, {13, 14, 15, 15, 15, 18, 19, 20, 20, 20, 23, 24, 25,
                                          25, 25, 23, 24, 25, 25, 25, 23, 24, 25, 25, 25})));
}

TEST(OnnxNn, AveragePoolPadsWithAndWithoutCountIncludePadMatchSpec) {
  OnnxGraph g(13);
  g.input("x", {1, 1, 5, 5});
  g.node("AveragePool", {"x"}, {"y"}).ints("kernel_shape", {5, 5}).ints("pads", {2, 2, 2, 2});
  g.node("AveragePool", {"x"}, {"z"})
      .ints("kernel_shape", {5, 5})
      .ints("pads", {2, 2, 2, 2})
      .i("count_include_pad", 1);
  g.output("y").output("z");
  relay::Value v = runOnnx(g, {f32({1, 1, 5, 5}, iota(25, 1))});
  ASSERT_TRUE(v.isTuple());
  EXPECT_TRUE(allClose(
      v.fields()[0].tensor(),
      f32({1, 1, 5, 5}, {7,    7.5, 8,    8.5, 9,    9.5, 10,   10.5, 11,   11.5, 12,   12.5, 13,
                         13.5, 14,  14.5, 15,  15.5, 16,  16.5, 17,   17.5, 18,   18.5, 19})));
  // count_include_pad: the window sum over 25 positions, padding counted as zeros.
  std::vector<double> want;
  for (int r = 0; r < 5; ++r)
    for (int c = 0; c < 5; ++c) {
      double sum = 0;
      for (int i = r - 2; i <= r + 2; ++i)
        for (int j = c - 2; j <= c + 2; ++j)
          if (i >= 0 && i < 5 && j >= 0 && j < 5) sum += 5 * i + j + 1;
      want.push_back(sum / 25);
    }
  EXPECT_TRUE(allClose(v.fields()[1].tensor(), f32({1, 1, 5, 5}, want)));
}

TEST(OnnxNn, GlobalPoolsMatchSpec) {
  OnnxGraph g(13);
  g.input("x", {1, 1, 3, 3});
  g.node("GlobalAveragePool", {"x"}, {"a"});
  g.node("GlobalMaxPool", {"x"}, {"m"});
  g.output("a").output("m");
  relay::Value v = runOnnx(g, {f32({1, 1, 3, 3}, iota(9, 1))});
  EXPECT_TRUE(allClose(v.fields()[0].tensor(), f32({1, 1, 1, 1}, {5})));
  EXPECT_TRUE(allClose(v.fields()[1].tensor(), f32({1, 1, 1, 1}, {9})));
}

TEST(OnnxNn, BatchNormalizationMatchesFormula) {
  const std::vector<double> x = {-1, 0, 1, 2, 3, 4};
  const double s[] = {1, 1.5}, bias[] = {0, 1}, mean[] = {0, 3}, var[] = {1, 1.5};
  OnnxGraph g(15);
  g.input("x", {1, 2, 1, 3})
      .initializer("s", f32({2}, {1, 1.5}))
      .initializer("b", f32({2}, {0, 1}))
      .initializer("m", f32({2}, {0, 3}))
      .initializer("v", f32({2}, {1, 1.5}));
  g.node("BatchNormalization", {"x", "s", "b", "m", "v"}, {"y"});
  g.output("y");
  std::vector<double> want;
  for (int i = 0; i < 6; ++i) {
    const int c = i / 3;
    want.push_back(s[c] * (x[i] - mean[c]) / std::sqrt(var[c] + 1e-5) + bias[c]);
  }
  EXPECT_TRUE(allClose(runOnnx1(g, {f32({1, 2, 1, 3}, x)}), f32({1, 2, 1, 3}, want)));
}

// Layer norm over axes [axis, 3) of a (2, 2, 3) tensor, computed directly.
std::vector<double> layerNormRef(const std::vector<double>& x, int groups, int width,
                                 const std::vector<double>& scale, double eps) {
  std::vector<double> out;
  for (int g = 0; g < groups; ++g) {
    double mean = 0, var = 0;
    for (int k = 0; k < width; ++k) mean += x[g * width + k] / width;
    for (int k = 0; k < width; ++k) var += std::pow(x[g * width + k] - mean, 2) / width;
    for (int k = 0; k < width; ++k)
      out.push_back((x[g * width + k] - mean) / std::sqrt(var + eps) * scale[k] + 0.5);
  }
  return out;
}

TEST(OnnxNn, LayerNormalizationLastAxisAndTrailingBlock) {
  const std::vector<double> x = {1, 2, 4, -1, 0, 3, 2, 2, 5, 7, 1, 0};
  for (int axis : {-1, 1}) {
    const int width = axis == -1 ? 3 : 6;
    std::vector<int64_t> pshape = axis == -1 ? std::vector<int64_t>{3} : std::vector<int64_t>{2, 3};
    std::vector<double> scale = iota(width, 1);
    OnnxGraph g(17);
    g.input("x", {2, 2, 3})
        .initializer("scale", f32(pshape, scale))
        .initializer("bias", f32(pshape, std::vector<double>(width, 0.5)));
    g.node("LayerNormalization", {"x", "scale", "bias"}, {"y"}).i("axis", axis).f("epsilon", 1e-3f);
    g.output("y");
    EXPECT_TRUE(allClose(runOnnx1(g, {f32({2, 2, 3}, x)}),
                         f32({2, 2, 3}, layerNormRef(x, 12 / width, width, scale, 1e-3)), 1e-4,
                         1e-5))
        << "axis " << axis;
  }
}

TEST(OnnxNn, GemmWithTransposesAlphaBetaAndBroadcastC) {
  // A' = A^T (2x3 from 3x2), B (3x2), C broadcast over rows.
  OnnxGraph g(13);
  g.input("a", {3, 2})
      .initializer("b", f32({3, 2}, {1, 0, 0, 1, 1, 1}))
      .initializer("c", f32({2}, {1, -1}));
  g.node("Gemm", {"a", "b", "c"}, {"y"}).i("transA", 1).f("alpha", 2).f("beta", 3);
  g.output("y");
  // A^T = [[1,3,5],[2,4,6]]; A^T B = [[6,8],[8,10]]; 2*. + 3*[1,-1].
  EXPECT_TRUE(
      allClose(runOnnx1(g, {f32({3, 2}, {1, 2, 3, 4, 5, 6})}), f32({2, 2}, {15, 13, 19, 17})));
}

TEST(OnnxNn, GemmTransB) {
  OnnxGraph g(11);
  g.input("a", {1, 2}).initializer("w", f32({3, 2}, {1, 2, 3, 4, 5, 6}));
  g.node("Gemm", {"a", "w"}, {"y"}).i("transB", 1);
  g.output("y");
  EXPECT_TRUE(allClose(runOnnx1(g, {f32({1, 2}, {1, 1})}), f32({1, 3}, {3, 7, 11})));
}

// numpy matmul of (batch..., m, k) x (batch..., k, n) with broadcast batch axes, computed here.
std::vector<double> matmulRef(const std::vector<double>& a, const std::vector<double>& b,
                              int batchA, int batchB, int m, int k, int n) {
  const int batch = std::max(batchA, batchB);
  std::vector<double> out;
  for (int p = 0; p < batch; ++p)
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) {
        double acc = 0;
        for (int q = 0; q < k; ++q)
          acc += a[(batchA == 1 ? 0 : p) * m * k + i * k + q] *
                 b[(batchB == 1 ? 0 : p) * k * n + q * n + j];
        out.push_back(acc);
      }
  return out;
}

TEST(OnnxNn, MatMulTwoDAndBatchedBroadcast) {
  const std::vector<double> a = iota(12, -3), b = iota(6, 1);
  {
    OnnxGraph g(13);
    g.input("a", {2, 2, 3}).initializer("b", f32({3, 2}, b));
    g.node("MatMul", {"a", "b"}, {"y"});
    g.output("y");
    EXPECT_TRUE(
        allClose(runOnnx1(g, {f32({2, 2, 3}, a)}), f32({2, 2, 2}, matmulRef(a, b, 2, 1, 2, 3, 2))));
  }
  {
    // (1, 2, 3) x (2, 3, 1): the batch axis of A broadcasts.
    OnnxGraph g(13);
    g.input("a", {1, 2, 3}).input("b", {2, 3, 1});
    g.node("MatMul", {"a", "b"}, {"y"});
    g.output("y");
    EXPECT_TRUE(allClose(runOnnx1(g, {f32({1, 2, 3}, iota(6)), f32({2, 3, 1}, b)}),
                         f32({2, 2, 1}, matmulRef(iota(6), b, 1, 2, 2, 3, 1))));
  }
  {
    // Vector operands: (3) x (3, 2) and (2, 3) x (3).
    OnnxGraph g(13);
    g.input("v", {3}).input("m", {3, 2}).input("n", {2, 3});
    g.node("MatMul", {"v", "m"}, {"y"});
    g.node("MatMul", {"n", "v"}, {"z"});
    g.output("y").output("z");
    relay::Value r = runOnnx(g, {f32({3}, {1, 2, 3}), f32({3, 2}, b), f32({2, 3}, b)});
    EXPECT_TRUE(allClose(r.fields()[0].tensor(), f32({2}, {22, 28})));
    EXPECT_TRUE(allClose(r.fields()[1].tensor(), f32({2}, {14, 32})));
  }
}

std::vector<double> softmaxRef(const std::vector<double>& x, int outer, int width, int inner) {
  std::vector<double> out(x.size());
  for (int o = 0; o < outer; ++o)
    for (int i = 0; i < inner; ++i) {
      double sum = 0;
      for (int k = 0; k < width; ++k) sum += std::exp(x[(o * width + k) * inner + i]);
      for (int k = 0; k < width; ++k)
        out[(o * width + k) * inner + i] = std::exp(x[(o * width + k) * inner + i]) / sum;
    }
  return out;
}

TEST(OnnxNn, SoftmaxLegacyCoercesTo2dAndOpset13UsesOneAxis) {
  const std::vector<double> x = {0.5, 1, -1, 2, 0, 3, 1, 1};
  for (int opset : {11, 13}) {
    OnnxGraph g(opset);
    g.input("x", {2, 2, 2});
    g.node("Softmax", {"x"}, {"y"}).i("axis", 1);
    g.output("y");
    // opset 11: normalise each batch's trailing 2x2 block; opset 13: axis 1 alone.
    const std::vector<double> want = opset == 11 ? softmaxRef(x, 2, 4, 1) : softmaxRef(x, 2, 2, 2);
    EXPECT_TRUE(allClose(runOnnx1(g, {f32({2, 2, 2}, x)}), f32({2, 2, 2}, want)))
        << "opset " << opset;
  }
}

TEST(OnnxNn, LogSoftmaxDefaultAxis) {
  OnnxGraph g(13);
  g.input("x", {1, 3});
  g.node("LogSoftmax", {"x"}, {"y"});
  g.output("y");
  const double lse = std::log(std::exp(1.0) + std::exp(2.0) + std::exp(3.0));
  EXPECT_TRUE(
      allClose(runOnnx1(g, {f32({1, 3}, {1, 2, 3})}), f32({1, 3}, {1 - lse, 2 - lse, 3 - lse})));
}

TEST(OnnxNn, PadConstantAndReflect) {
  OnnxGraph g(13);
  g.input("x", {2, 2})
      .initializer("pads", i64({4}, {0, 1, 1, 0}))
      .initializer("value", f32({}, {9}));
  g.node("Pad", {"x", "pads", "value"}, {"y"});
  g.node("Pad", {"x", "pads"}, {"z"}).s("mode", "reflect");
  g.output("y").output("z");
  relay::Value v = runOnnx(g, {f32({2, 2}, {1, 2, 3, 4})});
  EXPECT_TRUE(allClose(v.fields()[0].tensor(), f32({3, 3}, {9, 1, 2, 9, 3, 4, 9, 9, 9})));
  EXPECT_TRUE(allClose(v.fields()[1].tensor(), f32({3, 3}, {2, 1, 2, 4, 3, 4, 2, 1, 2})));
}

TEST(OnnxNn, DropoutIsIdentityAtInference) {
  OnnxGraph g(13);
  g.input("x", {3});
  g.node("Dropout", {"x"}, {"y"});
  g.output("y");
  EXPECT_TRUE(allClose(runOnnx1(g, {f32({3}, {1, 2, 3})}), f32({3}, {1, 2, 3})));
}

}  // namespace
}  // namespace tessera::test

namespace tessera::test {
namespace {

// ConvTranspose with a constant weight: stride 2 with a 2x2 window of ones spreads each input
// pixel over a 2x2 block; two groups keep their channels apart; pads crop the border.
TEST(OnnxNn, ConvTransposeSpreadsPixels) {
  OnnxGraph g(13);
  g.input("x", {1, 2, 2, 2});
  g.initializer("w", f32({2, 1, 2, 2}, {1, 1, 1, 1, 2, 2, 2, 2}));
  g.node("ConvTranspose", {"x", "w"}, {"y"}).ints("strides", {2, 2}).i("group", 2);
  g.node("ConvTranspose", {"x", "w"}, {"cropped"})
      .ints("strides", {2, 2})
      .ints("pads", {1, 1, 1, 1})
      .i("group", 2);
  g.output("y").output("cropped");
  relay::Value v = runOnnx(g, {f32({1, 2, 2, 2}, {1, 2, 3, 4, 1, 0, 0, 1})});
  EXPECT_TRUE(allClose(v.fields()[0].tensor(),
                       f32({1, 2, 4, 4}, {1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4,
                                          2, 2, 0, 0, 2, 2, 0, 0, 0, 0, 2, 2, 0, 0, 2, 2})));
  EXPECT_TRUE(allClose(v.fields()[1].tensor(), f32({1, 2, 2, 2}, {1, 2, 3, 4, 2, 0, 0, 2})));
}

}  // namespace
}  // namespace tessera::test
