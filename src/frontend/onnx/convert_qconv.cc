// ONNX's integer convolutions, ConvInteger and QLinearConv (ONNX 1.12 semantics): (x - x_zp)
// convolved by (w - w_zp) in int32, the padding counting as zero after the zero point is
// subtracted; QLinearConv adds its int32 bias and requantizes. 1-D, 2-D and 3-D windows with the
// attributes of Conv (convert_nn.cc).
//
// The lowering is chosen so that a quantized layer runs on the int8 kernels (conv2d of raw int8 or
// uint8 data by a constant int8 weight, docs/design/x86-schedules.md): when the weight and its
// zero point are known at import, w' = w - w_zp is computed here, and when every w' fits in int8
// the data's zero point moves out of the product,
//   conv(x - zx, w') = conv(x padded with zx, w') - zx * sum(w')   (per output channel),
// with the padding explicit (nn.pad by zx, so that it is zx - zx = 0 once centred). Otherwise (a
// weight known only at run time, or w' outside int8: uint8 weights with a small zero point) the
// operands are centred and widened to int32, and a plain int32 convolution computes the same
// values, more slowly. Both are exact (modulo 2^32, as int32 arithmetic is).
#include <algorithm>
#include <cmath>

#include "frontend/onnx/context.h"
#include "frontend/onnx/nn_window.h"
#include "relay/op/nn.h"
#include "relay/op/tensor.h"

