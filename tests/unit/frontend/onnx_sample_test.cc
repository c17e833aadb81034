// ONNX importer, sampling and local-window operators (GridSample, RoiAlign, LRN,
// MeanVarianceNormalization, MaxPool's Indices, MaxUnpool): the imported graph under the
// reference interpreter against naive loops written here from the ONNX definitions, and the
// diagnostics for what the import cannot do.
#include <algorithm>
#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "onnx_test_util.h"

namespace tessera::test {
namespace {

// Element (n, c, h, w) of an NCHW tensor held as doubles.
struct Image {
  std::vector<double> v;
  int64_t n, c, h, w;
  double at(int64_t in, int64_t ic, int64_t ih, int64_t iw) const {
    return v[((in * c + ic) * h + ih) * w + iw];
  }
};

Image imageOf(const NDArray& a) {
  const std::vector<int64_t>& s = a.shape();
  return {valuesOf(a), s[0], s[1], s[2], s[3]};
}

// --- GridSample ------------------------------------------------------------------------------

// Mirror reflection into [lo, hi], one bounce at a time (the ONNX reference folds the distance
// arithmetically; this loop is the definition).
double bounce(double x, double lo, double hi) {
  if (hi <= lo) return lo;
  while (x < lo || x > hi) x = x < lo ? 2 * lo - x : 2 * hi - x;
  return x;
}

struct GridCase {
  std::string mode, padding;
  bool alignCorners;
};

double gridPixel(const Image& img, int64_t n, int64_t c, int64_t r, int64_t col, const GridCase& k,
                 double lo[2], double hi[2]) {
  if (k.padding == "zeros") {
    if (r < 0 || r >= img.h || col < 0 || col >= img.w) return 0;
  } else if (k.padding == "border") {
    r = std::clamp<int64_t>(r, 0, img.h - 1);
    col = std::clamp<int64_t>(col, 0, img.w - 1);
  } else {
    col = static_cast<int64_t>(bounce(static_cast<double>(col), lo[0], hi[0]));
    r = static_cast<int64_t>(bounce(static_cast<double>(r), lo[1], hi[1]));
  }
  return img.at(n, c, r, col);
}

// Keys' cubic weights of the four neighbours at fractional offset t (A = -0.75).
std::vector<double> cubicWeights(double t) {
  auto k = [](double s) {
    const double a = -0.75;
    s = std::abs(s);
    if (s <= 1) return (a + 2) * s * s * s - (a + 3) * s * s + 1;
    if (s < 2) return a * s * s * s - 5 * a * s * s + 8 * a * s - 4 * a;
    return 0.0;
  };
  return {k(t + 1), k(t), k(1 - t), k(2 - t)};
}

NDArray gridSampleReference(const NDArray& x, const NDArray& grid, const GridCase& k) {
  const Image img = imageOf(x);
  const std::vector<double> g = valuesOf(grid);
  const int64_t outH = grid.shape()[1], outW = grid.shape()[2];
  double lo[2], hi[2];  // x (width) then y (height) borders
  const double extent[2] = {static_cast<double>(img.w), static_cast<double>(img.h)};
  for (int a = 0; a < 2; ++a) {
    lo[a] = k.alignCorners ? 0 : -0.5;
    hi[a] = k.alignCorners ? extent[a] - 1 : extent[a] - 0.5;
  }
  std::vector<double> out;
  for (int64_t n = 0; n < img.n; ++n)
    for (int64_t c = 0; c < img.c; ++c)
      for (int64_t i = 0; i < outH; ++i)
        for (int64_t j = 0; j < outW; ++j) {
          double p[2];
          for (int a = 0; a < 2; ++a) {
            const double v = g[((n * outH + i) * outW + j) * 2 + a];
            p[a] = k.alignCorners ? (v + 1) / 2 * (extent[a] - 1) : ((v + 1) * extent[a] - 1) / 2;
            if (k.mode == "nearest") p[a] = std::nearbyint(p[a]);  // ties to even
            if (p[a] >= lo[a] && p[a] <= hi[a]) continue;
            if (k.padding == "border") p[a] = std::clamp(p[a], 0.0, extent[a] - 1);
            if (k.padding == "reflection") p[a] = bounce(p[a], lo[a], hi[a]);
          }
          auto px = [&](int64_t r, int64_t col) { return gridPixel(img, n, c, r, col, k, lo, hi); };
          if (k.mode == "nearest") {
            out.push_back(px(static_cast<int64_t>(std::nearbyint(p[1])),
                             static_cast<int64_t>(std::nearbyint(p[0]))));
            continue;
          }
          const auto x0 = static_cast<int64_t>(std::floor(p[0]));
          const auto y0 = static_cast<int64_t>(std::floor(p[1]));
          const double tx = p[0] - std::floor(p[0]), ty = p[1] - std::floor(p[1]);
          if (k.mode == "bilinear") {
            out.push_back((1 - ty) * ((1 - tx) * px(y0, x0) + tx * px(y0, x0 + 1)) +
                          ty * ((1 - tx) * px(y0 + 1, x0) + tx * px(y0 + 1, x0 + 1)));
            continue;
          }
          const std::vector<double> wx = cubicWeights(tx), wy = cubicWeights(ty);
          double sum = 0;
          for (int64_t r = 0; r < 4; ++r)
            for (int64_t col = 0; col < 4; ++col)
              sum += wy[r] * wx[col] * px(y0 - 1 + r, x0 - 1 + col);
          out.push_back(sum);
        }
  return f32({img.n, img.c, outH, outW}, out);
}

TEST(OnnxSample, GridSampleEveryModePaddingAndAlignment) {
  // H != W so that swapped axes show; grid values reach past [-1, 1] so padding matters.
  const NDArray x = randomTensor({2, 2, 4, 5}, DataType::float32(), 11);
  const NDArray grid = randomTensor({2, 3, 4, 2}, DataType::float32(), 12, -1.7, 1.7);
  for (const char* mode : {"bilinear", "nearest", "bicubic"})
    for (const char* padding : {"zeros", "border", "reflection"})
      for (bool align : {false, true}) {
        const GridCase k{mode, padding, align};
        SCOPED_TRACE(k.mode + " " + k.padding + (align ? " align_corners" : ""));
        OnnxGraph g(16);
        g.input("X", {2, 2, 4, 5}).input("Grid", {2, 3, 4, 2});
        g.node("GridSample", {"X", "Grid"}, {"Y"})
            .s("mode", mode)
            .s("padding_mode", padding)
            .i("align_corners", align ? 1 : 0);
        g.output("Y");
        EXPECT_TRUE(allClose(runOnnx1(g, {x, grid}), gridSampleReference(x, grid, k), 1e-4, 1e-5));
      }
}

TEST(OnnxSample, GridSampleNearestRoundsHalfToEven) {
  // W = 4 without align_corners: x = ((g + 1) * 4 - 1) / 2, so g = -0.25 is 1.0, g = 0 is 1.5
  // (to 2), g = 0.5 is 2.5 (to 2), g = -0.5 is 0.5 (to 0).
  OnnxGraph g(16);
  g.input("X", {1, 1, 1, 4}).input("Grid", {1, 1, 4, 2});
  g.node("GridSample", {"X", "Grid"}, {"Y"}).s("mode", "nearest");
  g.output("Y");
  const NDArray grid = f32({1, 1, 4, 2}, {-0.25, 0, 0, 0, 0.5, 0, -0.5, 0});
  EXPECT_TRUE(allClose(runOnnx1(g, {f32({1, 1, 1, 4}, {10, 11, 12, 13}), grid}),
                       f32({1, 1, 1, 4}, {11, 12, 12, 10})));
}

// --- RoiAlign --------------------------------------------------------------------------------

struct RoiCase {
  std::string mode;
  bool halfPixel;
  int64_t ratio;
};

// ONNX Runtime's RoiAlign, sample by sample.
NDArray roiAlignReference(const NDArray& x, const std::vector<double>& rois,
                          const std::vector<int64_t>& batch, const RoiCase& k, int64_t outH,
                          int64_t outW, double scale) {
  const Image img = imageOf(x);
  const auto boxes = static_cast<int64_t>(batch.size());
  const double off = k.halfPixel ? 0.5 : 0;
  std::vector<double> out;
  for (int64_t r = 0; r < boxes; ++r) {
    const double* b = &rois[r * 4];
    const double x0 = b[0] * scale - off, y0 = b[1] * scale - off;
    double rw = b[2] * scale - off - x0, rh = b[3] * scale - off - y0;
    if (!k.halfPixel) rw = std::max(rw, 1.0), rh = std::max(rh, 1.0);
    const double binH = rh / static_cast<double>(outH), binW = rw / static_cast<double>(outW);
    const int64_t gh = k.ratio > 0 ? k.ratio : static_cast<int64_t>(std::ceil(binH));
    const int64_t gw = k.ratio > 0 ? k.ratio : static_cast<int64_t>(std::ceil(binW));
    for (int64_t c = 0; c < img.c; ++c)
      for (int64_t ph = 0; ph < outH; ++ph)
        for (int64_t pw = 0; pw < outW; ++pw) {
          double sum = 0, best = 0;
          bool first = true;
          for (int64_t iy = 0; iy < gh; ++iy)
            for (int64_t ix = 0; ix < gw; ++ix) {
              double y = y0 + ph * binH + (iy + 0.5) * binH / gh;
              double xx = x0 + pw * binW + (ix + 0.5) * binW / gw;
              double terms[4] = {0, 0, 0, 0};
              if (!(y < -1 || y > img.h || xx < -1 || xx > img.w)) {
                y = std::max(y, 0.0), xx = std::max(xx, 0.0);
                auto yl = static_cast<int64_t>(y), xl = static_cast<int64_t>(xx);
                int64_t yh = yl + 1, xh = xl + 1;
                if (yl >= img.h - 1) yl = yh = img.h - 1, y = static_cast<double>(yl);
                if (xl >= img.w - 1) xl = xh = img.w - 1, xx = static_cast<double>(xl);
                const double ly = y - yl, lx = xx - xl;
                terms[0] = (1 - ly) * (1 - lx) * img.at(batch[r], c, yl, xl);
                terms[1] = (1 - ly) * lx * img.at(batch[r], c, yl, xh);
                terms[2] = ly * (1 - lx) * img.at(batch[r], c, yh, xl);
                terms[3] = ly * lx * img.at(batch[r], c, yh, xh);
              }
              sum += terms[0] + terms[1] + terms[2] + terms[3];
              const double m = *std::max_element(terms, terms + 4);
              best = first ? m : std::max(best, m);
              first = false;
            }
          out.push_back(k.mode == "max" ? best
                                        : sum / static_cast<double>(std::max<int64_t>(gh * gw, 1)));
        }
  }
  return f32({boxes, img.c, outH, outW}, out);
}

// Boxes (x1, y1, x2, y2): one inside, one crossing the bottom-right edge, one smaller than a
// pixel, one of a different size, one of zero height, over two images.
const std::vector<double> kRois = {0.5,  1,   4, 5, 3,   2.5, 9, 8, -1, 0.2,
                                   -0.4, 0.6, 1, 0, 6.5, 3,   2, 3, 5,  3};
const std::vector<int64_t> kBatch = {0, 1, 1, 0, 1};

OnnxGraph roiGraph(const RoiCase& k, bool roisKnown) {
  OnnxGraph g(16);
  g.input("X", {2, 3, 6, 7});
  if (roisKnown)
    g.initializer("rois", f32({5, 4}, kRois));
  else
    g.input("rois", {5, 4});
  g.input("batch_indices", {5}, ::onnx::TensorProto::INT64);
  g.node("RoiAlign", {"X", "rois", "batch_indices"}, {"Y"})
      .s("mode", k.mode)
      .s("coordinate_transformation_mode", k.halfPixel ? "half_pixel" : "output_half_pixel")
      .i("output_height", 3)
      .i("output_width", 2)
      .i("sampling_ratio", k.ratio)
      .f("spatial_scale", 0.75F);
  g.output("Y");
  return g;
}

TEST(OnnxSample, RoiAlignModesAndTransformsMatchOnnxRuntimeLoop) {
  const NDArray x = randomTensor({2, 3, 6, 7}, DataType::float32(), 21);
  std::vector<double> batch(kBatch.begin(), kBatch.end());
  for (const char* mode : {"avg", "max"})
    for (bool half : {true, false}) {
      const RoiCase k{mode, half, 2};
      SCOPED_TRACE(k.mode + (half ? " half_pixel" : " output_half_pixel"));
      const NDArray got = runOnnx1(roiGraph(k, false), {x, f32({5, 4}, kRois), i64({5}, batch)});
      EXPECT_TRUE(allClose(got, roiAlignReference(x, kRois, kBatch, k, 3, 2, 0.75), 1e-4, 1e-5));
    }
}

TEST(OnnxSample, RoiAlignAdaptiveSamplingWithKnownRois) {
  // sampling_ratio 0: each box takes ceil(bin extent) samples per bin and axis, so the boxes
  // here take from 0 (the empty box: 0 in both modes) to 3.
  const NDArray x = randomTensor({2, 3, 6, 7}, DataType::float32(), 22, -2, -1);  // all negative
  std::vector<double> batch(kBatch.begin(), kBatch.end());
  for (const char* mode : {"avg", "max"}) {
    const RoiCase k{mode, true, 0};
    SCOPED_TRACE(k.mode);
    const NDArray got = runOnnx1(roiGraph(k, true), {x, i64({5}, batch)});
    EXPECT_TRUE(allClose(got, roiAlignReference(x, kRois, kBatch, k, 3, 2, 0.75), 1e-4, 1e-5));
  }
}

// --- LRN and MeanVarianceNormalization -------------------------------------------------------

TEST(OnnxSample, LrnSumsSquaresOverTheChannelWindow) {
  const NDArray x = randomTensor({2, 5, 3, 2}, DataType::float32(), 31, -2, 2);
  const std::vector<double> v = valuesOf(x);
  for (int64_t size : {3, 4}) {  // odd and even windows (the even one reaches further up)
    SCOPED_TRACE(size);
    const double alpha = 0.3, beta = 0.6, bias = 1.5;
    OnnxGraph g(13);
    g.input("x", {2, 5, 3, 2});
    g.node("LRN", {"x"}, {"y"}).i("size", size).f("alpha", 0.3F).f("beta", 0.6F).f("bias", 1.5F);
    g.output("y");
    std::vector<double> want;
    for (int64_t n = 0; n < 2; ++n)
      for (int64_t c = 0; c < 5; ++c)
        for (int64_t p = 0; p < 6; ++p) {
          double sum = 0;
          for (int64_t d = c - (size - 1) / 2; d <= c + size / 2; ++d)
            if (d >= 0 && d < 5) sum += v[(n * 5 + d) * 6 + p] * v[(n * 5 + d) * 6 + p];
          want.push_back(v[(n * 5 + c) * 6 + p] /
                         std::pow(bias + alpha / static_cast<double>(size) * sum, beta));
        }
    EXPECT_TRUE(allClose(runOnnx1(g, {x}), f32({2, 5, 3, 2}, want), 1e-4, 1e-6));
  }
}

TEST(OnnxSample, MeanVarianceNormalizationDefaultAndGivenAxes) {
  const NDArray x = randomTensor({2, 3, 2, 2}, DataType::float32(), 41, -3, 3);
  const std::vector<double> v = valuesOf(x);
  OnnxGraph g(13);
  g.input("x", {2, 3, 2, 2});
  g.node("MeanVarianceNormalization", {"x"}, {"a"});
  g.node("MeanVarianceNormalization", {"x"}, {"b"}).ints("axes", {2, 3});
  g.output("a").output("b");
  // Group the elements by the axes kept (the channel; the (n, c) plane), then normalise.
  auto normalise = [&](auto group) {
    std::vector<double> sum(6, 0), sq(6, 0), count(6, 0), out;
    for (size_t i = 0; i < v.size(); ++i) {
      sum[group(i)] += v[i], sq[group(i)] += v[i] * v[i], count[group(i)] += 1;
    }
    for (size_t i = 0; i < v.size(); ++i) {
      const double mean = sum[group(i)] / count[group(i)];
      const double var = sq[group(i)] / count[group(i)] - mean * mean;
      out.push_back((v[i] - mean) / (std::sqrt(var) + 1e-9));
    }
    return f32({2, 3, 2, 2}, out);
  };
  relay::Value y = runOnnx(g, {x});
  ASSERT_TRUE(y.isTuple());
  EXPECT_TRUE(allClose(y.fields()[0].tensor(), normalise([](size_t i) { return (i / 4) % 3; }),
                       1e-4, 1e-5));
  EXPECT_TRUE(
      allClose(y.fields()[1].tensor(), normalise([](size_t i) { return i / 4; }), 1e-4, 1e-5));
}

// --- MaxPool's Indices and MaxUnpool ---------------------------------------------------------

struct PoolCase {
  std::vector<int64_t> kernel, strides, pads, dilations;
  int64_t storageOrder;
  bool ceil;
};

// The maximum of each window and the flat index of its first occurrence in row-major scan order.
std::pair<NDArray, NDArray> maxPoolReference(const NDArray& x, const PoolCase& k, int64_t outH,
                                             int64_t outW) {
  const Image img = imageOf(x);
  std::vector<double> values, indices;
  for (int64_t n = 0; n < img.n; ++n)
    for (int64_t c = 0; c < img.c; ++c)
      for (int64_t oh = 0; oh < outH; ++oh)
        for (int64_t ow = 0; ow < outW; ++ow) {
          double best = -std::numeric_limits<double>::infinity();
          int64_t at = -1;
          for (int64_t i = 0; i < k.kernel[0]; ++i)
            for (int64_t j = 0; j < k.kernel[1]; ++j) {
              const int64_t h = oh * k.strides[0] - k.pads[0] + i * k.dilations[0];
              const int64_t w = ow * k.strides[1] - k.pads[1] + j * k.dilations[1];
              if (h < 0 || h >= img.h || w < 0 || w >= img.w || !(img.at(n, c, h, w) > best))
                continue;
              best = img.at(n, c, h, w);
              at = (n * img.c + c) * img.h * img.w +
                   (k.storageOrder ? h + w * img.h : h * img.w + w);
            }
          values.push_back(best);
          indices.push_back(static_cast<double>(at));
        }
  return {f32({img.n, img.c, outH, outW}, values), i64({img.n, img.c, outH, outW}, indices)};
}

TEST(OnnxSample, MaxPoolIndicesTakeTheFirstMaximumOnTies) {
  // Values in {0, 1, 2}: most windows hold their maximum more than once.
  std::vector<double> v;
  for (int i = 0; i < 2 * 2 * 5 * 6; ++i) v.push_back((i * 7 % 11) % 3);
  const NDArray x = f32({2, 2, 5, 6}, v);
  const PoolCase cases[] = {
      {{2, 2}, {2, 2}, {0, 0, 0, 0}, {1, 1}, 0, false},
      {{3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}, 1, false},
      {{2, 3}, {2, 2}, {1, 0, 0, 1}, {2, 1}, 0, true},
  };
  for (const PoolCase& k : cases) {
    SCOPED_TRACE(::testing::Message() << "kernel " << k.kernel[0] << "x" << k.kernel[1]);
    OnnxGraph g(12);
    g.input("x", {2, 2, 5, 6});
    g.node("MaxPool", {"x"}, {"y", "i"})
        .ints("kernel_shape", k.kernel)
        .ints("strides", k.strides)
        .ints("pads", k.pads)
        .ints("dilations", k.dilations)
        .i("storage_order", k.storageOrder)
        .i("ceil_mode", k.ceil ? 1 : 0);
    g.output("y").output("i");
    relay::Value got = runOnnx(g, {x});
    ASSERT_TRUE(got.isTuple());
    const std::vector<int64_t> shape = got.fields()[0].tensor().shape();
    auto [values, indices] = maxPoolReference(x, k, shape[2], shape[3]);
    EXPECT_TRUE(allClose(got.fields()[0].tensor(), values));
    EXPECT_TRUE(allClose(got.fields()[1].tensor(), indices, 0, 0));
  }
}

TEST(OnnxSample, MaxPool1dIndices) {
  OnnxGraph g(12);
  g.input("x", {1, 2, 5});
  g.node("MaxPool", {"x"}, {"y", "i"}).ints("kernel_shape", {2}).ints("strides", {2});
  g.output("y").output("i");
  relay::Value got = runOnnx(g, {f32({1, 2, 5}, {3, 3, 1, 4, 0, 2, 5, 5, 5, 1})});
  ASSERT_TRUE(got.isTuple());
  EXPECT_TRUE(allClose(got.fields()[0].tensor(), f32({1, 2, 2}, {3, 4, 5, 5})));
  EXPECT_TRUE(allClose(got.fields()[1].tensor(), i64({1, 2, 2}, {0, 3, 6, 7}), 0, 0));
}

TEST(OnnxSample, MaxUnpoolInvertsMaxPoolAndPadsToOutputShape) {
  const NDArray x = randomTensor({1, 2, 4, 6}, DataType::float32(), 51);
  OnnxGraph g(12);
  g.input("x", {1, 2, 4, 6}).initializer("shape", i64({4}, {1, 2, 5, 7}));
  g.node("MaxPool", {"x"}, {"y", "i"}).ints("kernel_shape", {2, 2}).ints("strides", {2, 2});
  g.node("MaxUnpool", {"y", "i"}, {"u"}).ints("kernel_shape", {2, 2}).ints("strides", {2, 2});
  g.node("MaxUnpool", {"y", "i", "shape"}, {"v"})
      .ints("kernel_shape", {2, 2})
      .ints("strides", {2, 2});
  g.output("u").output("v");
  // Each window's maximum stays where it was, everything else becomes 0; output_shape adds zero
  // rows and columns at the end.
  const std::vector<double> v = valuesOf(x);
  std::vector<double> unpooled(v.size(), 0), padded(2 * 5 * 7, 0);
  for (int64_t c = 0; c < 2; ++c)
    for (int64_t oh = 0; oh < 2; ++oh)
      for (int64_t ow = 0; ow < 3; ++ow) {
        int64_t best = -1;
        for (int64_t h = 2 * oh; h < 2 * oh + 2; ++h)
          for (int64_t w = 2 * ow; w < 2 * ow + 2; ++w) {
            const int64_t at = (c * 4 + h) * 6 + w;
            if (best < 0 || v[at] > v[best]) best = at;
          }
        unpooled[best] = v[best];
        padded[(c * 5 + (best / 6) % 4) * 7 + best % 6] = v[best];
      }
  relay::Value got = runOnnx(g, {x});
  ASSERT_TRUE(got.isTuple());
  EXPECT_TRUE(allClose(got.fields()[0].tensor(), f32({1, 2, 4, 6}, unpooled)));
  EXPECT_TRUE(allClose(got.fields()[1].tensor(), f32({1, 2, 5, 7}, padded)));
}

// --- diagnostics ------------------------------------------------------------------------------

Diagnostic importError(const OnnxGraph& g) {
  return diagnosticOf([&] { (void)frontend::onnx::importOnnxBytes(g.bytes()); });
}

TEST(OnnxSample, AdaptiveRoiAlignNeedsKnownRois) {
  const Diagnostic d = importError(roiGraph({"avg", true, 0}, false));
  EXPECT_EQ(d.code, "onnx_dynamic");
  EXPECT_NE(d.message.find("sampling_ratio"), std::string::npos) << d.message;
}

TEST(OnnxSample, MaxUnpoolBeyondTheMaskLimitIsAnError) {
  OnnxGraph g(12);
  g.input("x", {1, 16, 64, 64}).input("i", {1, 16, 64, 64}, ::onnx::TensorProto::INT64);
  g.node("MaxUnpool", {"x", "i"}, {"u"}).ints("kernel_shape", {2, 2}).ints("strides", {2, 2});
  g.output("u");
  EXPECT_EQ(importError(g).code, "onnx_unsupported_size");
}

TEST(OnnxSample, GridSampleRejectsVolumesAndUnknownModes) {
  OnnxGraph volume(16);
  volume.input("X", {1, 1, 2, 2, 2}).input("Grid", {1, 2, 2, 2, 3});
  volume.node("GridSample", {"X", "Grid"}, {"Y"});
  volume.output("Y");
  EXPECT_EQ(importError(volume).code, "onnx_unsupported_rank");
  OnnxGraph cubic(16);
  cubic.input("X", {1, 1, 2, 2}).input("Grid", {1, 2, 2, 2});
  cubic.node("GridSample", {"X", "Grid"}, {"Y"}).s("mode", "cubic");
  cubic.output("Y");
  const Diagnostic d = importError(cubic);
  EXPECT_EQ(d.code, "onnx_unsupported_attr");
  EXPECT_NE(d.message.find("bicubic"), std::string::npos) << d.message;
}

}  // namespace
}  // namespace tessera::test
