// ONNX importer, opset 18: every operator version that changed in opset 18 (Reduce* axes as an
// input, Split's num_outputs, Pad's axes, Resize's axes / keep_aspect_ratio_policy / antialias,
// the scatters' max and min, LpPool's dilations and ceil_mode) and the new operators (Bitwise*,
// CenterCropPad, Col2Im, GroupNormalization, Mish), against values computed here or the ONNX
// specification's examples; and the opset-17 forms, which must keep working.
#include <algorithm>
#include <cmath>
#include <functional>

#include <gtest/gtest.h>

#include "onnx_test_util.h"

namespace tessera::test {
namespace {

using frontend::onnx::importOnnxBytes;

constexpr int32_t kInt64 = ::onnx::TensorProto::INT64;
constexpr int32_t kInt32 = ::onnx::TensorProto::INT32;

Diagnostic importError(const OnnxGraph& g) {
  return diagnosticOf([&] { (void)importOnnxBytes(g.bytes()); });
}

NDArray i32(const std::vector<int64_t>& shape, const std::vector<double>& values) {
  return tensorOf(shape, DataType::int32(), values);
}

// --- Reduce* ------------------------------------------------------------------------------------

struct ReduceCase {
  const char* op;
  std::function<double(const std::vector<double>&)> ref;
};

double sumOf(const std::vector<double>& v, const std::function<double(double)>& f) {
  double s = 0;
  for (double x : v) s += f(x);
  return s;
}

const std::vector<ReduceCase>& reduceCases() {
  static const std::vector<ReduceCase> cases = {
      {"ReduceMax", [](const auto& v) { return *std::max_element(v.begin(), v.end()); }},
      {"ReduceMin", [](const auto& v) { return *std::min_element(v.begin(), v.end()); }},
      {"ReduceMean",
       [](const auto& v) { return sumOf(v, [](double x) { return x; }) / double(v.size()); }},
      {"ReduceSum", [](const auto& v) { return sumOf(v, [](double x) { return x; }); }},
      {"ReduceProd",
       [](const auto& v) {
         double p = 1;
         for (double x : v) p *= x;
         return p;
       }},
      {"ReduceL1", [](const auto& v) { return sumOf(v, [](double x) { return std::abs(x); }); }},
      {"ReduceL2",
       [](const auto& v) { return std::sqrt(sumOf(v, [](double x) { return x * x; })); }},
      {"ReduceLogSum",
       [](const auto& v) { return std::log(sumOf(v, [](double x) { return x; })); }},
      {"ReduceLogSumExp",
       [](const auto& v) { return std::log(sumOf(v, [](double x) { return std::exp(x); })); }},
      {"ReduceSumSquare", [](const auto& v) { return sumOf(v, [](double x) { return x * x; }); }},
  };
  return cases;
}

// Every reduction with opset 18's axes input (here -1, over the rows of a 2 x 3 input), keepdims 0.
TEST(OnnxOpset18, EveryReductionTakesAxesAsAnInput) {
  const std::vector<double> x = {1, 2, 3, 0.5, 4, 1.5};
  for (const ReduceCase& c : reduceCases()) {
    OnnxGraph g(18);
    g.input("x", {2, 3}).initializer("axes", i64({1}, {-1}));
    g.node(c.op, {"x", "axes"}, {"y"}).i("keepdims", 0);
    g.output("y");
    const std::vector<double> want = {c.ref({1, 2, 3}), c.ref({0.5, 4, 1.5})};
    EXPECT_TRUE(allClose(runOnnx1(g, {f32({2, 3}, x)}), f32({2}, want))) << c.op;
  }
}

// The ONNX specification's ReduceMax example (keepdims 1 over axis 1), and the two readings of
// an absent axes input: everything reduced, or (noop_with_empty_axes) the input unchanged.
TEST(OnnxOpset18, ReduceMaxSpecExampleAndEmptyAxes) {
  const NDArray data = f32({3, 2, 2}, {5, 1, 20, 2, 30, 1, 40, 2, 55, 1, 60, 2});
  OnnxGraph g(18);
  g.input("x", {3, 2, 2}).initializer("axes", i64({1}, {1}));
  g.node("ReduceMax", {"x", "axes"}, {"y"}).i("keepdims", 1);
  g.node("ReduceMax", {"x"}, {"all"}).i("keepdims", 0);
  g.node("ReduceMin", {"x", ""}, {"same"}).i("noop_with_empty_axes", 1);
  g.output("y").output("all").output("same");
  const relay::Value v = runOnnx(g, {data});
  ASSERT_TRUE(v.isTuple());
  EXPECT_TRUE(allClose(v.fields()[0].tensor(), f32({3, 1, 2}, {20, 2, 40, 2, 60, 2})));
  EXPECT_TRUE(allClose(v.fields()[1].tensor(), f32({}, {60})));
  EXPECT_TRUE(allClose(v.fields()[2].tensor(), data));
}

// Since opset 18 an axes attribute is what ONNX's checker refuses: a diagnostic, not a guess.
TEST(OnnxOpset18, ReduceAxesAttributeIsAnError) {
  OnnxGraph g(18);
  g.input("x", {2, 3});
  g.node("ReduceMean", {"x"}, {"y"}).ints("axes", {1});
  g.output("y");
  const Diagnostic d = importError(g);
  EXPECT_EQ(d.code, "onnx_attr");
  EXPECT_NE(d.message.find("since opset 18 'axes' is an input"), std::string::npos) << d.message;
}

// --- Split --------------------------------------------------------------------------------------

// The specification's split_1d_uneven_split_opset18: 7 elements in 4 parts of ceil(7 / 4) = 2,
// the last one smaller; and a 2-D split along axis 1 into parts of 3, 3 and 2.
TEST(OnnxOpset18, SplitNumOutputsGivesASmallerLastPart) {
  OnnxGraph g(18);
  g.input("x", {7});
  g.node("Split", {"x"}, {"a", "b", "c", "d"}).i("num_outputs", 4);
  g.output("a").output("b").output("c").output("d");
  const relay::Value v = runOnnx(g, {f32({7}, iota(7, 1))});
  ASSERT_TRUE(v.isTuple());
  EXPECT_TRUE(allClose(v.fields()[0].tensor(), f32({2}, {1, 2})));
  EXPECT_TRUE(allClose(v.fields()[1].tensor(), f32({2}, {3, 4})));
  EXPECT_TRUE(allClose(v.fields()[2].tensor(), f32({2}, {5, 6})));
  EXPECT_TRUE(allClose(v.fields()[3].tensor(), f32({1}, {7})));

  OnnxGraph h(18);
  h.input("x", {2, 8});
  h.node("Split", {"x"}, {"a", "b", "c"}).i("axis", 1).i("num_outputs", 3);
  h.output("a").output("b").output("c");
  const relay::Value w = runOnnx(h, {f32({2, 8}, iota(16))});
  ASSERT_TRUE(w.isTuple());
  EXPECT_TRUE(allClose(w.fields()[0].tensor(), f32({2, 3}, {0, 1, 2, 8, 9, 10})));
  EXPECT_TRUE(allClose(w.fields()[1].tensor(), f32({2, 3}, {3, 4, 5, 11, 12, 13})));
  EXPECT_TRUE(allClose(w.fields()[2].tensor(), f32({2, 2}, {6, 7, 14, 15})));
}

TEST(OnnxOpset18, SplitNumOutputsMustMatchTheOutputsAndExcludeSizes) {
  OnnxGraph g(18);
  g.input("x", {6});
  g.node("Split", {"x"}, {"a", "b"}).i("num_outputs", 3);
  g.output("a").output("b");
  Diagnostic d = importError(g);
  EXPECT_EQ(d.code, "onnx_attr");
  EXPECT_NE(d.message.find("num_outputs is 3 but the node has 2 outputs"), std::string::npos)
      << d.message;

  OnnxGraph h(18);
  h.input("x", {6}).initializer("split", i64({2}, {2, 4}));
  h.node("Split", {"x", "split"}, {"a", "b"}).i("num_outputs", 2);
  h.output("a").output("b");
  d = importError(h);
  EXPECT_EQ(d.code, "onnx_attr");
  EXPECT_NE(d.message.find("given together"), std::string::npos) << d.message;
}

// --- Pad ----------------------------------------------------------------------------------------

// Opset 18's axes input: pads [begins..., ends...] of the listed axes only (a negative axis too).
TEST(OnnxOpset18, PadAxesInputPadsOnlyTheListedAxes) {
  OnnxGraph g(18);
  g.input("x", {2, 3})
      .initializer("pads", i64({2}, {1, 2}))
      .initializer("value", f32({}, {9}))
      .initializer("axes", i64({1}, {-1}));
  g.node("Pad", {"x", "pads", "value", "axes"}, {"y"});
  g.output("y");
  EXPECT_TRUE(allClose(runOnnx1(g, {f32({2, 3}, {1, 2, 3, 4, 5, 6})}),
                       f32({2, 6}, {9, 1, 2, 3, 9, 9, 9, 4, 5, 6, 9, 9})));

  // The specification's constant_pad_axes: pads [0, 3, 0, 4] over axes [1, 3] of (1, 3, 4, 5).
  OnnxGraph h(18);
  h.input("x", {1, 3, 4, 5})
      .initializer("pads", i64({4}, {0, 3, 0, 4}))
      .initializer("value", f32({}, {1.2}))
      .initializer("axes", i64({2}, {1, 3}));
  h.node("Pad", {"x", "pads", "value", "axes"}, {"y"});
  h.output("y");
  const NDArray y = runOnnx1(h, {f32({1, 3, 4, 5}, iota(60))});
  ASSERT_EQ(y.shape(), (std::vector<int64_t>{1, 3, 4, 12}));
  const std::vector<double> got = valuesOf(y);
  for (int64_t r = 0; r < 12; ++r)  // (c, h) rows of 12: 3 pads, 5 values, 4 pads
    for (int64_t w = 0; w < 12; ++w) {
      const double want = w < 3 || w >= 8 ? 1.2 : static_cast<double>(r * 5 + w - 3);
      EXPECT_NEAR(got[r * 12 + w], want, 1e-6) << r << ", " << w;
    }
}

// --- Resize -------------------------------------------------------------------------------------

// Nearest, half_pixel, round_prefer_floor along one axis, as ONNX's reference computes it.
std::vector<int64_t> nearestIndices(int64_t in, int64_t out, double scale) {
  std::vector<int64_t> idx;
  for (int64_t o = 0; o < out; ++o) {
    const double x = (static_cast<double>(o) + 0.5) / scale - 0.5;
    const double f = std::floor(x);
    const int64_t k = static_cast<int64_t>(x - f <= 0.5 ? f : f + 1);
    idx.push_back(std::clamp<int64_t>(k, 0, in - 1));
  }
  return idx;
}

// The specification's resize_upsample_sizes_nearest_not_larger / _not_smaller: sizes [7, 8] for
// a 2 x 2 image give one scale, 3.5 (7 x 7) or 4 (8 x 8); axes [2, 3] name the resized axes.
TEST(OnnxOpset18, ResizeKeepAspectRatioPolicies) {
  for (const std::string policy : {"not_larger", "not_smaller"}) {
    OnnxGraph g(18);
    g.input("x", {1, 1, 2, 2}).initializer("sizes", i64({2}, {7, 8}));
    g.node("Resize", {"x", "", "", "sizes"}, {"y"})
        .s("mode", "nearest")
        .ints("axes", {2, 3})
        .s("keep_aspect_ratio_policy", policy);
    g.output("y");
    const double scale = policy == "not_larger" ? 3.5 : 4;
    const int64_t out = policy == "not_larger" ? 7 : 8;
    const std::vector<int64_t> idx = nearestIndices(2, out, scale);
    std::vector<double> want;
    for (int64_t i = 0; i < out; ++i)
      for (int64_t j = 0; j < out; ++j) want.push_back(1 + 2 * idx[i] + idx[j]);
    EXPECT_TRUE(
        allClose(runOnnx1(g, {f32({1, 1, 2, 2}, {1, 2, 3, 4})}), f32({1, 1, out, out}, want)))
        << policy;
  }
}

// The specification's resize_downsample_scales_{linear,cubic}_antialias: scales 0.6 on a 4 x 4
// image (2 x 2 out); the kernel stretched by 1 / 0.6 reads four (linear) or eight (cubic) inputs.
TEST(OnnxOpset18, ResizeAntialiasMatchesSpecExamples) {
  const std::vector<std::pair<std::string, std::vector<double>>> cases = {
      {"linear", {2.875, 4.5, 9.375, 11}},
      {"cubic", {2.5180721, 4.2858863, 9.589329, 11.357142}},
  };
  for (const auto& [mode, want] : cases) {
    OnnxGraph g(18);
    g.input("x", {1, 1, 4, 4}).initializer("scales", f32({4}, {1, 1, 0.6, 0.6}));
    g.node("Resize", {"x", "", "scales"}, {"y"}).s("mode", mode).i("antialias", 1);
    g.output("y");
    EXPECT_TRUE(allClose(runOnnx1(g, {f32({1, 1, 4, 4}, iota(16, 1))}), f32({1, 1, 2, 2}, want),
                         1e-5, 1e-5))
        << mode;
  }
}

// axes with scales: only the last axis doubles (linear, half_pixel: edge-clamped quarters).
TEST(OnnxOpset18, ResizeAxesWithScales) {
  OnnxGraph g(18);
  g.input("x", {2, 2}).initializer("scales", f32({1}, {2}));
  g.node("Resize", {"x", "", "scales"}, {"y"}).s("mode", "linear").ints("axes", {-1});
  g.output("y");
  EXPECT_TRUE(allClose(runOnnx1(g, {f32({2, 2}, {1, 2, 3, 5})}),
                       f32({2, 4}, {1, 1.25, 1.75, 2, 3, 3.5, 4.5, 5})));
}

TEST(OnnxOpset18, ResizeRejectsAntialiasedNearestAndUnknownPolicies) {
  OnnxGraph g(18);
  g.input("x", {1, 1, 4, 4}).initializer("scales", f32({4}, {1, 1, 0.5, 0.5}));
  g.node("Resize", {"x", "", "scales"}, {"y"}).s("mode", "nearest").i("antialias", 1);
  g.output("y");
  EXPECT_EQ(importError(g).code, "onnx_unsupported_attr");

  OnnxGraph h(18);
  h.input("x", {1, 1, 2, 2}).initializer("sizes", i64({4}, {1, 1, 4, 3}));
  h.node("Resize", {"x", "", "", "sizes"}, {"y"}).s("keep_aspect_ratio_policy", "fit");
  h.output("y");
  const Diagnostic d = importError(h);
  EXPECT_EQ(d.code, "onnx_unsupported_attr");
  EXPECT_NE(d.message.find("not_smaller"), std::string::npos) << d.message;
}

// --- Scatters -----------------------------------------------------------------------------------

// The specification's scatter_elements_with_reduction_max (and its min twin), and ScatterND with
// max and min on duplicate indices.
TEST(OnnxOpset18, ScatterReductionsMaxAndMin) {
  for (const std::string r : {"max", "min"}) {
    OnnxGraph g(18);
    g.input("x", {1, 5}).initializer("idx", i64({1, 2}, {1, 1})).input("upd", {1, 2});
    g.node("ScatterElements", {"x", "idx", "upd"}, {"y"}).i("axis", 1).s("reduction", r);
    g.output("y");
    const NDArray got = runOnnx1(g, {f32({1, 5}, {1, 2, 3, 4, 5}), f32({1, 2}, {1.1, 2.1})});
    EXPECT_TRUE(allClose(got, f32({1, 5}, r == "max" ? std::vector<double>{1, 2.1, 3, 4, 5}
                                                     : std::vector<double>{1, 1.1, 3, 4, 5})))
        << r;

    OnnxGraph h(18);
    h.input("x", {3, 2}).input("idx", {3, 1}, kInt64).input("upd", {3, 2});
    h.node("ScatterND", {"x", "idx", "upd"}, {"y"}).s("reduction", r);
    h.output("y");
    const NDArray x = f32({3, 2}, {1, 5, 2, 2, 3, 3});
    const NDArray idx = i64({3, 1}, {0, 2, 0});
    const NDArray upd = f32({3, 2}, {4, 4, 7, 1, 0, 9});
    const std::vector<double> want =
        r == "max" ? std::vector<double>{4, 9, 2, 2, 7, 3} : std::vector<double>{0, 4, 2, 2, 3, 1};
    EXPECT_TRUE(allClose(runOnnx1(h, {x, idx, upd}), f32({3, 2}, want))) << r;
  }
}

// --- LpPool -------------------------------------------------------------------------------------

// (sum of |x|^p over each window)^(1/p) by plain loops over an (H, W) plane; out-of-range taps
// (padding, ceil_mode's last window) add nothing.
std::vector<double> lpPoolRef(const std::vector<double>& x, int64_t h, int64_t w,
                              std::vector<int64_t> k, std::vector<int64_t> s,
                              std::vector<int64_t> d, std::vector<int64_t> pads, int64_t oh,
                              int64_t ow, double p) {
  std::vector<double> out;
  for (int64_t i = 0; i < oh; ++i)
    for (int64_t j = 0; j < ow; ++j) {
      double acc = 0;
      for (int64_t a = 0; a < k[0]; ++a)
        for (int64_t b = 0; b < k[1]; ++b) {
          const int64_t y = i * s[0] + a * d[0] - pads[0], z = j * s[1] + b * d[1] - pads[1];
          if (y >= 0 && y < h && z >= 0 && z < w) acc += std::pow(std::abs(x[y * w + z]), p);
        }
      out.push_back(std::pow(acc, 1 / p));
    }
  return out;
}

TEST(OnnxOpset18, LpPoolWithDilationsAndCeilMode) {
  const std::vector<double> x = {1, -2, 3,  0.5, -1, 2, 4, -3, 0, 1,   2, -1, 3,
                                 2, 1,  -2, 0,   1,  2, 3, -4, 1, 0.5, 2, 1};
  // p 2, 2 x 2 window dilated by 2, stride 2, ceil_mode: (5 - 3) / 2 + 1 = 2 windows either way.
  OnnxGraph g(18);
  g.input("x", {1, 1, 5, 5});
  g.node("LpPool", {"x"}, {"y"})
      .ints("kernel_shape", {2, 2})
      .ints("dilations", {2, 2})
      .ints("strides", {2, 2})
      .i("ceil_mode", 1);
  g.output("y");
  EXPECT_TRUE(
      allClose(runOnnx1(g, {f32({1, 1, 5, 5}, x)}),
               f32({1, 1, 2, 2}, lpPoolRef(x, 5, 5, {2, 2}, {2, 2}, {2, 2}, {0, 0}, 2, 2, 2))));
  // p 3, 3 x 3 window, stride 2, pads 1 at the start: ceil_mode keeps a third, partial window.
  OnnxGraph h(18);
  h.input("x", {1, 1, 5, 5});
  h.node("LpPool", {"x"}, {"y"})
      .ints("kernel_shape", {3, 3})
      .ints("strides", {2, 2})
      .ints("pads", {1, 1, 0, 0})
      .i("p", 3)
      .i("ceil_mode", 1);
  h.output("y");
  EXPECT_TRUE(allClose(
      runOnnx1(h, {f32({1, 1, 5, 5}, x)}),
      f32({1, 1, 3, 3}, lpPoolRef(x, 5, 5, {3, 3}, {2, 2}, {1, 1}, {1, 1}, 3, 3, 3)), 1e-5, 1e-5));
}

// LpPool existed before opset 18 (without dilations and ceil_mode): a 1-D window of p 1.
TEST(OnnxOpset18, LpPoolOpset11OneDimensional) {
  OnnxGraph g(11);
  g.input("x", {1, 2, 4});
  g.node("LpPool", {"x"}, {"y"}).ints("kernel_shape", {2}).i("p", 1);
  g.output("y");
  EXPECT_TRUE(allClose(runOnnx1(g, {f32({1, 2, 4}, {1, -2, 3, -4, 0, 1, -1, 2})}),
                       f32({1, 2, 3}, {3, 5, 7, 1, 2, 3})));
}

// --- New operators ------------------------------------------------------------------------------

TEST(OnnxOpset18, BitwiseOperators) {
  OnnxGraph g(18);
  g.input("a", {4}, kInt32).input("b", {4}, kInt32);
  g.node("BitwiseAnd", {"a", "b"}, {"and"});
  g.node("BitwiseOr", {"a", "b"}, {"or"});
  g.node("BitwiseXor", {"a", "b"}, {"xor"});
  g.node("BitwiseNot", {"a"}, {"not"});
  g.output("and").output("or").output("xor").output("not");
  const relay::Value v = runOnnx(g, {i32({4}, {5, 12, -1, 0}), i32({4}, {3, 10, 7, -8})});
  ASSERT_TRUE(v.isTuple());
  EXPECT_TRUE(allClose(v.fields()[0].tensor(), i32({4}, {1, 8, 7, 0}), 0, 0));
  EXPECT_TRUE(allClose(v.fields()[1].tensor(), i32({4}, {7, 14, -1, -8}), 0, 0));
  EXPECT_TRUE(allClose(v.fields()[2].tensor(), i32({4}, {6, 6, -8, -8}), 0, 0));
  EXPECT_TRUE(allClose(v.fields()[3].tensor(), i32({4}, {-6, -13, 0, -1}), 0, 0));
}

// Axis 0 cropped from 5 to 3 (rows 1-3), axis 1 padded from 3 to 6 (one zero before, two after);
// with axes, an odd crop drops the extra element at the end.
TEST(OnnxOpset18, CenterCropPadCropsAndPadsAroundTheCentre) {
  OnnxGraph g(18);
  g.input("x", {5, 3}).initializer("shape", i64({2}, {3, 6}));
  g.node("CenterCropPad", {"x", "shape"}, {"y"});
  g.output("y");
  EXPECT_TRUE(allClose(runOnnx1(g, {f32({5, 3}, iota(15, 1))}),
                       f32({3, 6}, {0, 4, 5, 6, 0, 0, 0, 7, 8, 9, 0, 0, 0, 10, 11, 12, 0, 0})));

  OnnxGraph h(18);
  h.input("x", {2, 5}).initializer("shape", i64({1}, {2}));
  h.node("CenterCropPad", {"x", "shape"}, {"y"}).ints("axes", {-1});
  h.output("y");
  EXPECT_TRUE(allClose(runOnnx1(h, {f32({2, 5}, iota(10))}), f32({2, 2}, {1, 2, 6, 7})));
}

// Col2Im by its definition: each column entry (c * B + b, l) added at its block's tap position.
std::vector<double> col2ImRef(const std::vector<double>& x, int64_t channels,
                              std::vector<int64_t> image, std::vector<int64_t> block,
                              std::vector<int64_t> dil, std::vector<int64_t> pads,
                              std::vector<int64_t> strides) {
  const int64_t b = block[0] * block[1];
  const int64_t lh =
      (image[0] + pads[0] + pads[2] - (dil[0] * (block[0] - 1) + 1)) / strides[0] + 1;
  const int64_t lw =
      (image[1] + pads[1] + pads[3] - (dil[1] * (block[1] - 1) + 1)) / strides[1] + 1;
  std::vector<double> out(static_cast<size_t>(channels * image[0] * image[1]), 0);
  for (int64_t c = 0; c < channels; ++c)
    for (int64_t t = 0; t < b; ++t)
      for (int64_t l = 0; l < lh * lw; ++l) {
        const int64_t y = (l / lw) * strides[0] + (t / block[1]) * dil[0] - pads[0];
        const int64_t z = (l % lw) * strides[1] + (t % block[1]) * dil[1] - pads[1];
        if (y >= 0 && y < image[0] && z >= 0 && z < image[1])
          out[(c * image[0] + y) * image[1] + z] += x[(c * b + t) * lh * lw + l];
      }
  return out;
}

TEST(OnnxOpset18, Col2ImMatchesSpecExampleAndDefinition) {
  // The specification's example: a (1, 5, 5) input of 1..25, 1 x 5 blocks on a 5 x 5 image.
  OnnxGraph g(18);
  g.input("x", {1, 5, 5})
      .initializer("image", i64({2}, {5, 5}))
      .initializer("block", i64({2}, {1, 5}));
  g.node("Col2Im", {"x", "image", "block"}, {"y"});
  g.output("y");
  EXPECT_TRUE(allClose(runOnnx1(g, {f32({1, 5, 5}, iota(25, 1))}),
                       f32({1, 1, 5, 5}, {1,  6,  11, 16, 21, 2,  7,  12, 17, 22, 3,  8, 13,
                                          18, 23, 4,  9,  14, 19, 24, 5,  10, 15, 20, 25})));
  // Two channels, 2 x 2 blocks dilated by (1, 2), strides (2, 1), pads (1, 0, 1, 1) on a 4 x 5
  // image: L = 3 x 4 block positions, overlapping taps summed.
  OnnxGraph h(18);
  h.input("x", {1, 8, 12})
      .initializer("image", i64({2}, {4, 5}))
      .initializer("block", i64({2}, {2, 2}));
  h.node("Col2Im", {"x", "image", "block"}, {"y"})
      .ints("dilations", {1, 2})
      .ints("strides", {2, 1})
      .ints("pads", {1, 0, 1, 1});
  h.output("y");
  std::vector<double> x;
  for (int i = 0; i < 96; ++i) x.push_back(std::sin(0.7 * i) * 3);
  EXPECT_TRUE(
      allClose(runOnnx1(h, {f32({1, 8, 12}, x)}),
               f32({1, 2, 4, 5}, col2ImRef(x, 2, {4, 5}, {2, 2}, {1, 2}, {1, 0, 1, 1}, {2, 1})),
               1e-5, 1e-5));
}

// Two groups of two channels over a length-3 signal; opset 18's scale and bias are per group.
TEST(OnnxOpset18, GroupNormalizationPerGroupScaleAndBias) {
  const std::vector<double> x = {1, 2, 3, 4,  0, -1, 2, 2, 5, 1, 1, 7,
                                 3, 0, 1, -2, 4, 2,  1, 1, 1, 1, 1, 2};
  const std::vector<double> scale = {2, -0.5}, bias = {0.5, 1};
  OnnxGraph g(18);
  g.input("x", {2, 4, 3}).initializer("scale", f32({2}, scale)).initializer("bias", f32({2}, bias));
  g.node("GroupNormalization", {"x", "scale", "bias"}, {"y"})
      .i("num_groups", 2)
      .f("epsilon", 1e-3f);
  g.output("y");
  std::vector<double> want(x.size());
  for (int n = 0; n < 2; ++n)
    for (int grp = 0; grp < 2; ++grp) {
      const int base = n * 12 + grp * 6;
      double mean = 0, var = 0;
      for (int i = 0; i < 6; ++i) mean += x[base + i] / 6;
      for (int i = 0; i < 6; ++i) var += (x[base + i] - mean) * (x[base + i] - mean) / 6;
      for (int i = 0; i < 6; ++i)
        want[base + i] = (x[base + i] - mean) / std::sqrt(var + 1e-3) * scale[grp] + bias[grp];
    }
  EXPECT_TRUE(allClose(runOnnx1(g, {f32({2, 4, 3}, x)}), f32({2, 4, 3}, want), 1e-5, 1e-5));

  OnnxGraph h(18);  // opset 21's per-channel scale is not opset 18's
  h.input("x", {2, 4, 3}).initializer("scale", f32({4}, {1, 1, 1, 1}));
  h.initializer("bias", f32({4}, {0, 0, 0, 0}));
  h.node("GroupNormalization", {"x", "scale", "bias"}, {"y"}).i("num_groups", 2);
  h.output("y");
  EXPECT_EQ(importError(h).code, "onnx_input");
}

TEST(OnnxOpset18, Mish) {
  const std::vector<double> x = {-3, -1, 0, 0.5, 2, 10};
  std::vector<double> want;
  for (double v : x) want.push_back(v * std::tanh(std::log1p(std::exp(v))));
  OnnxGraph g(18);
  g.input("x", {6});
  g.node("Mish", {"x"}, {"y"});
  g.output("y");
  EXPECT_TRUE(allClose(runOnnx1(g, {f32({6}, x)}), f32({6}, want), 1e-5, 1e-6));
}

// --- Opset 17 forms still work ------------------------------------------------------------------

TEST(OnnxOpset18, Opset17FormsStillImport) {
  OnnxGraph g(17);
  g.input("x", {2, 4}).initializer("pads", i64({4}, {0, 1, 0, 0}));
  g.node("ReduceMax", {"x"}, {"max"}).ints("axes", {1}).i("keepdims", 0);
  g.node("ReduceL2", {"x"}, {"l2"}).ints("axes", {0}).i("keepdims", 0);
  g.node("Split", {"x"}, {"a", "b"}).i("axis", 1);
  g.node("Pad", {"x", "pads"}, {"p"});
  g.output("max").output("l2").output("a").output("b").output("p");
  const relay::Value v = runOnnx(g, {f32({2, 4}, {1, 5, 2, 0, 3, 4, 4, 1})});
  ASSERT_TRUE(v.isTuple());
  EXPECT_TRUE(allClose(v.fields()[0].tensor(), f32({2}, {5, 4})));
  EXPECT_TRUE(allClose(v.fields()[1].tensor(),
                       f32({4}, {std::sqrt(10.0), std::sqrt(41.0), std::sqrt(20.0), 1})));
  EXPECT_TRUE(allClose(v.fields()[2].tensor(), f32({2, 2}, {1, 5, 3, 4})));
  EXPECT_TRUE(allClose(v.fields()[3].tensor(), f32({2, 2}, {2, 0, 4, 1})));
  EXPECT_TRUE(allClose(v.fields()[4].tensor(), f32({2, 5}, {0, 1, 5, 2, 0, 0, 3, 4, 4, 1})));

  // Before opset 18 an uneven Split without sizes is still an error (parts must be equal).
  OnnxGraph h(17);
  h.input("x", {7});
  h.node("Split", {"x"}, {"a", "b"});
  h.output("a").output("b");
  EXPECT_EQ(importError(h).code, "onnx_shape");
}

}  // namespace
}  // namespace tessera::test