namespace tessera::frontend::onnx {
namespace {

using relay::Expr;

bool isByte(DataType t) {
  return t == DataType::int8() || t == DataType::uint8();
}

// (M, 1, ..., 1): a per-output-channel value laid along axis 1 of a rank-`rank` result (numpy
// broadcasting aligns the trailing axes).
std::vector<int64_t> alongChannels(int64_t channels, int64_t rank) {
  std::vector<int64_t> shape(static_cast<size_t>(rank - 1), 1);
  shape[0] = channels;
  return shape;
}

// Zero point `zp` of integer input `value`: absent (0), a scalar, or — with `channels` > 0 — one
// per output channel.
void checkZeroPoint(NodeContext& n, size_t zp, size_t value, int64_t channels) {
  if (!n.hasInput(zp)) return;
  if (n.inputDtype(zp) != n.inputDtype(value))
    n.fail("onnx_input", "zero point " + std::to_string(zp) + " has type " +
                             n.inputDtype(zp).name() + " but its tensor has type " +
                             n.inputDtype(value).name());
  const std::vector<int64_t> s = n.inputShape(zp);
  const int64_t count = extentProduct(s, 0, s.size());
  if (count == 1 && s.size() <= 1) return;
  if (channels > 0 && s.size() == 1 && s[0] == channels) return;
  n.fail("onnx_input", channels > 0 ? "w_zero_point must be a scalar or hold one value per output "
                                      "channel (" +
                                          std::to_string(channels) + ")"
                                    : "x_zero_point must be a scalar (per-tensor quantization)");
}

// The zero point's values when they are known at import (0 when absent); nullopt otherwise.
std::optional<std::vector<int64_t>> knownZeroPoint(NodeContext& n, size_t zp) {
  if (!n.hasInput(zp)) return std::vector<int64_t>{0};
  const std::optional<NDArray> v = n.constantInput(zp);
  if (!v) return std::nullopt;
  std::vector<int64_t> out;
  for (int64_t k = 0; k < v->numel(); ++k) out.push_back(v->getInt(k));
  return out;
}

// A one-element zero point as a scalar expression (nn.pad's value, a broadcast operand).
Expr scalarOf(NodeContext& n, size_t zp) {
  return n.inputShape(zp).empty() ? n.input(zp)
                                  : relay::reshape(n.input(zp), std::vector<int64_t>{});
}

// The int8 kernels' form: raw `x` padded with its zero point, convolved by the int8 weight
// `centred` = w - w_zp, less zx * sum(w') per output channel, plus `bias`: with zx known, the
// correction and the bias are one constant, one add in the kernel's output stage.
Expr byteConv(NodeContext& n, size_t x, size_t xzp, const NDArray& centred,
              const std::optional<NDArray>& bias, ConvGeometry g) {
  const std::vector<int64_t> wshape = centred.shape();
  const int64_t channels = wshape[0], rank = static_cast<int64_t>(wshape.size());
  const std::optional<std::vector<int64_t>> zx = knownZeroPoint(n, xzp);
  const bool zeroZx = zx && zx->front() == 0;
  Expr data = n.input(x);
  // With zx = 0 the convolution's own padding is already the centred zero.
  if (!zeroZx &&
      std::any_of(g.window.pads.begin(), g.window.pads.end(), [](int64_t p) { return p > 0; })) {
    const size_t s = g.window.kernel.size();
    std::vector<std::vector<int64_t>> width = {{0, 0}, {0, 0}};
    for (size_t k = 0; k < s; ++k) width.push_back({g.window.pads[k], g.window.pads[k + s]});
    const Expr value =
        zx ? scalarConstant(static_cast<double>(zx->front()), n.inputDtype(x)) : scalarOf(n, xzp);
    data = relay::nn::pad(data, value, {.padWidth = width});
    std::fill(g.window.pads.begin(), g.window.pads.end(), 0);
  }
  NDArray weight = NDArray::empty(wshape, DataType::int8());
  NDArray offset = NDArray::empty(alongChannels(channels, rank), DataType::int32());
  const int64_t perChannel = centred.numel() / channels;
  for (int64_t o = 0; o < channels; ++o) {
    int64_t sum = 0;
    for (int64_t k = o * perChannel; k < (o + 1) * perChannel; ++k) {
      weight.setInt(k, centred.getInt(k));
      sum += centred.getInt(k);
    }
    // Wraps modulo 2^32 as the int32 accumulation it corrects does.
    const int64_t v = zx ? (bias ? bias->getInt(o) : 0) - zx->front() * sum : sum;
    offset.setInt(o, static_cast<int32_t>(static_cast<uint32_t>(v)));
  }
  Expr acc = convolveNd(n, data, relay::makeConstant(weight), g.window, g.groups, channels,
                        DataType::int32());
  if (zx) return zeroZx && !bias ? acc : relay::add(acc, relay::makeConstant(offset));
  acc = relay::subtract(acc, relay::multiply(relay::cast(scalarOf(n, xzp), DataType::int32()),
                                             relay::makeConstant(offset)));
  return bias ? relay::add(acc, relay::makeConstant(*bias)) : acc;
}

// Exact whatever the operands: both centred and widened to int32, so the convolution's own zero
// padding is the centred zero.
Expr wideConv(NodeContext& n, size_t x, size_t xzp, const Expr& centredWeight,
              const std::optional<NDArray>& bias, const ConvGeometry& g, int64_t channels) {
  Expr data = relay::cast(n.input(x), DataType::int32());
  if (n.hasInput(xzp))
    data = relay::subtract(data, relay::cast(scalarOf(n, xzp), DataType::int32()));
  const Expr acc =
      convolveNd(n, data, n.fold(centredWeight), g.window, g.groups, channels, DataType::int32());
  return bias ? relay::add(acc, relay::makeConstant(*bias)) : acc;
}

// (x - x_zp) conv (w - w_zp) in int32, plus `bias` (known, laid along the channels) when given;
// the inputs named by position.
Expr integerConv(NodeContext& n, size_t x, size_t xzp, size_t w, size_t wzp,
                 const std::optional<NDArray>& bias = std::nullopt) {
  if (!isByte(n.inputDtype(x)) || !isByte(n.inputDtype(w)))
    n.fail("onnx_input", "x and w must be uint8 or int8, not " + n.inputDtype(x).name() + " and " +
                             n.inputDtype(w).name());
  const ConvGeometry g = convGeometryOf(n, x, w);
  const std::vector<int64_t> wshape = n.inputShape(w);
  const int64_t channels = wshape[0];
  checkZeroPoint(n, xzp, x, 0);
  checkZeroPoint(n, wzp, w, channels);
  const std::optional<NDArray> weight = n.constantInput(w);
  const std::optional<std::vector<int64_t>> zw = knownZeroPoint(n, wzp);
  if (weight && zw) {
    NDArray centred = NDArray::empty(wshape, DataType::int32());
    const int64_t perChannel = weight->numel() / channels;
    bool fitsInt8 = true;
    for (int64_t k = 0; k < weight->numel(); ++k) {
      const int64_t v = weight->getInt(k) - (*zw)[zw->size() == 1 ? 0 : k / perChannel];
      centred.setInt(k, v);
      fitsInt8 = fitsInt8 && v >= -128 && v <= 127;
    }
    if (fitsInt8) return byteConv(n, x, xzp, centred, bias, g);
    return wideConv(n, x, xzp, relay::makeConstant(centred), bias, g, channels);
  }
  Expr centred = relay::cast(n.input(w), DataType::int32());
  if (n.hasInput(wzp)) {
    Expr zp = relay::cast(n.input(wzp), DataType::int32());
    zp = n.inputShape(wzp) == std::vector<int64_t>{channels} && channels > 1
             ? relay::reshape(zp, alongChannels(channels, static_cast<int64_t>(wshape.size()) + 1))
             : relay::reshape(zp, std::vector<int64_t>{});
    centred = relay::subtract(centred, zp);
  }
  return wideConv(n, x, xzp, centred, bias, g, channels);
}

void convInteger(NodeContext& n) {
  n.setOutput(0, integerConv(n, 0, 2, 1, 3));
}

// Round half to even of finite float32 values, in float32 arithmetic only: a tie is where
// |round(x) - x| (exact: x and its rounding are close) is 1/2, so floor(2 |round(x) - x|) is 1
// there and 0 elsewhere, and selects 2 round(x / 2) (the even neighbour) over round(x) (half away
// from zero). Unlike roundHalfToEven's select on a bool mask, every op keeps the value's type, so
// FuseOps takes the whole requantization into the convolution's output stage (a bool edge stops
// an anchor's elementwise fusion). Infinities would give NaN: the caller bounds the values.
Expr finiteRoundHalfToEven(const Expr& x) {
  const DataType f32 = DataType::float32();
  const Expr away = relay::round(x);
  const Expr tie =
      relay::floor(relay::multiply(relay::abs(relay::subtract(away, x)), scalarConstant(2, f32)));
  const Expr even = relay::multiply(scalarConstant(2, f32),
                                    relay::round(relay::multiply(x, scalarConstant(0.5, f32))));
  return relay::subtract(away, relay::multiply(tie, relay::subtract(away, even)));
}

// A scale input, which must be known at import: the multiplier is computed here.
std::vector<float> knownScale(NodeContext& n, size_t i, const std::string& what, int64_t count) {
  const std::optional<NDArray> v = n.constantInput(i);
  if (!v)
    n.fail("onnx_dynamic", "the " + what + " input '" + n.proto().input(static_cast<int>(i)) +
                               "' depends on run-time data; QLinearConv needs its scales at "
                               "import time (initializers or constants)");
  if (!v->dtype().isFloat() || !(v->numel() == 1 || (count > 1 && v->numel() == count)))
    n.fail("onnx_input", what + " must be a float scalar" +
                             (count > 1 ? " or hold one value per output channel" : ""));
  std::vector<float> out;
  for (int64_t k = 0; k < v->numel(); ++k) {
    const auto s = static_cast<float>(v->getFloat(k));
    if (!std::isfinite(s) || s <= 0)
      n.fail("onnx_input", what + " must be positive and finite, not " + std::to_string(s));
    out.push_back(s);
  }
  return out;
}

// QLinearConv(x, x_scale, x_zp, w, w_scale, w_zp, y_scale, y_zp, B?): the ConvInteger accumulator
// plus B, times x_scale * w_scale / y_scale (per tensor or per output channel), rounded half to
// even, plus y_zp, saturated. The multiplier is formed in float32 as onnxruntime and the ONNX
// reference do, and applied in float32 as onnxruntime does (the reference multiplies in float64;
// the two differ only for products within a float32 rounding of a half).
void qlinearConv(NodeContext& n) {
  const int64_t channels = n.inputShape(3)[0], rank = n.inputRank(0);
  std::optional<NDArray> bias;  // known: folded into the accumulator's constant offset
  if (n.hasInput(8)) {
    if (n.inputDtype(8) != DataType::int32() || n.inputShape(8) != std::vector<int64_t>{channels})
      n.fail("onnx_input", "the bias B must be int32 with one value per output channel (" +
                               std::to_string(channels) + ")");
    if (std::optional<NDArray> b = n.constantInput(8))
      bias = b->reshaped(alongChannels(channels, rank));
  }
  Expr acc = integerConv(n, 0, 2, 3, 5, bias);
  if (n.hasInput(8) && !bias)
    acc = relay::add(acc, relay::reshape(n.input(8), alongChannels(channels, rank)));
  const float xs = knownScale(n, 1, "x_scale", 1).front();
  const float ys = knownScale(n, 6, "y_scale", 1).front();
  const std::vector<float> ws = knownScale(n, 4, "w_scale", channels);
  NDArray multiplier = ws.size() == 1
                           ? NDArray::empty({}, DataType::float32())
                           : NDArray::empty(alongChannels(channels, rank), DataType::float32());
  for (size_t o = 0; o < ws.size(); ++o) {
    const float product = xs * ws[o];  // float32 arithmetic, as numpy's on float32 scales
    const float m = product / ys;
    // Below 2^32, |acc| * m (|acc| <= 2^31) stays finite, which the rounding below relies on.
    if (!(m < 0x1p32F))
      n.fail("onnx_input", "x_scale * w_scale / y_scale is " + std::to_string(m) +
                               "; requantization multipliers of 2^32 or more are not supported");
    multiplier.setFloat(static_cast<int64_t>(o), m);
  }
  const DataType f32 = DataType::float32();
  const DataType out = n.hasInput(7) ? n.inputDtype(7) : DataType::uint8();
  if (!isByte(out)) n.fail("onnx_input", "y_zero_point must be uint8 or int8, not " + out.name());
  if (n.hasInput(7) && extentProduct(n.inputShape(7), 0, n.inputShape(7).size()) != 1)
    n.fail("onnx_input", "y_zero_point must be a scalar");
  Expr y = finiteRoundHalfToEven(
      relay::multiply(relay::cast(acc, f32), relay::makeConstant(multiplier)));
  const std::optional<std::vector<int64_t>> zy = knownZeroPoint(n, 7);
  if (!zy)
    y = relay::add(y, relay::cast(scalarOf(n, 7), f32));
  else if (zy->front() != 0)
    y = relay::add(y, scalarConstant(static_cast<double>(zy->front()), f32));
  const double lo = out.isUInt() ? 0 : -128, hi = out.isUInt() ? 255 : 127;
  n.setOutput(0, relay::cast(relay::clip(y, lo, hi), out));
}

constexpr ConverterRow kRows[] = {
    {"ConvInteger", convInteger,
     "int32 result; 1-D, 2-D and 3-D; group, pads, auto_pad, strides, dilations; w_zero_point per "
     "tensor or per output channel"},
    {"QLinearConv", qlinearConv,
     "scales known at import; w_scale and w_zero_point per tensor or per output channel; bias"},
};

}  // namespace

std::span<const ConverterRow> qconvConverters() {
  return kRows;
}

}  // namespace tessera::frontend::onnx
