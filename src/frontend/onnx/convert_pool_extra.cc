// Window and normalisation operators without a Relay op of their own, as compositions: LRN (a
// channel-window mean of squares by avg_pool2d), MeanVarianceNormalization and GroupNormalization
// (reductions), Col2Im (a gather of the columns at a table computed at import),
// MaxUnpool (a match mask between indices and output positions), and MaxPool's Indices output
// (each window tap compared with the window's maximum), which convert_nn.cc's MaxPool calls.
#include <algorithm>

#include "frontend/onnx/context.h"
#include "relay/op/nn.h"
#include "relay/op/tensor.h"

namespace tessera::frontend::onnx {
namespace {

using relay::Expr;

const DataType kIndex = DataType::int64();
/// Window taps of a MaxPool whose Indices are produced: one `where` per tap.
constexpr int64_t kMaxPoolTaps = 1024;
/// Largest (input elements x output elements) match mask MaxUnpool builds.
constexpr int64_t kMaxUnpoolMask = kMaxFoldElements;

Expr num(double v, DataType dtype) {
  return scalarConstant(v, dtype);
}

// LRN: y = x / (bias + alpha / size * sum of x^2 over the channel window)^beta, the window
// [c - floor((size - 1) / 2), c + ceil((size - 1) / 2)] clipped to the channels. The channels
// become the height of an (N, 1, C, rest) image, so the window sum is size times a zero-padded
// average pool that counts the padding.
void lrn(NodeContext& n) {
  const std::vector<int64_t> s = n.inputShape(0);
  if (s.size() < 2) n.fail("onnx_input", "the input must have rank >= 2 (N, C, ...)");
  const DataType dtype = n.inputDtype(0);
  if (!dtype.isFloat()) n.fail("onnx_input", "the input must be a float tensor");
  std::optional<int64_t> size = n.attrIntOpt("size");
  if (!size) n.fail("onnx_attr", "attribute 'size' is required");
  if (*size < 1 || *size > kMaxWindowValue)
    n.badAttr("size", std::to_string(*size), "values from 1 to 2^30");
  const double alpha = n.attrFloat("alpha", 1e-4), beta = n.attrFloat("beta", 0.75);
  const double bias = n.attrFloat("bias", 1.0);
  const int64_t before = (*size - 1) / 2, after = *size - 1 - before;
  const Expr x = n.input(0);
  const std::vector<int64_t> image = {s[0], 1, s[1], extentProduct(s, 2, s.size())};
  const Expr squares = relay::reshape(relay::multiply(x, x), image);
  const Expr mean = relay::nn::avgPool2d(squares, {.poolSize = {*size, 1},
                                                   .strides = {1, 1},
                                                   .padding = {before, 0, after, 0},
                                                   .countIncludePad = true});
  // alpha / size * sum = alpha * mean, with the mean over the full window size.
  const Expr base = relay::add(num(bias, dtype), relay::multiply(num(alpha, dtype), mean));
  const Expr scale = relay::reshape(relay::power(base, num(beta, dtype)), s);
  n.setOutput(0, relay::divide(x, scale));
}

// MeanVarianceNormalization, as ONNX's function body defines it: (x - E[x]) / (sqrt(E[x^2] -
// E[x]^2) + 1e-9) over `axes` (default N, H, W). The variance is floored at 0, where rounding
// would otherwise make the square root NaN for constant slices.
void meanVarianceNormalization(NodeContext& n) {
  const int64_t rank = n.inputRank(0);
  const DataType dtype = n.inputDtype(0);
  if (!dtype.isFloat()) n.fail("onnx_input", "the input must be a float tensor");
  std::vector<int64_t> axes = n.attrInts("axes").value_or(std::vector<int64_t>{0, 2, 3});
  for (int64_t& a : axes) a = n.normalizeAxis(a, rank, "axes entry");
  const relay::ReduceAttrs attrs{.axis = axes, .keepdims = true};
  const Expr x = n.input(0);
  const Expr mean = relay::mean(x, attrs);
  const Expr meanOfSquares = relay::mean(relay::multiply(x, x), attrs);
  const Expr variance =
      relay::maximum(relay::subtract(meanOfSquares, relay::multiply(mean, mean)), num(0, dtype));
  const Expr deviation = relay::add(relay::sqrt(variance), num(1e-9, dtype));
  n.setOutput(0, relay::divide(relay::subtract(x, mean), deviation));
}

// MaxUnpool: y.flat[I.flat[i]] = X.flat[i] into zeros of the unpooled shape ((in - 1) * stride -
// pads + kernel per spatial axis), zero-extended at the end to output_shape when given. Without a
// scatter op, every output position finds the last input element whose index names it (as the
// reference's loop, where a later write wins) through an (inputs x outputs) match mask, which
// bounds the sizes supported.
void maxUnpool(NodeContext& n) {
  const std::vector<int64_t> in = n.inputShape(0);
  if (in.size() < 3) n.fail("onnx_input", "X must have rank >= 3 (N, C, spatial...)");
  if (n.inputShape(1) != in) n.fail("onnx_input", "I must have the shape of X");
  if (!n.inputDtype(1).isInteger()) n.fail("onnx_input", "I must hold integers");
  const size_t spatial = in.size() - 2;
  const std::vector<int64_t> kernel = n.attrInts("kernel_shape").value_or(std::vector<int64_t>{});
  if (kernel.size() != spatial)
    n.fail("onnx_attr", "kernel_shape must have " + std::to_string(spatial) + " values");
  const std::vector<int64_t> strides =
      n.attrInts("strides").value_or(std::vector<int64_t>(spatial, 1));
  const std::vector<int64_t> pads =
      n.attrInts("pads").value_or(std::vector<int64_t>(2 * spatial, 0));
  if (strides.size() != spatial || pads.size() != 2 * spatial)
    n.fail("onnx_attr", "strides and pads must have one (pads: two) values per spatial axis");
  std::vector<int64_t> out(in.begin(), in.begin() + 2);
  for (size_t k = 0; k < spatial; ++k) {
    const std::vector<int64_t> values = {kernel[k], strides[k], pads[k], pads[k + spatial]};
    if (std::any_of(values.begin(), values.end(),
                    [](int64_t v) { return v < 0 || v > kMaxWindowValue; }))
      n.fail("onnx_attr", "kernel_shape, strides and pads must be between 0 and 2^30");
    out.push_back((in[2 + k] - 1) * strides[k] - pads[k] - pads[k + spatial] + kernel[k]);
  }
  for (int64_t d : out)
    if (d < 1 || d > kMaxWindowValue)
      n.fail("onnx_shape", "the output would have an extent " + std::to_string(d));
  // output_shape only enlarges the result: the unpooled tensor of the inferred shape sits at its
  // origin (the reference's `res[slices] = Y`), so the indices address the inferred shape.
  std::vector<std::vector<int64_t>> grow;
  if (n.hasInput(2)) {
    const std::vector<int64_t> given = n.constantInts(2, "output_shape");
    if (given.size() != in.size())
      n.fail("onnx_input", "output_shape must have " + std::to_string(in.size()) + " values");
    for (size_t k = 0; k < given.size(); ++k) {
      if (given[k] < out[k] || given[k] > kMaxWindowValue)
        n.fail("onnx_input", "output_shape[" + std::to_string(k) +
                                 "] = " + std::to_string(given[k]) +
                                 " is smaller than the unpooled extent " + std::to_string(out[k]) +
                                 " or too large");
      grow.push_back({0, given[k] - out[k]});
    }
  }
  const int64_t inputs = extentProduct(in, 0, in.size());
  const int64_t outputs = extentProduct(out, 0, out.size());
  if (static_cast<double>(inputs) * static_cast<double>(outputs) >
      static_cast<double>(kMaxUnpoolMask))
    n.fail("onnx_unsupported_size", "MaxUnpool of " + std::to_string(inputs) + " values into " +
                                        std::to_string(outputs) +
                                        " positions needs a match mask larger than the supported " +
                                        std::to_string(kMaxUnpoolMask) + " elements");
  NDArray order = NDArray::empty({inputs, 1}, kIndex);
  NDArray position = NDArray::empty({1, outputs}, kIndex);
  for (int64_t i = 0; i < inputs; ++i) order.setInt(i, i);
  for (int64_t j = 0; j < outputs; ++j) position.setInt(j, j);
  const Expr index = relay::reshape(relay::cast(n.input(1), kIndex), {inputs, 1});
  const Expr hit = relay::equal(index, relay::makeConstant(position));
  const Expr source = relay::max(relay::where(hit, relay::makeConstant(order), num(-1, kIndex)),
                                 relay::ReduceAttrs{.axis = std::vector<int64_t>{0}});
  const Expr values = relay::take(relay::reshape(n.input(0), {-1}), source, std::nullopt, "clip");
  const DataType dtype = n.inputDtype(0);
  Expr y = relay::reshape(
      relay::where(relay::greaterEqual(source, num(0, kIndex)), values, num(0, dtype)), out);
  const bool grows =
      std::any_of(grow.begin(), grow.end(), [](const std::vector<int64_t>& w) { return w[1] > 0; });
  if (grows) y = relay::nn::pad(y, num(0, dtype), {.padWidth = grow});
  n.setOutput(0, y);
}

// GroupNormalization (opset 18): the channels fall into num_groups groups and the input is viewed
// as (N, G, rest), each group normalised over its channels and spatial positions. Opset 18's scale
// and bias have one entry per group, so they apply in that view too, as (G, 1).
void groupNormalization(NodeContext& n) {
  const std::vector<int64_t> s = n.inputShape(0);
  if (s.size() < 2) n.fail("onnx_input", "the input must have rank >= 2 (N, C, ...)");
  const DataType dtype = n.inputDtype(0);
  if (!dtype.isFloat()) n.fail("onnx_input", "the input must be a float tensor");
  std::optional<int64_t> groups = n.attrIntOpt("num_groups");
  if (!groups) n.fail("onnx_attr", "attribute 'num_groups' is required");
  if (*groups < 1 || s[1] % *groups != 0)
    n.badAttr("num_groups", std::to_string(*groups),
              "a divisor of the " + std::to_string(s[1]) + " channels");
  for (size_t i : {size_t{1}, size_t{2}})
    if (n.inputShape(i) != std::vector<int64_t>{*groups})
      n.fail("onnx_input", std::string(i == 1 ? "scale" : "bias") + " must have one entry per " +
                               "group (" + std::to_string(*groups) + ") in opset 18");
  const int64_t rest = extentProduct(s, 1, s.size()) / *groups;
  const Expr x = relay::reshape(n.input(0), {s[0], *groups, rest});
  const relay::ReduceAttrs over{.axis = std::vector<int64_t>{2}, .keepdims = true};
  const Expr centred = relay::subtract(x, relay::mean(x, over));
  const Expr variance = relay::mean(relay::multiply(centred, centred), over);
  const Expr eps = num(n.attrFloat("epsilon", 1e-5), dtype);
  const Expr normalised = relay::divide(centred, relay::sqrt(relay::add(variance, eps)));
  const Expr scale = n.fold(relay::reshape(n.input(1), {*groups, 1}));
  const Expr bias = n.fold(relay::reshape(n.input(2), {*groups, 1}));
  n.setOutput(0, relay::reshape(relay::add(relay::multiply(normalised, scale), bias), s));
}

// A window attribute of Col2Im with one value per spatial axis (two for pads), each in [min, 2^30].
std::vector<int64_t> windowList(NodeContext& n, const std::string& name, size_t count,
                                int64_t fallback, int64_t min) {
  std::vector<int64_t> v = n.attrInts(name).value_or(std::vector<int64_t>(count, fallback));
  if (v.size() != count)
    n.fail("onnx_attr", "attribute '" + name + "' has " + std::to_string(v.size()) +
                            " values; the image needs " + std::to_string(count));
  for (int64_t x : v)
    if (x < min || x > kMaxWindowValue)
      n.badAttr(name, std::to_string(x), "values from " + std::to_string(min) + " to 2^30");
  return v;
}

// Col2Im (opset 18): every image position sums the column entries whose block tap lands on it.
// Which entry tap b of position y reads (column c * B + b, block position l) is known at import,
// so the columns, viewed as (N, C, B * L) with a zero appended for "no entry", are gathered by one
// `take` at a constant (B, positions) table and summed over the taps.
void col2Im(NodeContext& n) {
  const std::vector<int64_t> in = n.inputShape(0);
  if (in.size() != 3) n.fail("onnx_input", "the input must be (N, C x prod(block_shape), L)");
  const std::vector<int64_t> image = n.constantInts(1, "image_shape");
  const std::vector<int64_t> block = n.constantInts(2, "block_shape");
  const size_t s = image.size();
  if (s == 0 || block.size() != s)
    n.fail("onnx_input", "image_shape and block_shape must have one entry per spatial axis");
  const std::vector<int64_t> dilations = windowList(n, "dilations", s, 1, 1);
  const std::vector<int64_t> strides = windowList(n, "strides", s, 1, 1);
  const std::vector<int64_t> pads = windowList(n, "pads", 2 * s, 0, 0);
  int64_t taps = 1, positions = 1, columns = 1;
  std::vector<int64_t> perAxis(s);  // blocks along each axis
  for (size_t d = 0; d < s; ++d) {
    if (image[d] < 1 || block[d] < 1 || image[d] > kMaxWindowValue || block[d] > kMaxWindowValue)
      n.fail("onnx_input", "image_shape and block_shape must hold extents from 1 to 2^30");
    const int64_t span = (block[d] - 1) * dilations[d] + 1;
    const int64_t total = image[d] + pads[d] + pads[d + s];
    if (total < span)
      n.fail("onnx_input",
             "the block does not fit the padded image along axis " + std::to_string(d));
    perAxis[d] = (total - span) / strides[d] + 1;
    if (__builtin_mul_overflow(taps, block[d], &taps) ||
        __builtin_mul_overflow(positions, image[d], &positions) ||
        __builtin_mul_overflow(columns, perAxis[d], &columns) || taps > kMaxFoldElements ||
        positions > kMaxFoldElements)
      n.fail("onnx_unsupported_size", "Col2Im's gather table would exceed " +
                                          std::to_string(kMaxFoldElements) + " elements");
  }
  if (in[1] % taps != 0)
    n.fail("onnx_input", "the input's " + std::to_string(in[1]) +
                             " channels are no multiple of the block's " + std::to_string(taps));
  if (in[2] != columns)
    n.fail("onnx_input", "the input has " + std::to_string(in[2]) + " blocks but the image holds " +
                             std::to_string(columns));
  if (taps * positions > kMaxFoldElements)
    n.fail("onnx_unsupported_size",
           "Col2Im's gather table would exceed " + std::to_string(kMaxFoldElements) + " elements");
  const int64_t none = taps * columns;  // the appended zero
  NDArray table = NDArray::empty({taps, positions}, kIndex);
  std::vector<int64_t> k(s), y(s);
  for (int64_t b = 0; b < taps; ++b) {
    for (int64_t rest = b, d = static_cast<int64_t>(s) - 1; d >= 0; --d)
      k[d] = rest % block[d], rest /= block[d];
    for (int64_t p = 0; p < positions; ++p) {
      for (int64_t rest = p, d = static_cast<int64_t>(s) - 1; d >= 0; --d)
        y[d] = rest % image[d], rest /= image[d];
      int64_t l = 0;
      bool hit = true;
      for (size_t d = 0; d < s && hit; ++d) {
        const int64_t t = y[d] + pads[d] - k[d] * dilations[d];
        hit = t >= 0 && t % strides[d] == 0 && t / strides[d] < perAxis[d];
        l = l * perAxis[d] + t / strides[d];
      }
      table.setInt(b * positions + p, hit ? b * columns + l : none);
    }
  }
  const int64_t channels = in[1] / taps;
  const DataType dtype = n.inputDtype(0);
  const Expr flat = relay::reshape(n.input(0), {in[0], channels, none});
  const Expr padded =
      relay::concatenate({flat, relay::zeros({in[0], channels, 1}, dtype)}, /*axis=*/2);
  const Expr taken = relay::take(padded, relay::makeConstant(table), 2, "clip");
  std::vector<int64_t> out = {in[0], channels};
  out.insert(out.end(), image.begin(), image.end());
  n.setOutput(0, relay::reshape(
                     relay::sum(taken, relay::ReduceAttrs{.axis = std::vector<int64_t>{2}}), out));
}

constexpr ConverterRow kRows[] = {
    {"Col2Im", col2Im,
     "opset 18; any spatial rank; image_shape and block_shape known at import; dilations, pads, "
     "strides; block taps x image positions <= 4M"},
    {"GroupNormalization", groupNormalization, "opset 18 (scale and bias per group); epsilon"},
    {"LRN", lrn, "any rank >= 2; size, alpha, beta, bias"},
    {"MaxUnpool", maxUnpool,
     "any spatial rank; output_shape known at import (pads the unpooled result at the end); inputs "
     "x outputs <= 4M elements"},
    {"MeanVarianceNormalization", meanVarianceNormalization, "axes"},
};

}  // namespace

Expr maxPoolIndices(NodeContext& n, const Expr& data, const Expr& pooled,
                    const std::vector<int64_t>& kernel, const std::vector<int64_t>& strides,
                    const std::vector<int64_t>& dilations, const std::vector<int64_t>& pads,
                    bool columnMajor) {
  const std::vector<int64_t> in = n.shapeOf(data), out = n.shapeOf(pooled);
  const int64_t batch = in[0], channels = in[1], height = in[2], width = in[3];
  const int64_t outH = out[2], outW = out[3];
  if (kernel[0] * kernel[1] > kMaxPoolTaps)
    n.fail("onnx_unsupported_size", "MaxPool's Indices output supports windows of at most " +
                                        std::to_string(kMaxPoolTaps) + " elements");
  // The taps read a zero-padded copy; positions in the padding are never chosen (the mask below),
  // and ceil_mode's last window may reach past the ONNX pads, hence the extra end padding.
  const int64_t needH = (outH - 1) * strides[0] + (kernel[0] - 1) * dilations[0] + 1;
  const int64_t needW = (outW - 1) * strides[1] + (kernel[1] - 1) * dilations[1] + 1;
  const int64_t bottom = std::max(pads[2], needH - height - pads[0]);
  const int64_t right = std::max(pads[3], needW - width - pads[1]);
  const Expr padded =
      relay::nn::pad(data, num(0, n.dtypeOf(data)),
                     {.padWidth = {{0, 0}, {0, 0}, {pads[0], bottom}, {pads[1], right}}});
  // Walking the taps backwards, the earliest tap (in ONNX's row-major scan) that equals the
  // maximum is written last: the first maximum wins ties, as in ONNX Runtime.
  Expr chosen = relay::zeros({batch, channels, outH, outW}, kIndex);
  for (int64_t tap = kernel[0] * kernel[1] - 1; tap >= 0; --tap) {
    const int64_t i = tap / kernel[1], j = tap % kernel[1];
    NDArray where = NDArray::empty({outH, outW}, kIndex);
    NDArray inside = NDArray::empty({outH, outW}, DataType::boolType());
    bool anyInside = false, allInside = true;
    for (int64_t oh = 0; oh < outH; ++oh)
      for (int64_t ow = 0; ow < outW; ++ow) {
        const int64_t h = oh * strides[0] - pads[0] + i * dilations[0];
        const int64_t w = ow * strides[1] - pads[1] + j * dilations[1];
        const bool ok = h >= 0 && h < height && w >= 0 && w < width;
        anyInside |= ok;
        allInside &= ok;
        where.setInt(oh * outW + ow, !ok ? 0 : columnMajor ? h + w * height : h * width + w);
        inside.setInt(oh * outW + ow, ok ? 1 : 0);
      }
    if (!anyInside) continue;
    const int64_t top = i * dilations[0], left = j * dilations[1];
    const Expr value = relay::stridedSlice(
        padded, {0, 0, top, left},
        {batch, channels, top + (outH - 1) * strides[0] + 1, left + (outW - 1) * strides[1] + 1},
        {1, 1, strides[0], strides[1]});
    Expr hit = relay::equal(value, pooled);
    if (!allInside) hit = relay::logicalAnd(hit, relay::makeConstant(inside));
    chosen = relay::where(hit, relay::makeConstant(where), chosen);
  }
  NDArray planes = NDArray::empty({batch, channels, 1, 1}, kIndex);
  for (int64_t p = 0; p < batch * channels; ++p) planes.setInt(p, p * height * width);
  return relay::add(chosen, relay::makeConstant(planes));
}

std::span<const ConverterRow> poolExtraConverters() {
  return kRows;
}

}  // namespace tessera::frontend::onnx
