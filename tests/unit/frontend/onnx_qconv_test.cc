// ONNX importer, integer convolutions (ConvInteger, QLinearConv): the imported graph under the
// reference interpreter against a naive int32 convolution written here, over every path of the
// lowering (an int8 weight with the data's zero point moved out of the product, the data's zero
// point known or not, centred operands widened to int32 when w - w_zp leaves int8 or w is known
// only at run time), 1-D to 3-D windows; QLinearConv's ties-to-even rounding, saturation and
// per-channel requantization; diagnostics; and, on a host with AVX-512 VNNI, that a compiled
// QLinearConv layer runs on the int8 kernel, bit for bit with the interpreter.
#include <algorithm>
#include <cmath>
#include <optional>

#include <gtest/gtest.h>

#include "../driver/build_test_util.h"
#include "onnx_test_util.h"

namespace tessera::test {
namespace {

int32_t onnxType(DataType t) {
  if (t == DataType::uint8()) return ::onnx::TensorProto::UINT8;
  if (t == DataType::int8()) return ::onnx::TensorProto::INT8;
  if (t == DataType::int32()) return ::onnx::TensorProto::INT32;
  return ::onnx::TensorProto::FLOAT;
}

// A convolution's geometry in ONNX's conventions (pads: all begins, then all ends).
struct Geometry {
  std::vector<int64_t> pads, strides, dilations;  // empty: zeros / ones
  int64_t groups = 1;
};

// (x - zx) conv (w - zw) computed directly, in int64 then wrapped to int32: x (N, C, s...),
// w (M, C / groups, k...), zw one value or one per output channel; up to 3 spatial axes (fewer
// are the trailing ones of a 3-D window with unit extents).
NDArray naiveConv(const NDArray& x, int64_t zx, const NDArray& w, const std::vector<int64_t>& zw,
                  const Geometry& g) {
  const size_t s = x.shape().size() - 2, lead = 3 - s;
  std::vector<int64_t> in(3, 1), k(3, 1), st(3, 1), dl(3, 1), pb(3, 0), pe(3, 0), out(3, 1);
  for (size_t a = 0; a < s; ++a) {
    in[lead + a] = x.shape()[2 + a];
    k[lead + a] = w.shape()[2 + a];
    if (!g.strides.empty()) st[lead + a] = g.strides[a];
    if (!g.dilations.empty()) dl[lead + a] = g.dilations[a];
    if (!g.pads.empty()) pb[lead + a] = g.pads[a], pe[lead + a] = g.pads[s + a];
  }
  std::vector<int64_t> shape = {x.shape()[0], w.shape()[0]};
  for (size_t a = 0; a < 3; ++a) {
    out[a] = (in[a] + pb[a] + pe[a] - (k[a] - 1) * dl[a] - 1) / st[a] + 1;
    if (a >= lead) shape.push_back(out[a]);
  }
  const int64_t n = x.shape()[0], c = x.shape()[1], m = w.shape()[0], cg = w.shape()[1];
  const int64_t mg = m / g.groups;
  NDArray y = NDArray::empty(shape, DataType::int32());
  int64_t flat = 0;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t o = 0; o < m; ++o)
      for (int64_t od = 0; od < out[0]; ++od)
        for (int64_t oh = 0; oh < out[1]; ++oh)
          for (int64_t ow = 0; ow < out[2]; ++ow) {
            int64_t acc = 0;
            for (int64_t ci = 0; ci < cg; ++ci)
              for (int64_t kd = 0; kd < k[0]; ++kd)
                for (int64_t kh = 0; kh < k[1]; ++kh)
                  for (int64_t kw = 0; kw < k[2]; ++kw) {
                    const int64_t id = od * st[0] - pb[0] + kd * dl[0];
                    const int64_t ih = oh * st[1] - pb[1] + kh * dl[1];
                    const int64_t iw = ow * st[2] - pb[2] + kw * dl[2];
                    if (id < 0 || id >= in[0] || ih < 0 || ih >= in[1] || iw < 0 || iw >= in[2])
                      continue;  // padding: zero once centred
                    const int64_t channel = (o / mg) * cg + ci;
                    const int64_t xv =
                        x.getInt((((b * c + channel) * in[0] + id) * in[1] + ih) * in[2] + iw);
                    const int64_t wv =
                        w.getInt((((o * cg + ci) * k[0] + kd) * k[1] + kh) * k[2] + kw);
                    acc += (xv - zx) * (wv - zw[zw.size() == 1 ? 0 : o]);
                  }
            y.setInt(flat++, static_cast<int32_t>(static_cast<uint32_t>(acc)));
          }
  return y;
}

// One ConvInteger case: shapes, dtypes, zero points, geometry, and which inputs are known at
// import (initializers) rather than run-time graph inputs.
struct IntCase {
  std::string name;
  DataType xType;
  std::vector<int64_t> xShape, wShape;
  DataType wType;
  double wLo, wHi;            // the weight's random range
  std::optional<int64_t> zx;  // nullopt: no x_zero_point input
  std::vector<int64_t> zw;    // empty: no w_zero_point input; 1 value or one per channel
  Geometry g;
  std::string autoPad;  // set: the model says auto_pad, the naive conv uses g.pads
  bool weightKnown = true;
  bool zxKnown = true;
};

class OnnxConvInteger : public ::testing::TestWithParam<IntCase> {};

TEST_P(OnnxConvInteger, MatchesNaiveConvolution) {
  const IntCase c = GetParam();
  const bool xSigned = c.xType == DataType::int8();
  const NDArray x = randomTensor(c.xShape, c.xType, 11, xSigned ? -128 : 0, xSigned ? 128 : 256);
  const NDArray w = randomTensor(c.wShape, c.wType, 12, c.wLo, c.wHi);
  OnnxGraph graph(13);
  std::vector<NDArray> inputs = {x};
  graph.input("x", c.xShape, onnxType(c.xType));
  if (c.weightKnown) {
    graph.initializer("w", w);
  } else {
    graph.input("w", c.wShape, onnxType(c.wType));
    inputs.push_back(w);
  }
  std::vector<std::string> names = {"x", "w", "", ""};
  if (c.zx) {
    const NDArray zx = tensorOf({}, c.xType, {static_cast<double>(*c.zx)});
    names[2] = "zx";
    if (c.zxKnown) {
      graph.initializer("zx", zx);
    } else {
      graph.input("zx", {}, onnxType(c.xType));
      inputs.push_back(zx);
    }
  }
  if (!c.zw.empty()) {
    std::vector<double> values(c.zw.begin(), c.zw.end());
    graph.initializer("zw", c.zw.size() == 1
                                ? tensorOf({}, c.wType, values)
                                : tensorOf({static_cast<int64_t>(values.size())}, c.wType, values));
    names[3] = "zw";
  }
  while (!names.empty() && names.back().empty()) names.pop_back();
  OnnxNode node = graph.node("ConvInteger", names, {"y"});
  if (!c.autoPad.empty())
    node.s("auto_pad", c.autoPad);
  else if (!c.g.pads.empty())
    node.ints("pads", c.g.pads);
  if (!c.g.strides.empty()) node.ints("strides", c.g.strides);
  if (!c.g.dilations.empty()) node.ints("dilations", c.g.dilations);
  if (c.g.groups != 1) node.i("group", c.g.groups);
  graph.output("y");
  const std::vector<int64_t> zw = c.zw.empty() ? std::vector<int64_t>{0} : c.zw;
  EXPECT_TRUE(allClose(runOnnx1(graph, inputs), naiveConv(x, c.zx.value_or(0), w, zw, c.g), 0, 0));
}

const DataType kU8 = DataType::uint8(), kI8 = DataType::int8();

INSTANTIATE_TEST_SUITE_P(
    Paths, OnnxConvInteger,
    ::testing::Values(
        // The quantized layer: uint8 data around 128, int8 weight without zero point.
        IntCase{"U8DataPadded",
                kU8,
                {1, 8, 9, 9},
                {16, 8, 3, 3},
                kI8,
                -128,
                128,
                128,
                {},
                {.pads = {1, 1, 1, 1}}},
        // Signed data, per-channel weight zero points that keep w - zw in int8, asymmetric pads.
        IntCase{"I8DataPerChannelZw",
                kI8,
                {2, 5, 8, 7},
                {4, 5, 3, 2},
                kI8,
                -100,
                100,
                -7,
                {3, -20, 0, 17},
                {.pads = {0, 1, 2, 1}, .strides = {2, 1}}},
        // uint8 weight around 128: w - 128 is int8; grouped.
        IntCase{"U8WeightZw128Grouped",
                kU8,
                {1, 4, 6, 6},
                {6, 2, 3, 3},
                kU8,
                0,
                256,
                3,
                {128},
                {.pads = {1, 0, 1, 2}, .groups = 2}},
        // w - zw leaves int8: widened operands.
        IntCase{"U8WeightSmallZwWidened",
                kU8,
                {1, 3, 7, 7},
                {5, 3, 3, 3},
                kU8,
                0,
                256,
                200,
                {5},
                {.pads = {2, 2, 2, 2}, .strides = {2, 2}}},
        // A weight known only at run time, with per-channel zero points, dilated.
        IntCase{"RunTimeWeight",
                kI8,
                {1, 3, 9, 9},
                {3, 3, 2, 2},
                kI8,
                -128,
                128,
                5,
                {1, -2, 3},
                {.pads = {1, 1, 1, 1}, .dilations = {2, 2}},
                "",
                false},
        // Data zero point given at run time: the pad value and the correction are expressions.
        IntCase{"RunTimeDataZeroPoint",
                kU8,
                {1, 4, 5, 5},
                {4, 4, 3, 3},
                kI8,
                -128,
                128,
                77,
                {},
                {.pads = {1, 1, 1, 1}},
                "",
                true,
                false},
        // No zero points at all: the convolution's own padding.
        IntCase{"NoZeroPoints",
                kI8,
                {1, 3, 6, 6},
                {2, 3, 3, 3},
                kI8,
                -128,
                128,
                std::nullopt,
                {},
                {.pads = {1, 1, 1, 1}}},
        IntCase{"AutoPadSameUpper",
                kU8,
                {1, 2, 6, 6},
                {3, 2, 3, 3},
                kI8,
                -128,
                128,
                9,
                {},
                {.pads = {0, 0, 1, 1}, .strides = {2, 2}},
                "SAME_UPPER"},
        IntCase{"OneD",
                kU8,
                {1, 3, 11},
                {4, 3, 3},
                kI8,
                -128,
                128,
                10,
                {},
                {.pads = {2, 1}, .strides = {2}}},
        IntCase{"ThreeD",
                kI8,
                {1, 2, 4, 5, 5},
                {3, 2, 2, 3, 3},
                kI8,
                -90,
                90,
                -3,
                {4, 0, -5},
                {.pads = {1, 1, 0, 0, 1, 1}}}),
    [](const ::testing::TestParamInfo<IntCase>& info) { return info.param.name; });

// QLinearConv of x by a 1x1 weight of 1 under a multiplier of 0.5, 4 and 32: ties go to even
// and results saturate at both ends of the output type.
TEST(OnnxQLinearConv, RoundsHalfToEvenAndSaturates) {
  OnnxGraph g(13);
  g.input("x", {1, 1, 1, 7}, ::onnx::TensorProto::INT8)
      .initializer("xs", f32({}, {0.5}))
      .initializer("zx", tensorOf({}, kI8, {0}))
      .initializer("w", tensorOf({1, 1, 1, 1}, kI8, {1}))
      .initializer("ws", f32({}, {1}))
      .initializer("zw", tensorOf({}, kI8, {0}))
      .initializer("one", f32({}, {1}))
      .initializer("eighth", f32({}, {0.125}))
      .initializer("sixtyfourth", f32({}, {1.0 / 64}))
      .initializer("z10", tensorOf({}, kI8, {10}))
      .initializer("z0", tensorOf({}, kU8, {0}))
      .initializer("zm5", tensorOf({}, kI8, {-5}));
  g.node("QLinearConv", {"x", "xs", "zx", "w", "ws", "zw", "one", "z10"}, {"half"});
  g.node("QLinearConv", {"x", "xs", "zx", "w", "ws", "zw", "eighth", "z0"}, {"four"});
  g.node("QLinearConv", {"x", "xs", "zx", "w", "ws", "zw", "sixtyfourth", "zm5"}, {"big"});
  g.output("half").output("four").output("big");
  const relay::Value v = runOnnx(g, {tensorOf({1, 1, 1, 7}, kI8, {1, 3, 5, -1, -3, 127, -128})});
  ASSERT_TRUE(v.isTuple());
  // 0.5, 1.5, 2.5, -0.5, -1.5, 63.5, -64 -> 0, 2, 2, 0, -2, 64, -64; + 10.
  EXPECT_TRUE(allClose(v.fields()[0].tensor(),
                       tensorOf({1, 1, 1, 7}, kI8, {10, 12, 12, 10, 8, 74, -54}), 0, 0));
  EXPECT_TRUE(allClose(v.fields()[1].tensor(),
                       tensorOf({1, 1, 1, 7}, kU8, {4, 12, 20, 0, 0, 255, 0}), 0, 0));
  EXPECT_TRUE(allClose(v.fields()[2].tensor(),
                       tensorOf({1, 1, 1, 7}, kI8, {27, 91, 127, -37, -101, 127, -128}), 0, 0));
}

// The weight zero point of output channel `o` in qlinearLayer: nonzero, and w - zw stays in int8.
int64_t layerZw(int64_t o) {
  return o % 5 - 2;
}

// A QLinearConv layer over an int8 weight in [-120, 120) with per-channel (or per-tensor) scales
// and zero points and a bias; `scales` gets each channel's x_scale * w_scale / y_scale.
OnnxGraph qlinearLayer(int64_t c, int64_t m, int64_t hw, DataType xType, int64_t zx,
                       bool perChannel, NDArray* wOut, std::vector<float>* scales, NDArray* bias) {
  *wOut = randomTensor({m, c, 3, 3}, kI8, 21, -120, 120);
  *bias = randomTensor({m}, DataType::int32(), 22, -3000, 3000);
  std::vector<double> ws, zw;
  for (int64_t o = 0; o < (perChannel ? m : 1); ++o) {
    ws.push_back(0.002 + 0.0005 * static_cast<double>(o % 7));
    zw.push_back(static_cast<double>(layerZw(o)));
  }
  const float xs = 0.02F, ys = 0.07F;
  scales->clear();
  for (int64_t o = 0; o < m; ++o) {
    const float product = xs * static_cast<float>(ws[perChannel ? o : 0]);
    scales->push_back(product / ys);
  }
  const std::vector<int64_t> wsShape =
      perChannel ? std::vector<int64_t>{m} : std::vector<int64_t>{};
  OnnxGraph g(13);
  g.input("x", {1, c, hw, hw}, onnxType(xType))
      .initializer("xs", f32({}, {xs}))
      .initializer("zx", tensorOf({}, xType, {static_cast<double>(zx)}))
      .initializer("w", *wOut)
      .initializer("ws", f32(wsShape, ws))
      .initializer("zw", tensorOf(wsShape, kI8, zw))
      .initializer("ys", f32({}, {ys}))
      .initializer("zy", tensorOf({}, kU8, {100}))
      .initializer("B", *bias);
  g.node("QLinearConv", {"x", "xs", "zx", "w", "ws", "zw", "ys", "zy", "B"}, {"y"})
      .ints("pads", {1, 1, 1, 1});
  g.output("y");
  return g;
}

// Against saturate(nearbyint(float(acc + B) * multiplier) + y_zp) computed here.
TEST(OnnxQLinearConv, PerChannelRequantizationMatchesFormula) {
  NDArray w, bias;
  std::vector<float> scales;
  const OnnxGraph g = qlinearLayer(8, 20, 6, kU8, 128, true, &w, &scales, &bias);
  const NDArray x = randomTensor({1, 8, 6, 6}, kU8, 23, 0, 256);
  std::vector<int64_t> zw;
  for (int64_t o = 0; o < 20; ++o) zw.push_back(layerZw(o));
  const NDArray acc = naiveConv(x, 128, w, zw, {.pads = {1, 1, 1, 1}});
  NDArray want = NDArray::empty(acc.shape(), kU8);
  const int64_t plane = 36;
  for (int64_t i = 0; i < acc.numel(); ++i) {
    const int64_t o = i / plane;
    const float real = static_cast<float>(acc.getInt(i) + bias.getInt(o)) * scales[o];
    want.setInt(i, static_cast<int64_t>(std::clamp(std::nearbyint(real) + 100.0F, 0.0F, 255.0F)));
  }
  EXPECT_TRUE(allClose(runOnnx1(g, {x}), want, 0, 0));
}

TEST(OnnxQLinearConv, ScalesMustBeKnownAtImport) {
  OnnxGraph g(13);
  g.input("x", {1, 1, 3, 3}, ::onnx::TensorProto::UINT8)
      .input("xs", {})
      .initializer("zx", tensorOf({}, kU8, {0}))
      .initializer("w", tensorOf({1, 1, 1, 1}, kI8, {1}))
      .initializer("ws", f32({}, {1}))
      .initializer("zw", tensorOf({}, kI8, {0}))
      .initializer("ys", f32({}, {1}))
      .initializer("zy", tensorOf({}, kU8, {0}));
  g.node("QLinearConv", {"x", "xs", "zx", "w", "ws", "zw", "ys", "zy"}, {"y"});
  g.output("y");
  Diagnostic d = diagnosticOf([&] { frontend::onnx::importOnnxBytes(g.bytes()); });
  EXPECT_EQ(d.code, "onnx_dynamic");
  EXPECT_NE(d.message.find("x_scale"), std::string::npos) << d.message;

  // A w_scale with neither one value nor one per output channel.
  OnnxGraph h(13);
  h.input("x", {1, 1, 3, 3}, ::onnx::TensorProto::UINT8)
      .initializer("xs", f32({}, {1}))
      .initializer("zx", tensorOf({}, kU8, {0}))
      .initializer("w", tensorOf({2, 1, 1, 1}, kI8, {1, 2}))
      .initializer("ws", f32({3}, {1, 1, 1}))
      .initializer("zw", tensorOf({}, kI8, {0}))
      .initializer("ys", f32({}, {1}))
      .initializer("zy", tensorOf({}, kU8, {0}));
  h.node("QLinearConv", {"x", "xs", "zx", "w", "ws", "zw", "ys", "zy"}, {"y"});
  h.output("y");
  d = diagnosticOf([&] { frontend::onnx::importOnnxBytes(h.bytes()); });
  EXPECT_EQ(d.code, "onnx_input");
  EXPECT_NE(d.message.find("w_scale"), std::string::npos) << d.message;
}

TEST(OnnxConvInteger, RejectsWideOperandsAndBadZeroPoints) {
  OnnxGraph g(13);
  g.input("x", {1, 1, 3, 3}, ::onnx::TensorProto::INT32)
      .initializer("w", tensorOf({1, 1, 1, 1}, kI8, {1}));
  g.node("ConvInteger", {"x", "w"}, {"y"});
  g.output("y");
  EXPECT_EQ(diagnosticOf([&] { frontend::onnx::importOnnxBytes(g.bytes()); }).code, "onnx_input");
  OnnxGraph h(13);
  h.input("x", {1, 1, 3, 3}, ::onnx::TensorProto::UINT8)
      .initializer("w", tensorOf({1, 1, 1, 1}, kI8, {1}))
      .initializer("zx", tensorOf({2}, kU8, {1, 2}));
  h.node("ConvInteger", {"x", "w", "zx"}, {"y"});
  h.output("y");
  const Diagnostic d = diagnosticOf([&] { frontend::onnx::importOnnxBytes(h.bytes()); });
  EXPECT_EQ(d.code, "onnx_input");
  EXPECT_NE(d.message.find("x_zero_point"), std::string::npos) << d.message;
}

// A ResNet-style QLinearConv layer compiled for the host: the same values as the interpreter,
// and on AVX-512 VNNI the convolution on the int8 kernel (uint8 data around 128 or int8 data,
// padding explicit or the kernel's own); on AMX-INT8, the AMX kernel, which this layer's 16 input
// channels fold into (c, ky, kx) channels.
TEST(OnnxQLinearConv, CompiledLayerUsesVnniKernelBitForBit) {
  const target::Target host = codegen::hostTarget();
  const bool vnni = host.hasFeature("avx512vnni") && host.hasFeature("avx512bw");
  const bool amx = host.hasFeature("amx-int8") && host.hasFeature("amx-tile");
  const std::string kernel =
      amx ? "nn.conv2d: conv2d_nchw_int8_amx.x86" : "nn.conv2d: conv2d_nchw_int8_vnni.x86";
  struct Layer {
    DataType xType;
    int64_t zx;
    bool perChannel;
  };
  for (const Layer& l : {Layer{kU8, 128, true}, Layer{kI8, 0, false}, Layer{kI8, -9, true}}) {
    SCOPED_TRACE(l.xType.name() + " data, zero point " + std::to_string(l.zx));
    NDArray w, bias;
    std::vector<float> scales;
    const OnnxGraph g = qlinearLayer(16, 32, 14, l.xType, l.zx, l.perChannel, &w, &scales, &bias);
    const relay::IRModule mod = frontend::onnx::importOnnxBytes(g.bytes());
    EXPECT_TRUE(driver::test::matchesInterpreter(mod, 31));
    if (!vnni) continue;
    const driver::Built built = driver::build(mod, host);
    bool chosen = false;
    for (const driver::KernelStrategy& k : built.strategies)
      for (const std::string& line : driver::explainStrategy(k))
        chosen = chosen || line.find(kernel) != std::string::npos;
    EXPECT_TRUE(chosen) << kernel;
  }
  if (!vnni) GTEST_SKIP() << "the host has no AVX-512 VNNI: generic int8 kernels only";
}

}  // namespace
}  // namespace tessera::test
