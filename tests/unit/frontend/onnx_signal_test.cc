// ONNX importer, signal operators and Det: DFT, STFT and MelWeightMatrix under the reference
// interpreter against a naive DFT computed here in double precision (complex and real signals,
// inverse, onesided, padding and truncation by dft_length, other axes, windows), Det against
// Gaussian elimination in double (singular, pivot-needing, batched), and the import diagnostics.
#include <cmath>
#include <complex>
#include <numbers>

#include <gtest/gtest.h>

#include "onnx_test_util.h"

namespace tessera::test {
namespace {

using Complex = std::complex<double>;

// Deterministic values in [-1, 1) that are not symmetric (so no bin vanishes by accident).
std::vector<double> wobble(int64_t n, double seed = 0.37) {
  std::vector<double> v;
  for (int64_t i = 0; i < n; ++i)
    v.push_back(std::fmod(std::sin(seed * static_cast<double>(i * i + 3 * i + 1)) * 7.0, 1.0));
  return v;
}

// The DFT by its definition over `axis` of a [..., comps] signal; output [..., bins, 2].
std::vector<double> naiveDft(const std::vector<double>& x, const std::vector<int64_t>& shape,
                             size_t axis, int64_t length, bool inverse, bool onesided) {
  const int64_t comps = shape.back(), n = shape[axis];
  const int64_t bins = onesided ? length / 2 + 1 : length;
  int64_t outer = 1, inner = 1;
  for (size_t a = 0; a < axis; ++a) outer *= shape[a];
  for (size_t a = axis + 1; a + 1 < shape.size(); ++a) inner *= shape[a];
  std::vector<double> y(static_cast<size_t>(outer * bins * inner * 2));
  const double sign = inverse ? 1 : -1;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i)
      for (int64_t k = 0; k < bins; ++k) {
        Complex acc = 0;
        for (int64_t j = 0; j < std::min(n, length); ++j) {
          const int64_t at = ((o * n + j) * inner + i) * comps;
          const Complex v(x[static_cast<size_t>(at)],
                          comps == 2 ? x[static_cast<size_t>(at + 1)] : 0);
          acc += v * std::polar(1.0, sign * 2 * std::numbers::pi * static_cast<double>(j * k) /
                                         static_cast<double>(length));
        }
        if (inverse) acc /= static_cast<double>(length);
        const auto out = static_cast<size_t>(((o * bins + k) * inner + i) * 2);
        y[out] = acc.real();
        y[out + 1] = acc.imag();
      }
  return y;
}

struct DftCase {
  std::vector<int64_t> shape;
  int64_t axis = 1;
  int64_t length = 0;  // 0: no dft_length input
  bool inverse = false;
  bool onesided = false;
};

NDArray runDft(const DftCase& c, const std::vector<double>& x) {
  OnnxGraph g(17);
  g.input("x", c.shape);
  std::vector<std::string> inputs = {"x"};
  if (c.length) {
    g.initializer("len", i64({}, {static_cast<double>(c.length)}));
    inputs.push_back("len");
  }
  g.node("DFT", inputs, {"y"}).i("axis", c.axis).i("inverse", c.inverse).i("onesided", c.onesided);
  g.output("y");
  return runOnnx1(g, {f32(c.shape, x)});
}

void expectDft(const DftCase& c) {
  int64_t numel = 1;
  for (int64_t e : c.shape) numel *= e;
  const std::vector<double> x = wobble(numel);
  const auto rank = static_cast<int64_t>(c.shape.size());
  const auto axis = static_cast<size_t>(c.axis < 0 ? c.axis + rank : c.axis);
  const int64_t length = c.length ? c.length : c.shape[axis];
  std::vector<int64_t> outShape = c.shape;
  outShape[axis] = c.onesided ? length / 2 + 1 : length;
  outShape.back() = 2;
  const NDArray want = f32(outShape, naiveDft(x, c.shape, axis, length, c.inverse, c.onesided));
  EXPECT_TRUE(allClose(runDft(c, x), want, 1e-4, 1e-5))
      << "axis " << c.axis << " length " << c.length << " inverse " << c.inverse << " onesided "
      << c.onesided;
}

TEST(OnnxSignal, DftMatchesDefinition) {
  expectDft({.shape = {2, 6, 2}});                                   // complex
  expectDft({.shape = {2, 7, 1}});                                   // real, odd length
  expectDft({.shape = {1, 8, 1}, .onesided = true});                 // real, first n/2 + 1 bins
  expectDft({.shape = {1, 7, 1}, .onesided = true});                 // odd onesided
  expectDft({.shape = {2, 5, 2}, .length = 8});                      // zero padding
  expectDft({.shape = {2, 8, 1}, .length = 5});                      // truncation
  expectDft({.shape = {1, 9, 1}, .length = 6, .onesided = true});    // truncation, onesided
  expectDft({.shape = {2, 3, 4, 2}, .axis = 2});                     // the last signal axis
  expectDft({.shape = {2, 3, 4, 1}, .axis = -2, .onesided = true});  // negative axis
  expectDft({.shape = {3, 4, 2}, .axis = 0, .inverse = true});       // across the batch axis
  expectDft({.shape = {2, 6, 2}, .inverse = true});
}

// A forward DFT followed by an inverse one returns the signal.
TEST(OnnxSignal, DftInverseRoundTrip) {
  const std::vector<int64_t> shape = {3, 10, 2};
  OnnxGraph g(17);
  g.input("x", shape);
  g.node("DFT", {"x"}, {"f"});
  g.node("DFT", {"f"}, {"y"}).i("inverse", 1);
  g.output("y");
  const NDArray x = f32(shape, wobble(60));
  EXPECT_TRUE(allClose(runOnnx1(g, {x}), x, 1e-4, 1e-5));
}

// STFT frames: start f * step, multiplied by the window, transformed; a run-time window and a
// complex signal without one.
TEST(OnnxSignal, StftMatchesDefinition) {
  const int64_t length = 23, step = 3, frame = 6, frames = (length - frame) / step + 1;
  for (int64_t comps : {1, 2}) {
    const bool windowed = comps == 1;
    const std::vector<double> x = wobble(2 * length * comps);
    std::vector<double> window;
    for (int64_t t = 0; t < frame; ++t) window.push_back(0.5 + 0.1 * static_cast<double>(t));
    OnnxGraph g(17);
    g.input("x", {2, length, comps});
    g.initializer("step", i64({}, {step}));
    if (windowed) {
      g.input("w", {frame});
      g.node("STFT", {"x", "step", "w"}, {"y"});
    } else {
      g.initializer("len", i64({}, {frame}));
      g.node("STFT", {"x", "step", "", "len"}, {"y"}).i("onesided", 0);
    }
    g.output("y");
    const NDArray got = windowed ? runOnnx1(g, {f32({2, length, comps}, x), f32({frame}, window)})
                                 : runOnnx1(g, {f32({2, length, comps}, x)});
    // The frames laid out as [batch * frames, frame, comps], then transformed by definition.
    std::vector<double> framed;
    for (int64_t b = 0; b < 2; ++b)
      for (int64_t f = 0; f < frames; ++f)
        for (int64_t t = 0; t < frame; ++t)
          for (int64_t c = 0; c < comps; ++c)
            framed.push_back(x[static_cast<size_t>(((b * length) + f * step + t) * comps + c)] *
                             (windowed ? window[static_cast<size_t>(t)] : 1.0));
    const int64_t bins = windowed ? frame / 2 + 1 : frame;
    const std::vector<double> want =
        naiveDft(framed, {2 * frames, frame, comps}, 1, frame, false, windowed);
    EXPECT_TRUE(allClose(got, f32({2, frames, bins, 2}, want), 1e-4, 1e-5)) << "comps " << comps;
  }
}

// A smaller filter bank than the conformance test's, in float64: each filter is a triangle peaking
// at 1, and the shape is [dft_length / 2 + 1, num_mel_bins].
TEST(OnnxSignal, MelWeightMatrixShapeAndTriangles) {
  OnnxGraph g(17);
  g.initializer("mels", i64({}, {4}));
  g.initializer("dft", i64({}, {32}));
  g.initializer("rate", i64({}, {16000}));
  g.initializer("lo", f32({}, {100}));
  g.initializer("hi", f32({}, {8000}));
  g.node("MelWeightMatrix", {"mels", "dft", "rate", "lo", "hi"}, {"y"})
      .i("output_datatype", ::onnx::TensorProto::DOUBLE);
  g.output("y");
  const NDArray y = runOnnx1(g, {});
  ASSERT_EQ(y.shape(), (std::vector<int64_t>{17, 4}));
  EXPECT_EQ(y.dtype(), DataType::float64());
  const std::vector<double> v = valuesOf(y);
  for (int64_t i = 0; i < 4; ++i) {
    double peak = 0;
    for (int64_t j = 0; j < 17; ++j) peak = std::max(peak, v[static_cast<size_t>(j * 4 + i)]);
    EXPECT_EQ(peak, 1.0) << "filter " << i;
  }
}

// The determinant by Gaussian elimination with partial pivoting in double.
double naiveDet(std::vector<double> a, int64_t m) {
  double det = 1;
  for (int64_t k = 0; k < m; ++k) {
    int64_t p = k;
    for (int64_t i = k + 1; i < m; ++i)
      if (std::abs(a[i * m + k]) > std::abs(a[p * m + k])) p = i;
    if (a[p * m + k] == 0) return 0;
    if (p != k) {
      for (int64_t j = 0; j < m; ++j) std::swap(a[k * m + j], a[p * m + j]);
      det = -det;
    }
    det *= a[k * m + k];
    for (int64_t i = k + 1; i < m; ++i) {
      const double f = a[i * m + k] / a[k * m + k];
      for (int64_t j = k; j < m; ++j) a[i * m + j] -= f * a[k * m + j];
    }
  }
  return det;
}

NDArray runDet(const std::vector<int64_t>& shape, const std::vector<double>& values) {
  OnnxGraph g(13);
  g.input("x", shape);
  g.node("Det", {"x"}, {"y"});
  g.output("y");
  return runOnnx1(g, {f32(shape, values)});
}

TEST(OnnxSignal, DetSingularAndPivoting) {
  // Singular: a repeated row, a zero column, all zeros, rank 1 — exactly 0, never NaN.
  for (const std::vector<double>& m :
       std::vector<std::vector<double>>{{1, 2, 3, 1, 2, 3, 4, 5, 6},
                                        {0, 1, 2, 0, 3, 4, 0, 5, 6},
                                        {0, 0, 0, 0, 0, 0, 0, 0, 0},
                                        {1, 2, 4, 2, 4, 8, 3, 6, 12}}) {
    const NDArray got = runDet({3, 3}, m);
    EXPECT_EQ(valuesOf(got), std::vector<double>{0.0});
    EXPECT_TRUE(got.shape().empty());
  }
  // Zero leading pivots: the permutation matrices' signs, and a matrix needing a swap per step.
  EXPECT_EQ(valuesOf(runDet({2, 2}, {0, 1, 1, 0})), std::vector<double>{-1.0});
  EXPECT_EQ(valuesOf(runDet({3, 3}, {0, 1, 0, 0, 0, 1, 1, 0, 0})), std::vector<double>{1.0});
  const std::vector<double> swaps = {0, 2, 1, 0, 0, 3, 4, 1, 1};
  EXPECT_TRUE(allClose(runDet({3, 3}, swaps), f32({}, {naiveDet(swaps, 3)})));
}

// A batch of [2, 3] matrices of order 5 against the double-precision elimination.
TEST(OnnxSignal, DetBatched) {
  const std::vector<double> x = wobble(2 * 3 * 25, 0.91);
  std::vector<double> want;
  for (size_t b = 0; b < 6; ++b)
    want.push_back(naiveDet({x.begin() + static_cast<std::ptrdiff_t>(b * 25),
                             x.begin() + static_cast<std::ptrdiff_t>(b * 25 + 25)},
                            5));
  EXPECT_TRUE(allClose(runDet({2, 3, 5, 5}, x), f32({2, 3}, want), 1e-4, 1e-5));
  EXPECT_TRUE(allClose(runDet({1, 1}, {-2.5}), f32({}, {-2.5})));
}

TEST(OnnxSignal, Errors) {
  auto importError = [](const std::string& op, const std::vector<int64_t>& shape,
                        const std::vector<std::pair<std::string, int64_t>>& attrs) {
    OnnxGraph g(17);
    g.input("x", shape);
    OnnxNode node = g.node(op, {"x"}, {"y"});
    for (const auto& [name, value] : attrs) node.i(name, value);
    g.output("y");
    return diagnosticOf([&] { frontend::onnx::importOnnxBytes(g.bytes(), {}); });
  };
  const Diagnostic big = importError("Det", {65, 65}, {});
  EXPECT_EQ(big.code, "onnx_unsupported_size");
  EXPECT_NE(big.message.find("order 65 exceed the supported 64"), std::string::npos) << big.message;
  EXPECT_EQ(importError("Det", {2, 3}, {}).code, "onnx_shape");
  const Diagnostic onesided = importError("DFT", {1, 8, 2}, {{"onesided", 1}});
  EXPECT_EQ(onesided.code, "onnx_attr");
  EXPECT_NE(onesided.message.find("real signal"), std::string::npos) << onesided.message;
  EXPECT_EQ(importError("DFT", {1, 8, 3}, {}).code, "onnx_shape");
  EXPECT_EQ(importError("DFT", {1, 8, 1}, {{"axis", 2}}).code, "onnx_attr");
  // STFT needs a window or a frame_length.
  OnnxGraph g(17);
  g.input("x", {1, 16, 1});
  g.initializer("step", i64({}, {4}));
  g.node("STFT", {"x", "step"}, {"y"});
  g.output("y");
  const Diagnostic stft = diagnosticOf([&] { frontend::onnx::importOnnxBytes(g.bytes(), {}); });
  EXPECT_NE(stft.message.find("window or a frame_length"), std::string::npos) << stft.message;
}

}  // namespace
}  // namespace tessera::test
