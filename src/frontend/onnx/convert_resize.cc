// Resize (opsets 10-18; Upsample's successor) as separable 1-D interpolations, one axis at a
// time, with everything that depends on positions computed while importing: for each output
// index, the input coordinate (coordinate_transformation_mode), its n neighbours (edge-clamped)
// and their weights (nearest: one neighbour; linear: 2; cubic: 4, cubic_coeff_a,
// exclude_outside; opset 18's antialias: a kernel stretched by 1 / scale when downsampling). An
// axis is then sum_k take(X, neighbour_k, axis) * weight_k — exact for every mode, as the ONNX
// reference interpolates axis by axis too. Scales and sizes must be known at import time
// (constants, or graph inputs whose value is given).
#include <algorithm>
#include <cmath>

#include "frontend/onnx/context.h"
#include "relay/op/tensor.h"

namespace tessera::frontend::onnx {
namespace {

using relay::Expr;

/// Most input positions one output position of an antialiased axis may read: the taps grow as
/// 1 / scale, and each is one `take` and `multiply` in the graph.
constexpr int64_t kMaxTaps = 256;

struct Settings {
  std::string mode, transform, nearestMode;
  double cubicA = -0.75;
  bool excludeOutside = false;
  bool antialias = false;
  double extrapolation = 0;
};

// The input coordinate of output index `o` (ONNX's coordinate_transformation_mode).
double sourceCoordinate(const Settings& s, double o, double scale, int64_t inLen, int64_t outLen,
                        double roiStart, double roiEnd, bool* outside) {
  const double outWidth = scale * static_cast<double>(inLen);  // unfloored, as the reference
  double x = 0;
  if (s.transform == "align_corners") {
    x = outWidth == 1 ? 0 : o * static_cast<double>(inLen - 1) / (outWidth - 1);
  } else if (s.transform == "asymmetric") {
    x = o / scale;
  } else if (s.transform == "pytorch_half_pixel") {
    x = outWidth == 1 ? -0.5 : (o + 0.5) / scale - 0.5;
  } else if (s.transform == "tf_half_pixel_for_nn") {
    x = (o + 0.5) / scale;
  } else if (s.transform == "tf_crop_and_resize") {
    const double span = static_cast<double>(inLen - 1);
    x = outLen > 1 ? roiStart * span + o * (roiEnd - roiStart) * span / (outWidth - 1)
                   : 0.5 * (roiStart + roiEnd) * span;
    *outside = x < 0 || x > span;
  } else {  // half_pixel
    x = (o + 0.5) / scale - 0.5;
  }
  return x;
}

// The weights of the input positions base + start, base + start + 1, ... around a source
// coordinate base + ratio (ratio in (0, 1]).
struct Taps {
  int64_t start = 0;
  std::vector<double> weights;
};

double cubicKernel(double x, double a) {
  x = std::abs(x);
  if (x <= 1) return ((a + 2) * x - (a + 3)) * x * x + 1;
  if (x < 2) return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
  return 0;
}

Taps tapsFor(const Settings& s, double ratio, double scale) {
  if (s.mode == "nearest") {
    if (ratio == 1) return {0, {0, 1}};
    if (s.nearestMode == "round_prefer_ceil")
      return {0, {ratio < 0.5 ? 1.0 : 0.0, ratio >= 0.5 ? 1.0 : 0.0}};
    if (s.nearestMode == "floor") return {0, {1, 0}};
    if (s.nearestMode == "ceil") return {0, {0, 1}};
    return {0, {ratio <= 0.5 ? 1.0 : 0.0, ratio > 0.5 ? 1.0 : 0.0}};  // round_prefer_floor
  }
  // Antialiasing (opset 18) only changes downsampling: the kernel is stretched by 1 / scale and
  // normalised, as ONNX's reference (and Pillow) resample. Upsampled, its weights equal these.
  if (!s.antialias || scale >= 1) {
    if (s.mode == "linear") return {0, {1 - ratio, ratio}};
    return {-1,
            {cubicKernel(ratio + 1, s.cubicA), cubicKernel(ratio, s.cubicA),
             cubicKernel(1 - ratio, s.cubicA), cubicKernel(2 - ratio, s.cubicA)}};
  }
  const double support = s.mode == "linear" ? 1 : 2;
  Taps t{.start = static_cast<int64_t>(std::floor(-support / scale)) + 1};
  double total = 0;
  for (int64_t i = t.start; i < 2 - t.start; ++i) {
    const double x = scale * (static_cast<double>(i) - ratio);
    const double w =
        s.mode == "linear" ? std::clamp(1 - std::abs(x), 0.0, 1.0) : cubicKernel(x, s.cubicA);
    t.weights.push_back(w);
    total += w;
  }
  for (double& w : t.weights) w /= total;
  return t;
}

// Interpolates `x` along `axis` from inLen to outLen elements.
Expr resizeAxis(NodeContext& n, const Expr& x, int64_t axis, int64_t rank, int64_t inLen,
                int64_t outLen, double scale, double roiStart, double roiEnd, const Settings& s) {
  const DataType dtype = n.dtypeOf(x);
  // Every output position has as many taps: their count depends on the scale alone.
  const size_t taps = tapsFor(s, 0.5, scale).weights.size();
  if (static_cast<int64_t>(taps) > kMaxTaps)
    n.fail("onnx_unsupported_size", "antialiased resizing of axis " + std::to_string(axis) +
                                        " would read " + std::to_string(taps) +
                                        " inputs per output; at most " + std::to_string(kMaxTaps) +
                                        " are supported");
  std::vector<std::vector<int64_t>> index(taps, std::vector<int64_t>(outLen));
  std::vector<std::vector<double>> weight(taps, std::vector<double>(outLen));
  std::vector<bool> outside(static_cast<size_t>(outLen), false);
  bool identity = inLen == outLen;
  for (int64_t o = 0; o < outLen; ++o) {
    bool out = false;
    const double c =
        sourceCoordinate(s, static_cast<double>(o), scale, inLen, outLen, roiStart, roiEnd, &out);
    outside[o] = out;
    const double lower = std::floor(c);
    const double ratio = c == lower ? 1 : c - lower;
    Taps t = tapsFor(s, ratio, scale);
    std::vector<double>& w = t.weights;
    // The taps nearest to c, preferring the lower ones: c - ratio is the base they count from.
    const int64_t first = static_cast<int64_t>(lower) - (ratio == 1 ? 1 : 0) + t.start;
    double total = 0;
    for (size_t k = 0; k < taps; ++k) {
      const int64_t at = first + static_cast<int64_t>(k);
      if (s.excludeOutside && (at < 0 || at >= inLen)) w[k] = 0;
      total += w[k];
      index[k][o] = std::clamp<int64_t>(at, 0, inLen - 1);  // edge padding
    }
    for (size_t k = 0; k < taps; ++k) {
      weight[k][o] = s.excludeOutside && total != 0 ? w[k] / total : w[k];
      if (weight[k][o] != 0 && (weight[k][o] != 1 || index[k][o] != o)) identity = false;
    }
    if (out) identity = false;
  }
  if (identity) return x;
  std::vector<int64_t> along(static_cast<size_t>(rank), 1);
  along[axis] = outLen;
  Expr sum;
  if (s.mode == "nearest") {  // one neighbour per output index: a single gather
    NDArray idx = NDArray::empty({outLen}, DataType::int64());
    for (int64_t o = 0; o < outLen; ++o) idx.setInt(o, index[weight[0][o] != 0 ? 0 : 1][o]);
    sum = relay::take(x, relay::makeConstant(idx), axis, "clip");
  }
  for (size_t k = 0; k < taps && s.mode != "nearest"; ++k) {
    bool used = false;
    NDArray w = NDArray::empty(along, dtype);
    for (int64_t o = 0; o < outLen; ++o) {
      w.setFloat(o, outside[o] ? 0 : weight[k][o]);
      used |= weight[k][o] != 0 && !outside[o];
    }
    if (!used) continue;
    NDArray idx = NDArray::empty({outLen}, DataType::int64());
    for (int64_t o = 0; o < outLen; ++o) idx.setInt(o, index[k][o]);
    const Expr term = relay::multiply(relay::take(x, relay::makeConstant(idx), axis, "clip"),
                                      relay::makeConstant(w));
    sum = sum ? relay::add(sum, term) : term;
  }
  if (!sum)
    sum = relay::multiply(
        relay::take(x, int64Constant(std::vector<int64_t>(outLen, 0)), axis, "clip"),
        scalarConstant(0, dtype));
  bool anyOutside = false;
  for (bool b : outside) anyOutside |= b;
  if (anyOutside) {  // tf_crop_and_resize: positions outside the input take extrapolation_value
    NDArray keep = NDArray::empty(along, dtype), fill = NDArray::empty(along, dtype);
    for (int64_t o = 0; o < outLen; ++o) {
      keep.setFloat(o, outside[o] ? 0 : 1);
      fill.setFloat(o, outside[o] ? s.extrapolation : 0);
    }
    sum = relay::add(relay::multiply(sum, relay::makeConstant(keep)), relay::makeConstant(fill));
  }
  return sum;
}

// Opset 18's axes attribute: the axes that roi, scales and sizes describe (all by default).
std::vector<int64_t> resizedAxes(NodeContext& n, int64_t rank) {
  std::optional<std::vector<int64_t>> given = n.attrInts("axes");
  std::vector<int64_t> axes;
  std::vector<bool> seen(static_cast<size_t>(rank), false);
  for (int64_t a = 0; a < rank; ++a)
    if (!given) axes.push_back(a);
  for (int64_t a : given.value_or(std::vector<int64_t>{})) {
    const int64_t k = n.normalizeAxis(a, rank, "axes entry");
    if (seen[k]) n.fail("onnx_attr", "axes name axis " + std::to_string(k) + " twice");
    seen[k] = true;
    axes.push_back(k);
  }
  return axes;
}

// Opset 18's keep_aspect_ratio_policy for sizes: one scale for every resized axis, the smallest
// (not_larger) or largest (not_smaller) of sizes / extent, and each size recomputed from it,
// rounded half up, as ONNX's reference.
void keepAspectRatio(NodeContext& n, const std::vector<int64_t>& axes,
                     const std::vector<int64_t>& shape, std::vector<double>& scales,
                     std::vector<int64_t>& sizes) {
  const std::string policy = n.attrString("keep_aspect_ratio_policy", "stretch");
  if (policy == "stretch") return;
  if (policy != "not_larger" && policy != "not_smaller")
    n.badAttr("keep_aspect_ratio_policy", policy, "stretch, not_larger, not_smaller");
  double scale = scales[axes.front()];
  for (int64_t a : axes)
    scale = policy == "not_larger" ? std::min(scale, scales[a]) : std::max(scale, scales[a]);
  for (int64_t a : axes) {
    scales[a] = scale;
    sizes[a] = static_cast<int64_t>(scale * static_cast<double>(shape[a]) + 0.5);
  }
}

void resize(NodeContext& n) {
  Settings s;
  s.mode = n.attrString("mode", "nearest");
  if (s.mode != "nearest" && s.mode != "linear" && s.mode != "cubic")
    n.badAttr("mode", s.mode, "nearest, linear, cubic");
  s.transform =
      n.attrString("coordinate_transformation_mode", n.opset() < 11 ? "asymmetric" : "half_pixel");
  s.nearestMode = n.attrString("nearest_mode", "round_prefer_floor");
  s.cubicA = n.attrFloat("cubic_coeff_a", -0.75);
  s.excludeOutside = n.attrInt("exclude_outside", 0) != 0;
  s.antialias = n.attrInt("antialias", 0) != 0;
  if (s.antialias && s.mode == "nearest")
    n.badAttr("antialias", "1", "0 with mode nearest (antialiasing is for linear and cubic)");
  s.extrapolation = n.attrFloat("extrapolation_value", 0);
  const std::vector<int64_t> shape = n.inputShape(0);
  const auto rank = static_cast<int64_t>(shape.size());
  const std::vector<int64_t> axes = resizedAxes(n, rank);
  const auto count = static_cast<int64_t>(axes.size());
  // Opset 10: (X, scales); 11+: (X, roi, scales, sizes), with either scales or sizes (18: the
  // other may be an empty tensor). Each has one entry per resized axis.
  const size_t scalesInput = n.opset() < 11 ? 1 : 2;
  std::vector<double> scales(static_cast<size_t>(rank), 1.0), roi;
  std::vector<int64_t> sizes = shape;
  const bool hasSizes =
      n.opset() >= 11 && n.hasInput(3) && !n.inputShape(3).empty() && n.inputShape(3)[0] > 0;
  if (hasSizes) {
    const std::vector<int64_t> given = n.constantInts(3, "sizes");
    if (static_cast<int64_t>(given.size()) != count)
      n.fail("onnx_input", "sizes must have one entry per resized axis");
    for (int64_t i = 0; i < count; ++i) {
      const int64_t a = axes[i];
      sizes[a] = given[i];
      scales[a] = static_cast<double>(sizes[a]) / static_cast<double>(shape[a]);
    }
    if (count > 0) keepAspectRatio(n, axes, shape, scales, sizes);
  } else {
    std::optional<NDArray> given = n.constantInput(scalesInput);
    if (!given) n.fail("onnx_dynamic", "the scales input depends on run-time data");
    if (given->numel() != count)
      n.fail("onnx_input", "scales must have one entry per resized axis");
    for (int64_t i = 0; i < count; ++i) {
      const int64_t a = axes[i];
      scales[a] = static_cast<float>(given->getFloat(i));
      if (!(scales[a] > 0)) n.fail("onnx_input", "scales must be positive");
    }
  }
  if (s.transform == "tf_crop_and_resize") {
    std::optional<NDArray> r = n.hasInput(1) ? n.constantInput(1) : std::nullopt;
    if (!r || r->numel() != 2 * count)
      n.fail("onnx_input", "tf_crop_and_resize needs a constant roi");
    roi.assign(static_cast<size_t>(rank), 0.0);
    roi.resize(static_cast<size_t>(2 * rank), 1.0);
    for (int64_t i = 0; i < count; ++i) {
      roi[axes[i]] = r->getFloat(i);
      roi[rank + axes[i]] = r->getFloat(count + i);
    }
  }
  Expr y = n.input(0);
  for (int64_t a : axes) {
    const double start = roi.empty() ? 0 : roi[a], end = roi.empty() ? 1 : roi[rank + a];
    const int64_t out = hasSizes ? sizes[a]
                                 : static_cast<int64_t>(std::floor(static_cast<double>(shape[a]) *
                                                                   (end - start) * scales[a]));
    if (out <= 0) n.fail("onnx_input", "the output would have an empty axis " + std::to_string(a));
    y = resizeAxis(n, y, a, rank, shape[a], out, scales[a], start, end, s);
  }
  n.setOutput(0, y);
}

constexpr ConverterRow kRows[] = {
    {"Resize", resize,
     "nearest/linear/cubic on any axes; every coordinate transformation mode; constant scales "
     "or sizes; opset 18's axes, keep_aspect_ratio_policy and antialias (linear, cubic)"},
};

}  // namespace

std::span<const ConverterRow> resizeConverters() {
  return kRows;
}

}  // namespace tessera::frontend::onnx
