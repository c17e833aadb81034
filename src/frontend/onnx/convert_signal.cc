// ONNX's signal operators (opset 17): DFT and STFT as matrix products with cos/sin tables computed
// at import time in double precision, and MelWeightMatrix as a constant computed by ONNX's
// reference algorithm. Signal lengths, frame steps and DFT lengths must be known at import.
#include <cmath>
#include <numbers>

#include "frontend/onnx/context.h"
#include "frontend/onnx/tensor_proto.h"
#include "relay/op/nn.h"
#include "relay/op/tensor.h"

namespace tessera::frontend::onnx {
namespace {

using relay::Expr;

/// Largest DFT table (output units x input columns) built at import: 64 MiB of float32.
constexpr int64_t kMaxDftTable = int64_t{1} << 24;

// cos and sin of 2 pi r / n for r in [0, n). Multiples of a quarter turn are exact, so bins whose
// true value is zero (the imaginary part at 0 and n/2 of a real signal) come out as exact zeros
// rather than a rounding residue the conformance tolerance (atol 1e-7) would reject.
std::pair<double, double> unitRoot(int64_t r, int64_t n) {
  if ((4 * r) % n == 0) {
    constexpr double kCos[] = {1, 0, -1, 0}, kSin[] = {0, 1, 0, -1};
    const int64_t q = 4 * r / n;
    return {kCos[q], kSin[q]};
  }
  const double theta = 2 * std::numbers::pi * static_cast<double>(r) / static_cast<double>(n);
  return {std::cos(theta), std::sin(theta)};
}

// The DFT over the second-last axis of x [..., rows, comps] (comps 1: real, 2: complex) with
// period `length`: rows past `length` are dropped, missing ones count as zeros. One nn.dense by a
// constant [2 bins, rows * comps] table whose output unit 2k + part is bin k's real (part 0) or
// imaginary (part 1) part, so the product reshapes straight to [..., bins, 2].
Expr dftOfRows(NodeContext& n, const Expr& x, int64_t length, bool inverse, bool onesided) {
  std::vector<int64_t> shape = n.shapeOf(x);
  const size_t rank = shape.size();
  const int64_t rows = shape[rank - 2], comps = shape[rank - 1];
  const int64_t bins = onesided ? length / 2 + 1 : length;
  if (2 * bins * rows * comps > kMaxDftTable)
    n.fail("onnx_unsupported_size",
           "the DFT table of " + std::to_string(2 * bins) + " x " + std::to_string(rows * comps) +
               " elements exceeds the supported " + std::to_string(kMaxDftTable));
  const DataType dtype = n.dtypeOf(x);
  NDArray table = NDArray::empty({2 * bins, rows * comps}, dtype);
  // Forward: X[k] = sum x[j] e^{-2 pi i jk/N}; inverse: e^{+2 pi i jk/N} / N.
  const double sign = inverse ? 1.0 : -1.0;
  const double scale = inverse ? 1.0 / static_cast<double>(length) : 1.0;
  for (int64_t k = 0; k < bins; ++k)
    for (int64_t j = 0; j < std::min(rows, length); ++j) {
      const auto [c, s] = unitRoot(j * k % length, length);
      const int64_t re = 2 * k * rows * comps + j * comps, im = re + rows * comps;
      // (xr + i xi)(c + i sign s): real xr c - sign xi s, imaginary xi c + sign xr s.
      table.setFloat(re, scale * c);
      table.setFloat(im, scale * sign * s);
      if (comps == 2) {
        table.setFloat(re + 1, -scale * sign * s);
        table.setFloat(im + 1, scale * c);
      }
    }
  const int64_t lines = extentProduct(shape, 0, rank - 2);
  Expr flat = relay::reshape(x, {lines, rows * comps});
  Expr y = relay::nn::dense(flat, relay::makeConstant(table));
  shape[rank - 2] = bins;
  shape[rank - 1] = 2;
  return relay::reshape(y, shape);
}

int64_t signalComponents(NodeContext& n, size_t input) {
  if (!n.inputDtype(input).isFloat()) n.fail("onnx_input", "the signal must be a float tensor");
  const std::vector<int64_t> shape = n.inputShape(input);
  if (shape.size() < 3 || (shape.back() != 1 && shape.back() != 2))
    n.fail("onnx_shape", "the signal must be [batch, ..., length, 1 or 2], not rank " +
                             std::to_string(shape.size()) + " with last extent " +
                             std::to_string(shape.empty() ? 0 : shape.back()));
  return shape.back();
}

void checkOnesided(NodeContext& n, bool onesided, int64_t comps) {
  if (onesided && comps == 2)
    n.fail("onnx_attr", "onesided = 1 needs a real signal (last extent 1); this one is complex");
}

// DFT (opset 17): the transformed axis is moved next to the complex axis by a transpose (and back
// afterwards) when it is not already there.
void dft(NodeContext& n) {
  const int64_t comps = signalComponents(n, 0);
  const std::vector<int64_t> shape = n.inputShape(0);
  const auto rank = static_cast<int64_t>(shape.size());
  const int64_t axis = n.normalizeAxis(n.attrInt("axis", 1), rank);
  if (axis == rank - 1) n.fail("onnx_attr", "axis must not be the last (complex) axis");
  const auto uAxis = static_cast<size_t>(axis);
  int64_t length = shape[uAxis];
  if (n.hasInput(1)) length = static_cast<int64_t>(n.constantScalar(1, "dft_length"));
  if (length < 1 || length > (int64_t{1} << 24))
    n.fail("onnx_input", "dft_length " + std::to_string(length) + " is out of range");
  const bool onesided = n.attrInt("onesided", 0) != 0;
  checkOnesided(n, onesided, comps);
  const bool inverse = n.attrInt("inverse", 0) != 0;
  std::vector<int64_t> perm;
  for (int64_t a = 0; a < rank; ++a) perm.push_back(a);
  std::swap(perm[uAxis], perm[static_cast<size_t>(rank - 2)]);
  const bool moved = axis != rank - 2;
  Expr x = moved ? relay::transpose(n.input(0), perm) : n.input(0);
  Expr y = dftOfRows(n, x, length, inverse, onesided);
  // The swap is its own inverse.
  n.setOutput(0, moved ? relay::transpose(y, perm) : y);
}

// STFT (opset 17): frames gathered by one `take` of a constant [frames, frame_length] index table,
// multiplied by the window, then transformed as DFT's rows.
void stft(NodeContext& n) {
  const int64_t comps = signalComponents(n, 0);
  const std::vector<int64_t> shape = n.inputShape(0);
  if (shape.size() != 3) n.fail("onnx_shape", "the signal must be [batch, length, 1 or 2]");
  const auto step = static_cast<int64_t>(n.constantScalar(1, "frame_step"));
  if (step < 1) n.fail("onnx_input", "frame_step must be positive, not " + std::to_string(step));
  const bool windowed = n.hasInput(2);
  if (windowed && n.inputRank(2) != 1) n.fail("onnx_shape", "the window must be 1-D");
  int64_t frameLength = windowed ? n.inputShape(2)[0] : 0;
  if (n.hasInput(3)) {
    const auto given = static_cast<int64_t>(n.constantScalar(3, "frame_length"));
    if (windowed && given != frameLength)
      n.fail("onnx_shape", "frame_length " + std::to_string(given) +
                               " differs from the window's length " + std::to_string(frameLength));
    frameLength = given;
  } else if (!windowed) {
    n.fail("onnx_input", "a window or a frame_length is required");
  }
  if (frameLength < 1 || frameLength > shape[1])
    n.fail("onnx_shape", "frame_length " + std::to_string(frameLength) +
                             " must be in [1, the signal length " + std::to_string(shape[1]) + "]");
  const bool onesided = n.attrInt("onesided", 1) != 0;
  checkOnesided(n, onesided, comps);
  const int64_t frames = (shape[1] - frameLength) / step + 1;
  if (frames * frameLength > kMaxFoldElements)
    n.fail("onnx_unsupported_size", "the frame table of " + std::to_string(frames * frameLength) +
                                        " elements exceeds the supported " +
                                        std::to_string(kMaxFoldElements));
  NDArray index = NDArray::empty({frames, frameLength}, DataType::int64());
  for (int64_t f = 0; f < frames; ++f)
    for (int64_t t = 0; t < frameLength; ++t) index.setInt(f * frameLength + t, f * step + t);
  // [batch, frames, frame_length, comps]
  Expr x = relay::take(n.input(0), relay::makeConstant(index), 1);
  if (windowed) {
    Expr window = n.input(2);
    if (!(n.inputDtype(2) == n.inputDtype(0))) window = relay::cast(window, n.inputDtype(0));
    x = relay::multiply(x, n.fold(relay::reshape(window, {frameLength, 1})));
  }
  n.setOutput(0, dftOfRows(n, x, frameLength, false, onesided));
}

// MelWeightMatrix (opset 17), as ONNX's reference computes it: num_mel_bins + 2 points evenly
// spaced in mel (2595 log10(1 + hz / 700)) between the edges, each mapped back to hertz and to the
// DFT bin floor((dft_length + 1) hz / sample_rate); filter i rises from point i to point i + 1 and
// falls to point i + 2. The reference's mel step divides by num_mel_bins + 2 (not + 1), kept here.
void melWeightMatrix(NodeContext& n) {
  const auto mels = static_cast<int64_t>(n.constantScalar(0, "num_mel_bins"));
  const auto dftLength = static_cast<int64_t>(n.constantScalar(1, "dft_length"));
  const double sampleRate = n.constantScalar(2, "sample_rate");
  const double lowHz = n.constantScalar(3, "lower_edge_hertz");
  const double highHz = n.constantScalar(4, "upper_edge_hertz");
  const int64_t spectrumBins = dftLength / 2 + 1;
  if (mels < 1 || dftLength < 1 || sampleRate <= 0 || mels * spectrumBins > kMaxFoldElements)
    n.fail("onnx_input", "num_mel_bins and dft_length must be positive with a product of at most " +
                             std::to_string(kMaxFoldElements) +
                             " and sample_rate positive; found " + std::to_string(mels) + ", " +
                             std::to_string(dftLength) + " and " + std::to_string(sampleRate));
  const auto code = static_cast<int32_t>(n.attrInt("output_datatype", 1));
  std::optional<DataType> dtype = dataTypeOf(code);
  if (!dtype) n.badAttr("output_datatype", std::to_string(code), "numeric types");
  auto toMel = [](double hz) { return 2595 * std::log10(1 + hz / 700); };
  const double lowMel = toMel(lowHz);
  const double step = (toMel(highHz) - lowMel) / static_cast<double>(mels + 2);
  std::vector<int64_t> point;
  for (int64_t i = 0; i < mels + 2; ++i) {
    const double hz = 700 * (std::pow(10, (static_cast<double>(i) * step + lowMel) / 2595) - 1);
    point.push_back(
        static_cast<int64_t>(std::floor(static_cast<double>(dftLength + 1) * hz / sampleRate)));
    if (point.back() < 0 || point.back() >= spectrumBins)
      n.fail("onnx_input", "the edge frequencies map to DFT bin " + std::to_string(point.back()) +
                               ", outside [0, " + std::to_string(spectrumBins) + ")");
  }
  std::vector<double> w(static_cast<size_t>(spectrumBins * mels), 0.0);
  auto at = [&](int64_t bin, int64_t mel) -> double& {
    return w[static_cast<size_t>(bin * mels + mel)];
  };
  for (int64_t i = 0; i < mels; ++i) {
    const int64_t left = point[i], centre = point[i + 1], right = point[i + 2];
    if (centre == left) at(centre, i) = 1;
    for (int64_t j = left; centre > left && j <= centre; ++j)
      at(j, i) = static_cast<double>(j - left) / static_cast<double>(centre - left);
    // The falling ramp overwrites the centre (with 1), as the reference does.
    for (int64_t j = centre; j < right; ++j)
      at(j, i) = static_cast<double>(right - j) / static_cast<double>(right - centre);
  }
  NDArray out = NDArray::empty({spectrumBins, mels}, *dtype);
  for (size_t i = 0; i < w.size(); ++i) out.setFloat(static_cast<int64_t>(i), w[i]);
  n.setOutput(0, relay::makeConstant(out));
}

constexpr ConverterRow kRows[] = {
    {"DFT", dft, "opset 17; axis, inverse, onesided; dft_length known at import"},
    {"MelWeightMatrix", melWeightMatrix, "every input known at import; output_datatype"},
    {"STFT", stft, "opset 17; frame_step and frame_length known at import; window; onesided"},
};

}  // namespace

std::span<const ConverterRow> signalConverters() {
  return kRows;
}

}  // namespace tessera::frontend::onnx
