// ONNX importer, 3-D windows (Conv, ConvTranspose, MaxPool and AveragePool over (N, C, D, H, W)):
// the imported graph under the reference interpreter against direct loops over the 3-D window
// on seeded random data.
#include <algorithm>
#include <array>
#include <limits>

#include <gtest/gtest.h>

#include "onnx_test_util.h"

namespace tessera::test {
namespace {

using Shape = std::vector<int64_t>;
using Axes3 = std::array<int64_t, 3>;
using Index5 = std::array<int64_t, 5>;

// A 3-D window in ONNX's conventions: pads are the three begins, then the three ends.
struct Win3 {
  Axes3 kernel = {1, 1, 1}, strides = {1, 1, 1}, dilations = {1, 1, 1};
  std::array<int64_t, 6> pads = {};
};

std::vector<int64_t> vec(const Axes3& a) {
  return {a.begin(), a.end()};
}

Index5 unravel(const Shape& s, int64_t flat) {
  Index5 i{};
  for (int k = 4; k >= 0; --k) {
    i[k] = flat % s[k];
    flat /= s[k];
  }
  return i;
}

int64_t ravel(const Shape& s, const Index5& i) {
  int64_t flat = 0;
  for (int k = 0; k < 5; ++k) flat = flat * s[k] + i[k];
  return flat;
}

int64_t outExtent(const Win3& w, int k, int64_t in, bool ceilMode) {
  const int64_t room = in + w.pads[k] + w.pads[k + 3] - (w.kernel[k] - 1) * w.dilations[k] - 1;
  return (ceilMode ? room + w.strides[k] - 1 : room) / w.strides[k] + 1;
}

NDArray zerosOf(const Shape& s) {
  NDArray a = NDArray::empty(s, DataType::float32());
  for (int64_t i = 0; i < a.numel(); ++i) a.setFloat(i, 0);
  return a;
}

// Conv: y[n, o, p] = bias[o] + sum over the group's channels c and taps t of
// x[n, c, p * stride - pad + t * dilation] * w[o, c, t], padding reading zeros.
NDArray conv3dRef(const NDArray& x, const NDArray& wt, const NDArray* bias, const Win3& w,
                  int64_t groups) {
  const Shape &xs = x.shape(), &ws = wt.shape();
  NDArray y = zerosOf({xs[0], ws[0], outExtent(w, 0, xs[2], false), outExtent(w, 1, xs[3], false),
                       outExtent(w, 2, xs[4], false)});
  const int64_t cinPerGroup = xs[1] / groups, coutPerGroup = ws[0] / groups;
  for (int64_t flat = 0; flat < y.numel(); ++flat) {
    const Index5 o = unravel(y.shape(), flat);
    double acc = bias ? bias->getFloat(o[1]) : 0;
    for (int64_t tap = 0; tap < cinPerGroup * ws[2] * ws[3] * ws[4]; ++tap) {
      const Index5 t = unravel({1, cinPerGroup, ws[2], ws[3], ws[4]}, tap);
      Index5 in = {o[0], o[1] / coutPerGroup * cinPerGroup + t[1], 0, 0, 0};
      bool inside = true;
      for (int k = 0; k < 3; ++k) {
        in[2 + k] = o[2 + k] * w.strides[k] - w.pads[k] + t[2 + k] * w.dilations[k];
        inside = inside && in[2 + k] >= 0 && in[2 + k] < xs[2 + k];
      }
      if (inside)
        acc += x.getFloat(ravel(xs, in)) * wt.getFloat(ravel(ws, {o[1], t[1], t[2], t[3], t[4]}));
    }
    y.setFloat(flat, acc);
  }
  return y;
}

// ConvTranspose as a scatter: x[n, c, i] * w[c, o, t] lands on y[n, group(c) * C_out/g + o,
// i * stride - pad + t * dilation]; the output extent includes output_padding.
NDArray convTranspose3dRef(const NDArray& x, const NDArray& wt, const NDArray& bias, const Win3& w,
                           int64_t groups, const Axes3& outPad) {
  const Shape &xs = x.shape(), &ws = wt.shape();
  Shape ys = {xs[0], ws[1] * groups, 0, 0, 0};
  for (int k = 0; k < 3; ++k)
    ys[2 + k] = w.strides[k] * (xs[2 + k] - 1) + outPad[k] + (ws[2 + k] - 1) * w.dilations[k] + 1 -
                w.pads[k] - w.pads[k + 3];
  NDArray y = zerosOf(ys);
  const int64_t cinPerGroup = xs[1] / groups;
  for (int64_t flat = 0; flat < x.numel(); ++flat) {
    const Index5 i = unravel(xs, flat);
    for (int64_t tap = 0; tap < ws[1] * ws[2] * ws[3] * ws[4]; ++tap) {
      const Index5 t = unravel({1, ws[1], ws[2], ws[3], ws[4]}, tap);
      Index5 o = {i[0], i[1] / cinPerGroup * ws[1] + t[1], 0, 0, 0};
      bool inside = true;
      for (int k = 0; k < 3; ++k) {
        o[2 + k] = i[2 + k] * w.strides[k] - w.pads[k] + t[2 + k] * w.dilations[k];
        inside = inside && o[2 + k] >= 0 && o[2 + k] < ys[2 + k];
      }
      if (!inside) continue;
      const int64_t at = ravel(ys, o);
      y.setFloat(at, y.getFloat(at) +
                         x.getFloat(flat) * wt.getFloat(ravel(ws, {i[1], t[1], t[2], t[3], t[4]})));
    }
  }
  for (int64_t flat = 0; flat < y.numel(); ++flat)
    y.setFloat(flat, y.getFloat(flat) + bias.getFloat(unravel(ys, flat)[1]));
  return y;
}

// Pools: max over the real taps; the average divides by the taps inside the explicitly padded
// input (count_include_pad) or by the real ones. Taps that exist only because of ceil_mode lie
// past the end padding and count as neither.
NDArray pool3dRef(const NDArray& x, const Win3& w, bool isMax, bool ceilMode,
                  bool countIncludePad) {
  const Shape& xs = x.shape();
  NDArray y = zerosOf({xs[0], xs[1], outExtent(w, 0, xs[2], ceilMode),
                       outExtent(w, 1, xs[3], ceilMode), outExtent(w, 2, xs[4], ceilMode)});
  const int64_t taps = w.kernel[0] * w.kernel[1] * w.kernel[2];
  for (int64_t flat = 0; flat < y.numel(); ++flat) {
    const Index5 o = unravel(y.shape(), flat);
    double best = -std::numeric_limits<double>::infinity(), sum = 0;
    int64_t real = 0, padded = 0;
    for (int64_t tap = 0; tap < taps; ++tap) {
      const Index5 t = unravel({1, 1, w.kernel[0], w.kernel[1], w.kernel[2]}, tap);
      Index5 in = {o[0], o[1], 0, 0, 0};
      bool isReal = true, inPadded = true;
      for (int k = 0; k < 3; ++k) {
        in[2 + k] = o[2 + k] * w.strides[k] - w.pads[k] + t[2 + k] * w.dilations[k];
        isReal = isReal && in[2 + k] >= 0 && in[2 + k] < xs[2 + k];
        inPadded = inPadded && in[2 + k] < xs[2 + k] + w.pads[k + 3];
      }
      padded += inPadded ? 1 : 0;
      if (!isReal) continue;
      ++real;
      sum += x.getFloat(ravel(xs, in));
      best = std::max(best, x.getFloat(ravel(xs, in)));
    }
    y.setFloat(flat, isMax ? best : sum / static_cast<double>(countIncludePad ? padded : real));
  }
  return y;
}

void setWindow(OnnxNode node, const Win3& w) {
  node.ints("strides", vec(w.strides))
      .ints("dilations", vec(w.dilations))
      .ints("pads", {w.pads.begin(), w.pads.end()});
}

NDArray random(const Shape& shape, uint64_t seed) {
  return randomTensor(shape, DataType::float32(), seed);
}

::testing::AssertionResult near(const NDArray& got, const NDArray& want) {
  return allClose(got, want, 1e-4, 1e-5);
}

TEST(OnnxNn3d, ConvGroupsDilationsStridesAsymmetricPadsAndBias) {
  const Win3 w{.kernel = {2, 3, 2},
               .strides = {1, 2, 1},
               .dilations = {2, 1, 2},
               .pads = {1, 0, 2, 0, 1, 1}};
  const NDArray x = random({2, 4, 5, 6, 5}, 1), wt = random({6, 2, 2, 3, 2}, 2),
                bias = random({6}, 3);
  OnnxGraph g(13);
  g.input("x", x.shape()).initializer("W", wt).initializer("B", bias);
  setWindow(g.node("Conv", {"x", "W", "B"}, {"y"}).i("group", 2), w);
  g.output("y");
  EXPECT_TRUE(near(runOnnx1(g, {x}), conv3dRef(x, wt, &bias, w, 2)));
}

// The weight is a graph input, so the per-tap weight slices stay expressions (no folding).
TEST(OnnxNn3d, ConvAutoPadSameUpperWithRuntimeWeight) {
  const NDArray x = random({1, 3, 5, 4, 6}, 4), wt = random({2, 3, 3, 2, 3}, 5);
  OnnxGraph g(13);
  g.input("x", x.shape()).input("W", wt.shape());
  g.node("Conv", {"x", "W"}, {"y"}).ints("strides", {2, 1, 1}).s("auto_pad", "SAME_UPPER");
  g.output("y");
  // SAME_UPPER: output extents ceil(in / stride) = (3, 4, 6); the padding totals (2, 1, 2) put
  // the odd element at the end.
  const Win3 w{.kernel = {3, 2, 3}, .strides = {2, 1, 1}, .pads = {1, 0, 1, 1, 1, 1}};
  const NDArray got = runOnnx1(g, {x, wt});
  EXPECT_EQ(got.shape(), (Shape{1, 2, 3, 4, 6}));
  EXPECT_TRUE(near(got, conv3dRef(x, wt, nullptr, w, 1)));
}

TEST(OnnxNn3d, ConvTransposeStridesOutputPaddingGroupsAndBias) {
  const Win3 w{.kernel = {2, 3, 2},
               .strides = {2, 1, 3},
               .dilations = {1, 2, 1},
               .pads = {1, 0, 0, 0, 1, 1}};
  const Axes3 outPad = {1, 0, 2};
  const NDArray x = random({1, 4, 3, 2, 3}, 6), wt = random({4, 3, 2, 3, 2}, 7),
                bias = random({6}, 8);
  OnnxGraph g(13);
  g.input("x", x.shape()).initializer("W", wt).initializer("B", bias);
  setWindow(g.node("ConvTranspose", {"x", "W", "B"}, {"y"})
                .i("group", 2)
                .ints("output_padding", vec(outPad)),
            w);
  g.output("y");
  const NDArray got = runOnnx1(g, {x});
  EXPECT_EQ(got.shape(), (Shape{1, 6, 6, 5, 9}));
  EXPECT_TRUE(near(got, convTranspose3dRef(x, wt, bias, w, 2, outPad)));
}

// ceil_mode adds a last window along D and W whose final tap lies past the input (and past
// the end padding); the windows still start inside the input.
TEST(OnnxNn3d, MaxPoolStridesDilationsPadsAndCeilMode) {
  const Win3 w{.kernel = {2, 3, 2},
               .strides = {2, 1, 2},
               .dilations = {1, 2, 1},
               .pads = {1, 0, 0, 0, 1, 0}};
  const NDArray x = random({1, 2, 6, 6, 7}, 9);
  OnnxGraph g(13);
  g.input("x", x.shape());
  setWindow(g.node("MaxPool", {"x"}, {"floor"}).ints("kernel_shape", vec(w.kernel)), w);
  setWindow(
      g.node("MaxPool", {"x"}, {"ceil"}).ints("kernel_shape", vec(w.kernel)).i("ceil_mode", 1), w);
  g.output("floor").output("ceil");
  relay::Value v = runOnnx(g, {x});
  ASSERT_TRUE(v.isTuple());
  EXPECT_EQ(v.fields()[0].tensor().shape(), (Shape{1, 2, 3, 3, 3}));
  EXPECT_EQ(v.fields()[1].tensor().shape(), (Shape{1, 2, 4, 3, 4}));
  EXPECT_TRUE(near(v.fields()[0].tensor(), pool3dRef(x, w, true, false, false)));
  EXPECT_TRUE(near(v.fields()[1].tensor(), pool3dRef(x, w, true, true, false)));
}

// Every combination of count_include_pad and ceil_mode, with windows that cover padding on
// both sides and (ceil_mode) taps past the end padding along D.
TEST(OnnxNn3d, AveragePoolCountIncludePadAndCeilMode) {
  const Win3 w{.kernel = {3, 2, 2}, .strides = {2, 2, 2}, .pads = {1, 0, 1, 1, 1, 0}};
  const NDArray x = random({2, 3, 6, 5, 7}, 10);
  OnnxGraph g(13);
  g.input("x", x.shape());
  const char* names[] = {"floor_real", "floor_padded", "ceil_real", "ceil_padded"};
  for (int i = 0; i < 4; ++i) {
    g.node("AveragePool", {"x"}, {names[i]})
        .ints("kernel_shape", vec(w.kernel))
        .ints("strides", vec(w.strides))
        .ints("pads", {w.pads.begin(), w.pads.end()})
        .i("count_include_pad", i % 2)
        .i("ceil_mode", i / 2);
    g.output(names[i]);
  }
  relay::Value v = runOnnx(g, {x});
  ASSERT_TRUE(v.isTuple());
  EXPECT_EQ(v.fields()[2].tensor().shape(), (Shape{2, 3, 4, 3, 4}));
  for (int i = 0; i < 4; ++i)
    EXPECT_TRUE(near(v.fields()[i].tensor(), pool3dRef(x, w, false, i / 2 == 1, i % 2 == 1)))
        << names[i];
}

TEST(OnnxNn3d, AveragePoolSameUpper) {
  const NDArray x = random({1, 2, 5, 4, 3}, 11);
  OnnxGraph g(13);
  g.input("x", x.shape());
  g.node("AveragePool", {"x"}, {"y"})
      .ints("kernel_shape", {2, 3, 2})
      .ints("strides", {2, 1, 2})
      .s("auto_pad", "SAME_UPPER");
  g.output("y");
  // Output extents (3, 4, 2); padding totals (1, 2, 1), the odd element at the end.
  const Win3 w{.kernel = {2, 3, 2}, .strides = {2, 1, 2}, .pads = {0, 1, 0, 1, 1, 1}};
  EXPECT_TRUE(near(runOnnx1(g, {x}), pool3dRef(x, w, false, false, false)));
}

TEST(OnnxNn3d, RanksAboveThreeSpatialAxesAreDiagnostics) {
  OnnxGraph g(13);
  g.input("x", {1, 1, 2, 2, 2, 2});
  g.node("MaxPool", {"x"}, {"y"}).ints("kernel_shape", {1, 1, 1, 1});
  g.output("y");
  const Diagnostic d = diagnosticOf([&] { (void)frontend::onnx::importOnnxBytes(g.bytes()); });
  EXPECT_EQ(d.code, "onnx_unsupported_rank");
}

TEST(OnnxNn3d, ConvKernelDeeperThanPaddedInputIsADiagnostic) {
  OnnxGraph g(13);
  g.input("x", {1, 1, 2, 4, 4}).initializer("W", random({1, 1, 3, 1, 1}, 12));
  g.node("Conv", {"x", "W"}, {"y"});
  g.output("y");
  const Diagnostic d = diagnosticOf([&] { (void)frontend::onnx::importOnnxBytes(g.bytes()); });
  EXPECT_EQ(d.code, "onnx_shape");
  EXPECT_NE(d.message.find("depth"), std::string::npos) << d.message;
}

}  // namespace
}  // namespace tessera::test
