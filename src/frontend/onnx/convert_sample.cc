// Sampling at run-time positions: GridSample (opset 16) and RoiAlign (opsets 10 and 16). The
// positions come from tensors (a grid, boxes), so unlike Resize little can be tabulated while
// importing: source coordinates, their integer neighbours and the interpolation weights are Relay
// arithmetic, and each neighbour is a `take` from the flattened input at the flat index
// plane * H * W + row * W + column. Neighbours outside the image are clamped for the gather and,
// where they must read as zero, masked in their weight.
#include <algorithm>
#include <cmath>
#include <limits>

#include "frontend/onnx/context.h"
#include "relay/op/tensor.h"

namespace tessera::frontend::onnx {
namespace {

using relay::Expr;

const DataType kIndex = DataType::int64();
/// Largest (boxes, channels, sample rows, sample columns) tensor RoiAlign builds before reducing
/// the samples of each bin; an adaptive sampling_ratio on large boxes can ask for more.
constexpr int64_t kMaxSampleElements = int64_t{1} << 24;
/// The bicubic convolution constant of GridSample (PyTorch's and ONNX's reference value).
constexpr double kCubicA = -0.75;

Expr num(double v, DataType dtype) {
  return scalarConstant(v, dtype);
}

// One neighbour along one axis: where to read (int64, inside the axis) and its weight (null: 1).
struct Tap {
  Expr index, weight;
};

// sum (or, for RoiAlign's max mode, max) over every (row tap, column tap) pair of
// weight_row * weight_col * X[plane + row * width + col]. `planes` holds the flat offset of each
// output's (image, channel) plane; the index shapes broadcast against it to the output's.
Expr gatherTaps(const Expr& flat, const Expr& planes, const std::vector<Tap>& rows,
                const std::vector<Tap>& cols, int64_t width, DataType dtype, bool takeMax) {
  Expr total;
  for (const Tap& r : rows) {
    const Expr rowStart =
        relay::add(planes, relay::multiply(r.index, num(static_cast<double>(width), kIndex)));
    for (const Tap& c : cols) {
      Expr term = relay::take(flat, relay::add(rowStart, c.index), std::nullopt, "clip");
      Expr weight = r.weight && c.weight ? relay::multiply(r.weight, c.weight)
                                         : (r.weight ? r.weight : c.weight);
      if (weight) term = relay::multiply(term, relay::cast(weight, dtype));
      if (!total)
        total = term;
      else
        total = takeMax ? relay::maximum(total, term) : relay::add(total, term);
    }
  }
  return total;
}

// --- GridSample ------------------------------------------------------------------------------

enum class Padding { kZeros, kBorder, kReflection };
enum class Mode { kNearest, kBilinear, kBicubic };

// One spatial axis of the sampled image and the borders coordinates are reflected at or checked
// against: [0, extent - 1] with align_corners, [-0.5, extent - 0.5] (pixel edges) without.
struct GridAxis {
  int64_t extent;
  double lo, hi;
};

// ONNX's reflection of a coordinate into [lo, hi] (the reference's _gs_reflect), for tables.
double reflect(double x, double lo, double hi) {
  const double range = hi - lo;
  if (range <= 0) return lo;
  if (x >= lo && x <= hi) return x;
  const bool below = x < lo;
  const double d = below ? lo - x : x - hi;
  const double flips = std::floor(d / range);
  const double r = d - flips * range;
  const bool even = std::fmod(flips, 2) == 0;
  // An even number of flips ends moving away from the border crossed, an odd one from the other.
  return below == even ? lo + r : hi - r;
}

// The same reflection as Relay arithmetic over run-time coordinates.
Expr reflectExpr(const Expr& x, double lo, double hi, DataType dt) {
  const Expr below = relay::less(x, num(lo, dt));
  const Expr outside = relay::logicalOr(below, relay::greater(x, num(hi, dt)));
  const double range = hi - lo;
  if (range <= 0) return relay::where(outside, num(lo, dt), x);
  const Expr d =
      relay::where(below, relay::subtract(num(lo, dt), x), relay::subtract(x, num(hi, dt)));
  const Expr flips = relay::floor(relay::divide(d, num(range, dt)));
  const Expr r = relay::subtract(d, relay::multiply(flips, num(range, dt)));
  const Expr half = relay::multiply(flips, num(0.5, dt));
  const Expr even = relay::equal(relay::floor(half), half);
  const Expr fromLo = relay::add(num(lo, dt), r), fromHi = relay::subtract(num(hi, dt), r);
  const Expr reflected =
      relay::where(below, relay::where(even, fromLo, fromHi), relay::where(even, fromHi, fromLo));
  return relay::where(outside, reflected, x);
}

// The source coordinate of normalised grid values `g`, brought inside the borders as
// padding_mode asks (the reference handles out-of-range coordinates before taking neighbours).
Expr sourceCoordinate(const Expr& g, const GridAxis& a, bool alignCorners, Mode mode, Padding p,
                      DataType dt) {
  const auto extent = static_cast<double>(a.extent);
  const Expr shifted = relay::add(g, num(1, dt));
  Expr x = alignCorners
               ? relay::multiply(shifted, num((extent - 1) / 2, dt))
               : relay::subtract(relay::multiply(shifted, num(extent / 2, dt)), num(0.5, dt));
  if (mode == Mode::kNearest) x = roundHalfToEven(x, dt);
  switch (p) {
    case Padding::kZeros:
      // Every neighbour of a coordinate past these bounds is outside the image (and masked), so
      // the clamp only keeps the integer conversion of far-away coordinates in range.
      return relay::clip(x, -4, extent + 3);
    case Padding::kBorder: {
      const Expr outside =
          relay::logicalOr(relay::less(x, num(a.lo, dt)), relay::greater(x, num(a.hi, dt)));
      return relay::where(outside, relay::clip(x, 0, extent - 1), x);
    }
    case Padding::kReflection:
      return reflectExpr(x, a.lo, a.hi, dt);
  }
  return x;
}

// A neighbour at integral position `pos` (float) made readable: zeros padding masks positions
// outside the axis, border clamps them, reflection maps them through a table (once the coordinate
// is reflected, every neighbour lies within 3 of the image).
Tap padTap(const Expr& pos, Expr weight, const GridAxis& a, Padding p, DataType dt) {
  const auto last = static_cast<double>(a.extent - 1);
  const Expr clamped = relay::cast(relay::clip(pos, 0, last), kIndex);
  switch (p) {
    case Padding::kZeros: {
      const Expr inside = relay::logicalAnd(relay::greaterEqual(pos, num(0, dt)),
                                            relay::lessEqual(pos, num(last, dt)));
      const Expr mask = relay::cast(inside, dt);
      return {clamped, weight ? relay::multiply(weight, mask) : mask};
    }
    case Padding::kBorder:
      return {clamped, weight};
    case Padding::kReflection: {
      NDArray table = NDArray::empty({a.extent + 6}, kIndex);
      for (int64_t k = 0; k < a.extent + 6; ++k) {
        const auto at = static_cast<int64_t>(reflect(static_cast<double>(k - 3), a.lo, a.hi));
        table.setInt(k, std::clamp<int64_t>(at, 0, a.extent - 1));
      }
      const Expr slot = relay::cast(
          relay::clip(relay::add(pos, num(3, dt)), 0, static_cast<double>(a.extent + 5)), kIndex);
      return {relay::take(relay::makeConstant(table), slot, 0, "clip"), weight};
    }
  }
  return {clamped, weight};
}

// Keys' cubic convolution weight at distance s <= 1 and at 1 < s < 2.
Expr cubicNear(const Expr& s, DataType dt) {
  const Expr inner =
      relay::subtract(relay::multiply(num(kCubicA + 2, dt), s), num(kCubicA + 3, dt));
  return relay::add(relay::multiply(inner, relay::multiply(s, s)), num(1, dt));
}

Expr cubicFar(const Expr& s, DataType dt) {
  const Expr a = relay::subtract(relay::multiply(num(kCubicA, dt), s), num(5 * kCubicA, dt));
  const Expr b = relay::add(relay::multiply(a, s), num(8 * kCubicA, dt));
  return relay::subtract(relay::multiply(b, s), num(4 * kCubicA, dt));
}

// The neighbours of coordinate x that `mode` reads, with their interpolation weights.
std::vector<Tap> tapsOf(const Expr& x, const GridAxis& a, Mode mode, Padding p, DataType dt) {
  if (mode == Mode::kNearest) return {padTap(x, nullptr, a, p, dt)};
  const Expr lower = relay::floor(x);
  const Expr t = relay::subtract(x, lower);
  const Expr one = num(1, dt);
  if (mode == Mode::kBilinear)
    return {padTap(lower, relay::subtract(one, t), a, p, dt),
            padTap(relay::add(lower, one), t, a, p, dt)};
  const Expr q = relay::subtract(one, t);
  return {padTap(relay::subtract(lower, one), cubicFar(relay::add(t, one), dt), a, p, dt),
          padTap(lower, cubicNear(t, dt), a, p, dt),
          padTap(relay::add(lower, one), cubicNear(q, dt), a, p, dt),
          padTap(relay::add(lower, num(2, dt)), cubicFar(relay::add(q, one), dt), a, p, dt)};
}

// GridSample: Y[n, c, i, j] samples X[n, c] at grid[n, i, j] = (x, y), normalised to [-1, 1].
void gridSample(NodeContext& n) {
  const std::vector<int64_t> xs = n.inputShape(0), gs = n.inputShape(1);
  if (xs.size() != 4)
    n.fail("onnx_unsupported_rank",
           "X has rank " + std::to_string(xs.size()) + "; supported: 4-D (N, C, H, W)");
  if (gs.size() != 4 || gs[0] != xs[0] || gs[3] != 2)
    n.fail("onnx_input", "the grid must be (N, H_out, W_out, 2) with N = " + std::to_string(xs[0]));
  const DataType dtype = n.inputDtype(0), dt = n.inputDtype(1);
  if (!dtype.isFloat() || !dt.isFloat()) n.fail("onnx_input", "X and the grid must be floats");
  const std::string modeName = n.attrString("mode", "bilinear");
  const std::string padName = n.attrString("padding_mode", "zeros");
  const bool alignCorners = n.attrInt("align_corners", 0) != 0;
  Mode mode = Mode::kBilinear;
  if (modeName == "nearest")
    mode = Mode::kNearest;
  else if (modeName == "bicubic")
    mode = Mode::kBicubic;
  else if (modeName != "bilinear")
    n.badAttr("mode", modeName, "bilinear, nearest, bicubic");
  Padding padding = Padding::kZeros;
  if (padName == "border")
    padding = Padding::kBorder;
  else if (padName == "reflection")
    padding = Padding::kReflection;
  else if (padName != "zeros")
    n.badAttr("padding_mode", padName, "zeros, border, reflection");
  const int64_t batch = xs[0], channels = xs[1], height = xs[2], width = xs[3];
  auto axisOf = [&](int64_t extent) {
    const auto e = static_cast<double>(extent);
    return alignCorners ? GridAxis{extent, 0, e - 1} : GridAxis{extent, -0.5, e - 0.5};
  };
  // The grid's last axis holds (x, y); each becomes an (N, 1, H_out, W_out) coordinate.
  auto component = [&](int64_t k) {
    return relay::expandDims(relay::take(n.input(1), num(static_cast<double>(k), kIndex), 3), 1);
  };
  const GridAxis ax = axisOf(width), ay = axisOf(height);
  const std::vector<Tap> cols = tapsOf(
      sourceCoordinate(component(0), ax, alignCorners, mode, padding, dt), ax, mode, padding, dt);
  const std::vector<Tap> rows = tapsOf(
      sourceCoordinate(component(1), ay, alignCorners, mode, padding, dt), ay, mode, padding, dt);
  NDArray planes = NDArray::empty({batch, channels, 1, 1}, kIndex);
  for (int64_t p = 0; p < batch * channels; ++p) planes.setInt(p, p * height * width);
  const Expr flat = relay::reshape(n.input(0), {-1});
  n.setOutput(0, gatherTaps(flat, relay::makeConstant(planes), rows, cols, width, dtype, false));
}

// --- RoiAlign --------------------------------------------------------------------------------

// Where RoiAlign samples along one axis of every box, as (boxes or 1, bins * samples) tables of
// offsets in bins (bin + (sample + 0.5) / samples), and which samples exist when the number per
// bin differs between boxes (an adaptive sampling_ratio).
struct SampleGrid {
  int64_t samples = 0;  ///< per bin (the largest over the boxes)
  NDArray offsets, present;
};

SampleGrid sampleGrid(const std::vector<int64_t>& perBox, int64_t bins, DataType dt) {
  SampleGrid g;
  for (int64_t s : perBox) g.samples = std::max(g.samples, s);
  g.samples = std::max<int64_t>(g.samples, 1);
  const auto boxes = static_cast<int64_t>(perBox.size());
  g.offsets = NDArray::empty({boxes, bins * g.samples}, dt);
  g.present = NDArray::empty({boxes, bins * g.samples}, dt);
  for (int64_t b = 0; b < boxes; ++b)
    for (int64_t bin = 0; bin < bins; ++bin)
      for (int64_t s = 0; s < g.samples; ++s) {
        const int64_t at = b * bins * g.samples + bin * g.samples + s;
        const bool here = s < perBox[b];
        g.offsets.setFloat(at, here ? static_cast<double>(bin) + (static_cast<double>(s) + 0.5) /
                                                                     static_cast<double>(perBox[b])
                                    : 0);
        g.present.setFloat(at, here ? 1 : 0);
      }
  return g;
}

// The two bilinear neighbours of RoiAlign's sample coordinates y along an axis of `extent`, as
// ONNX Runtime and the reference compute them: samples beyond one pixel outside the image read
// zero; others are clamped into [0, extent - 1] before interpolating.
std::vector<Tap> roiTaps(const Expr& y, int64_t extent, const Expr& present, DataType dt) {
  const auto last = static_cast<double>(extent - 1);
  const Expr inside = relay::logicalAnd(relay::greaterEqual(y, num(-1, dt)),
                                        relay::lessEqual(y, num(static_cast<double>(extent), dt)));
  Expr mask = relay::cast(inside, dt);
  if (present) mask = relay::multiply(mask, present);
  const Expr c = relay::clip(y, 0, last);
  const Expr lower = relay::floor(c);
  const Expr upper = relay::minimum(relay::add(lower, num(1, dt)), num(last, dt));
  const Expr t = relay::subtract(c, lower);
  return {{relay::cast(lower, kIndex), relay::multiply(relay::subtract(num(1, dt), t), mask)},
          {relay::cast(upper, kIndex), relay::multiply(t, mask)}};
}

// sampling_ratio 0: ceil(box extent / bins) samples per bin along each axis of each box. That
// sets the shape of the sample tensor, so the boxes' values must be known now.
void adaptiveSamples(NodeContext& n, float scale, float offset, bool halfPixel, int64_t outH,
                     int64_t outW, std::vector<int64_t>& perRow, std::vector<int64_t>& perCol) {
  std::optional<NDArray> known = n.constantInput(1);
  if (!known)
    n.fail("onnx_dynamic",
           "sampling_ratio 0 (adaptive) makes the number of samples depend on the rois, which "
           "are run-time data; give sampling_ratio > 0 or the rois' value at import");
  for (size_t b = 0; b < perRow.size(); ++b) {
    // In float, as ONNX Runtime, so that the ceil agrees at exact multiples.
    auto extent = [&](int64_t lo, int64_t hi) {
      const auto at = static_cast<int64_t>(b) * 4;
      const float e = (static_cast<float>(known->getFloat(at + hi)) * scale - offset) -
                      (static_cast<float>(known->getFloat(at + lo)) * scale - offset);
      return halfPixel ? e : std::max(e, 1.0F);
    };
    const float h = std::ceil(extent(1, 3) / static_cast<float>(outH));
    const float w = std::ceil(extent(0, 2) / static_cast<float>(outW));
    if (!(h <= 1024 && w <= 1024))  // also catches NaN
      n.fail("onnx_unsupported_size", "box " + std::to_string(b) +
                                          " would take more than 1024 adaptive samples per bin "
                                          "and axis");
    perRow[b] = std::max<int64_t>(0, static_cast<int64_t>(h));
    perCol[b] = std::max<int64_t>(0, static_cast<int64_t>(w));
  }
}

void roiAlign(NodeContext& n) {
  // The box count may be `?` (-1; the proposals a detector's RPN kept), with a fixed
  // sampling_ratio: every shape below then infers it (reshape's -1).
  const std::vector<int64_t> xs = n.inputShape(0), rs = n.inputDims(1), bs = n.inputDims(2);
  if (xs.size() != 4) n.fail("onnx_unsupported_rank", "X must be 4-D (N, C, H, W)");
  if (rs.size() != 2 || rs[1] != 4) n.fail("onnx_input", "rois must be (num_rois, 4)");
  if (bs.size() != 1 || (bs[0] != rs[0] && bs[0] >= 0 && rs[0] >= 0))
    n.fail("onnx_input",
           "batch_indices must be (num_rois) with num_rois = " + std::to_string(rs[0]));
  const DataType dtype = n.inputDtype(0), dt = n.inputDtype(1);
  if (!dtype.isFloat() || !dt.isFloat()) n.fail("onnx_input", "X and rois must be floats");
  if (!n.inputDtype(2).isInteger()) n.fail("onnx_input", "batch_indices must be integers");
  const std::string mode = n.attrString("mode", "avg");
  if (mode != "avg" && mode != "max") n.badAttr("mode", mode, "avg, max");
  // Opset 10 has no coordinate_transformation_mode: it behaves as output_half_pixel.
  const std::string transform = n.attrString("coordinate_transformation_mode",
                                             n.opset() < 16 ? "output_half_pixel" : "half_pixel");
  if (transform != "half_pixel" && transform != "output_half_pixel")
    n.badAttr("coordinate_transformation_mode", transform, "half_pixel, output_half_pixel");
  const bool halfPixel = transform == "half_pixel";
  const int64_t outH = n.attrInt("output_height", 1), outW = n.attrInt("output_width", 1);
  if (outH < 1 || outW < 1 || outH > kMaxWindowValue || outW > kMaxWindowValue)
    n.fail("onnx_attr", "output_height and output_width must be positive");
  const int64_t ratio = n.attrInt("sampling_ratio", 0);
  if (ratio < 0 || ratio > kMaxWindowValue)
    n.badAttr("sampling_ratio", std::to_string(ratio), ">= 0");
  const auto scale = static_cast<float>(n.attrFloat("spatial_scale", 1.0));
  if (ratio == 0 && (rs[0] < 0 || bs[0] < 0))
    n.fail("onnx_dynamic",
           "sampling_ratio 0 (adaptive) needs the rois at import, but their count is known only "
           "at run time");
  const bool dynamicBoxes = rs[0] < 0 || bs[0] < 0;
  const int64_t boxes = dynamicBoxes ? -1 : rs[0], channels = xs[1], height = xs[2], width = xs[3];
  const float offset = halfPixel ? 0.5F : 0.0F;

  // Samples per bin and axis of every box: sampling_ratio, or (0) adaptive.
  std::vector<int64_t> perRow(static_cast<size_t>(std::max<int64_t>(boxes, 1)), ratio);
  std::vector<int64_t> perCol(static_cast<size_t>(std::max<int64_t>(boxes, 1)), ratio);
  if (ratio == 0) adaptiveSamples(n, scale, offset, halfPixel, outH, outW, perRow, perCol);
  const bool uniform = ratio > 0;
  const SampleGrid gy = sampleGrid(uniform ? std::vector<int64_t>{ratio} : perRow, outH, dt);
  const SampleGrid gx = sampleGrid(uniform ? std::vector<int64_t>{ratio} : perCol, outW, dt);
  const double elements = static_cast<double>(std::max<int64_t>(boxes, 1)) *
                          static_cast<double>(channels) * static_cast<double>(outH * gy.samples) *
                          static_cast<double>(outW * gx.samples);
  if (elements > static_cast<double>(kMaxSampleElements))
    n.fail("onnx_unsupported_size",
           "the samples of all boxes would take " + std::to_string(static_cast<int64_t>(elements)) +
               " elements; at most " + std::to_string(kMaxSampleElements) + " are supported");

  // Box corners in input pixels; (boxes, 1) each.
  auto corner = [&](int64_t k) {
    const Expr v = relay::take(n.input(1), int64Constant({k}), 1);
    return relay::subtract(relay::multiply(v, num(scale, dt)), num(offset, dt));
  };
  auto axisSamples = [&](int64_t lo, int64_t hi, int64_t bins, const SampleGrid& g) {
    const Expr start = corner(lo);
    Expr extent = relay::subtract(corner(hi), start);
    if (!halfPixel) extent = relay::maximum(extent, num(1, dt));  // legacy: at least one pixel
    const Expr bin = relay::divide(extent, num(static_cast<double>(bins), dt));
    return relay::add(start, relay::multiply(bin, relay::makeConstant(g.offsets)));
  };
  const int64_t sy = outH * gy.samples, sx = outW * gx.samples;
  const Expr y = relay::reshape(axisSamples(1, 3, outH, gy), {boxes, 1, sy, 1});
  const Expr x = relay::reshape(axisSamples(0, 2, outW, gx), {boxes, 1, 1, sx});
  auto present = [&](const SampleGrid& g, std::vector<int64_t> shape) -> Expr {
    if (uniform) return nullptr;
    return relay::reshape(relay::makeConstant(g.present), std::move(shape));
  };
  const Expr presentY = present(gy, {boxes, 1, sy, 1}), presentX = present(gx, {boxes, 1, 1, sx});
  const std::vector<Tap> rows = roiTaps(y, height, presentY, dt);
  const std::vector<Tap> cols = roiTaps(x, width, presentX, dt);

  // Plane offsets: the run-time batch index of each box, plus the channel.
  const Expr batchIndex = relay::cast(n.input(2), kIndex);
  NDArray channelStart = NDArray::empty({1, channels, 1, 1}, kIndex);
  for (int64_t c = 0; c < channels; ++c) channelStart.setInt(c, c * height * width);
  const Expr planes = relay::add(
      relay::reshape(
          relay::multiply(batchIndex, num(static_cast<double>(channels * height * width), kIndex)),
          {boxes, 1, 1, 1}),
      relay::makeConstant(channelStart));
  const bool takeMax = mode == "max";
  // max mode follows ONNX Runtime: the largest weighted neighbour of each sample, then the
  // largest sample of the bin.
  Expr samples =
      gatherTaps(relay::reshape(n.input(0), {-1}), planes, rows, cols, width, dtype, takeMax);
  if (takeMax && !uniform) {  // a box with fewer samples must not see the padding ones
    const Expr both = relay::multiply(presentY, presentX);
    samples = relay::where(relay::greater(both, num(0, dt)), samples,
                           num(std::numeric_limits<float>::lowest(), dtype));
  }
  samples = relay::reshape(samples, {boxes, channels, outH, gy.samples, outW, gx.samples});
  const relay::ReduceAttrs overSamples{.axis = std::vector<int64_t>{3, 5}};
  if (takeMax) {
    Expr y = relay::max(samples, overSamples);
    // A box without samples (an empty box, adaptively) gives 0, as ONNX Runtime's initial value.
    NDArray some = NDArray::empty({std::max<int64_t>(boxes, 1), 1, 1, 1}, dtype);
    bool anyEmpty = false;
    for (int64_t b = 0; b < boxes; ++b) {
      const bool empty = perRow[b] * perCol[b] == 0;
      anyEmpty |= empty;
      some.setFloat(b, empty ? 0 : 1);
    }
    if (anyEmpty)
      y = relay::where(relay::greater(relay::makeConstant(some), num(0, dtype)), y, num(0, dtype));
    n.setOutput(0, y);
    return;
  }
  if (uniform) {  // every box has ratio x ratio samples per bin
    n.setOutput(0, relay::divide(relay::sum(samples, overSamples),
                                 num(static_cast<double>(ratio * ratio), dtype)));
    return;
  }
  NDArray count = NDArray::empty({boxes, 1, 1, 1}, dtype);
  for (int64_t b = 0; b < boxes; ++b)
    count.setFloat(b, static_cast<double>(std::max<int64_t>(1, perRow[b] * perCol[b])));
  n.setOutput(0, relay::divide(relay::sum(samples, overSamples), relay::makeConstant(count)));
}

constexpr ConverterRow kRows[] = {
    {"GridSample", gridSample,
     "opset 16, 4-D; bilinear, nearest, bicubic; zeros, border, reflection; align_corners"},
    {"RoiAlign", roiAlign,
     "avg, max; half_pixel, output_half_pixel; sampling_ratio > 0, or 0 with rois known at "
     "import"},
};

}  // namespace

std::span<const ConverterRow> sampleConverters() {
  return kRows;
}

}  // namespace tessera::frontend::onnx
