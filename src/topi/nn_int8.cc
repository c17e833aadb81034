// The int8 dot-product computes (topi/nn_int8.h): the weight packings (VNNI's groups of 4 bytes
// with a compensation row, AVX2's int16 pairs), the in-kernel data repacking to the same groups,
// and conv2d / dense over them.
#include "topi/nn_int8.h"

#include <cstring>

#include "support/check.h"
#include "support/diagnostic.h"

namespace tessera::topi {

PrimExpr int32FromBytes(const std::function<PrimExpr(int64_t)>& byteAt) {
  const DataType u32 = DataType::uint32();
  PrimExpr word;
  for (int64_t k = 0; k < kInt8Depth; ++k) {
    PrimExpr byte = tir::cast(u32, tir::cast(DataType::uint8(), byteAt(k)));
    if (k > 0) byte = tir::call(u32, "tir.shift_left", {byte, tir::intImm(8 * k, u32)});
    word = word ? tir::call(u32, "tir.bitwise_or", {word, byte}) : byte;
  }
  return tir::cast(DataType::int32(), word);
}

namespace {

int64_t ceilDiv(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

// The output's height and width: a window of kh x kw taps spaced by the dilation, moved by the
// strides over the padded input. Not positive where the window does not fit.
std::array<int64_t, 2> outputExtent(const std::vector<int64_t>& dataShape, int64_t kh, int64_t kw,
                                    const Conv2DParams& p) {
  const int64_t spanY = (kh - 1) * p.dilation[0] + 1, spanX = (kw - 1) * p.dilation[1] + 1;
  return {(dataShape[2] + p.padding[0] + p.padding[2] - spanY) / p.strides[0] + 1,
          (dataShape[3] + p.padding[1] + p.padding[3] - spanX) / p.strides[1] + 1};
}

// int8 data becomes uint8 by adding this; uint8 data is taken as it is.
int64_t dataShift(DataType dtype) {
  return dtype == DataType::int8() ? 128 : 0;
}

// What the packed weight's form asks of a kernel: the reduction elements per step, the dtype
// and stage name of the repacked data, the shift that makes the data unsigned and the rows past
// the weight's channel groups (VNNI's compensation row).
struct DotForm {
  int64_t depth;
  DataType repacked;
  std::string repackName;
  int64_t shift;
  int64_t extraRows;
};

// The form of a packed weight for data of `channels` reduction elements: int16 is the AVX2
// pairs; int8 is VNNI's groups of 4 bytes, with the compensation row or (the byte form, for data
// in [0, 127]) without it.
DotForm formOf(const Tensor& data, const Tensor& packed, int64_t channels) {
  if (packed.dtype() == DataType::int16())
    return {kInt8PairDepth, DataType::int16(), kInt8PairRepackStage, 0, 0};
  if (packed.ndim() == 6 &&
      constDim(packed.shape()[1], "int8 form") == ceilDiv(channels, kInt8Depth))
    return {kInt8Depth, DataType::uint8(), kInt8ByteRepackStage, 0, 0};
  return {kInt8Depth, DataType::uint8(), kInt8RepackStage, dataShift(data.dtype()), 1};
}

DotForm requireInt8Operands(const Tensor& data, const Tensor& packed, int64_t channels,
                            const std::string& op) {
  if ((data.dtype() != DataType::int8() && data.dtype() != DataType::uint8()) ||
      (packed.dtype() != DataType::int8() && packed.dtype() != DataType::int16()))
    throwDiagnostic("topi_int8", op + ": needs int8 or uint8 data and an int8 weight, found " +
                                     data.dtype().name() + " and " + packed.dtype().name());
  const DotForm form = formOf(data, packed, channels);
  if (packed.ndim() != 6 || constDim(packed.shape()[4], op) != kInt8Lanes ||
      constDim(packed.shape()[5], op) != form.depth)
    throwDiagnostic("topi_int8",
                    op + ": the weight is not packed by packInt8Weight or packInt8WeightPairs");
  return form;
}

// A data value as the dot product reads it: shifted into [0, 256) when signed (VNNI), widened
// to int16 (pairs), as uint8 (bytes, whose values are in [0, 127]).
PrimExpr repackedValue(const PrimExpr& v, const DotForm& form) {
  if (form.repacked == DataType::int16()) return tir::cast(DataType::int16(), v);
  if (form.shift == 0) return tir::cast(DataType::uint8(), v);
  return tir::cast(DataType::uint8(), tir::cast(DataType::int32(), v) + form.shift);
}

// The compensation of lane `lane` of block `block`: the int32 stored in the packed weight's extra
// row `row`.
PrimExpr compensation(const Tensor& packed, const PrimExpr& block, const PrimExpr& lane,
                      int64_t row) {
  return int32FromBytes([&](int64_t k) {
    return packed(block, tir::intImm(row), tir::intImm(0), tir::intImm(0), lane, tir::intImm(k));
  });
}

// The block of 16 and the lane of output channel `c`.
struct ChannelPosition {
  PrimExpr block, lane;
};
ChannelPosition positionOf(const PrimExpr& c) {
  return {tir::floordiv(c, tir::intImm(kInt8Lanes, c->dtype)),
          tir::floormod(c, tir::intImm(kInt8Lanes, c->dtype))};
}

// The output stage's value: an accumulator plus its channel's compensation when the data was
// shifted.
PrimExpr compensated(const PrimExpr& acc, const Tensor& packed, const ChannelPosition& at,
                     int64_t shift, int64_t compensationRow) {
  if (shift == 0) return acc;
  return acc + compensation(packed, at.block, at.lane, compensationRow);
}

// The constant shapes of a conv2d's operands, checked as both conv2d computes need them.
struct ConvOperands {
  std::vector<int64_t> data, packed;
  int64_t groups;  // input-channel groups of the form's depth
  DotForm form;
};
ConvOperands convOperands(const Tensor& data, const Tensor& packed, const Conv2DParams& p,
                          const std::string& op) {
  const std::vector<int64_t> ds = constShape(data, op);
  if (ds.size() != 4) throwDiagnostic("topi_int8", op + ": needs NCHW data");
  const DotForm form = requireInt8Operands(data, packed, ds[1], op);
  ConvOperands o{ds, constShape(packed, op), 0, form};
  o.groups = o.packed[1] - form.extraRows;
  if (o.data.size() != 4 || ceilDiv(o.data[1], form.depth) != o.groups || p.groups != 1)
    throwDiagnostic("topi_int8", op + ": needs NCHW data whose channels the weight was packed for");
  if (p.outDtype != DataType::int32())
    throwDiagnostic("topi_int8", op + ": the output dtype must be int32");
  return o;
}

// The dims of an int8 (O, I, KH, KW) weight, or of a dense (N, K) one as (N, K, 1, 1), checked
// for a packing (`packing` names it in the message).
struct WeightDims {
  int64_t outC, inC, kh, kw;
};
WeightDims int8WeightDims(const NDArray& weight, const std::string& packing) {
  const std::vector<int64_t>& s = weight.shape();
  TS_CHECK(weight.dtype() == DataType::int8() && (s.size() == 4 || s.size() == 2) && s[0] > 0)
      << packing << ": needs an int8 (O, I, KH, KW) or (N, K) weight";
  return {s[0], s[1], s.size() == 4 ? s[2] : 1, s.size() == 4 ? s[3] : 1};
}

}  // namespace

bool int8Packable(int64_t outChannels) {
  return outChannels > 0;
}

NDArray packInt8Weight(const NDArray& weight, bool compensation) {
  const auto [outC, inC, kh, kw] = int8WeightDims(weight, "packInt8Weight");
  const int64_t groups = ceilDiv(inC, kInt8Depth);
  const int64_t rows = groups + (compensation ? 1 : 0);
  // Output channels past O (to a whole block of 16) have zero weights and compensation.
  NDArray packed = NDArray::empty(
      packedInt8Shape(weight.shape(), compensation ? Int8Form::kVnni : Int8Form::kBytes),
      weight.dtype());
  auto* dst = static_cast<int8_t*>(packed.data());
  std::memset(dst, 0, packed.nbytes());
  const auto* src = static_cast<const int8_t*>(weight.data());
  // Index of [o, c, y, x, lane, k] in the packed array.
  auto at = [&](int64_t o, int64_t c, int64_t y, int64_t x, int64_t lane, int64_t k) {
    return ((((o * rows + c) * kh + y) * kw + x) * kInt8Lanes + lane) * kInt8Depth + k;
  };
  for (int64_t o = 0; o < outC; ++o) {
    const int64_t block = o / kInt8Lanes, lane = o % kInt8Lanes;
    uint32_t sum = 0;  // wraps as the kernel's int32 arithmetic does
    for (int64_t c = 0; c < inC; ++c)
      for (int64_t y = 0; y < kh; ++y)
        for (int64_t x = 0; x < kw; ++x) {
          const int8_t w = src[((o * inC + c) * kh + y) * kw + x];
          dst[at(block, c / kInt8Depth, y, x, lane, c % kInt8Depth)] = w;
          sum += static_cast<uint32_t>(static_cast<int32_t>(w));
        }
    const uint32_t comp = 0u - sum * 128u;  // -128 * sum(w), modulo 2^32
    if (compensation)
      for (int64_t k = 0; k < kInt8Depth; ++k)
        dst[at(block, groups, 0, 0, lane, k)] = static_cast<int8_t>((comp >> (8 * k)) & 0xff);
  }
  return packed;
}

NDArray packInt8WeightPairs(const NDArray& weight) {
  const auto [outC, inC, kh, kw] = int8WeightDims(weight, "packInt8WeightPairs");
  const int64_t groups = ceilDiv(inC, kInt8PairDepth);
  NDArray packed =
      NDArray::empty(packedInt8Shape(weight.shape(), Int8Form::kPairs), DataType::int16());
  auto* dst = static_cast<int16_t*>(packed.data());
  std::memset(dst, 0, packed.nbytes());
  const auto* src = static_cast<const int8_t*>(weight.data());
  for (int64_t o = 0; o < outC; ++o)
    for (int64_t c = 0; c < inC; ++c)
      for (int64_t y = 0; y < kh; ++y)
        for (int64_t x = 0; x < kw; ++x) {
          const int64_t at =
              ((((o / kInt8Lanes * groups + c / kInt8PairDepth) * kh + y) * kw + x) * kInt8Lanes +
               o % kInt8Lanes) *
                  kInt8PairDepth +
              c % kInt8PairDepth;
          dst[at] = src[((o * inC + c) * kh + y) * kw + x];
        }
  return packed;
}

std::vector<int64_t> packedInt8Shape(const std::vector<int64_t>& s, Int8Form form) {
  const int64_t depth = form == Int8Form::kPairs ? kInt8PairDepth : kInt8Depth;
  return {ceilDiv(s[0], kInt8Lanes),
          ceilDiv(s[1], depth) + (form == Int8Form::kVnni ? 1 : 0),
          s.size() == 4 ? s[2] : 1,
          s.size() == 4 ? s[3] : 1,
          kInt8Lanes,
          depth};
}

// The output channels of a packed weight: `outChannels`, or all its blocks when 0.
int64_t channelsOf(const std::vector<int64_t>& packedShape, int64_t outChannels,
                   const std::string& op) {
  const int64_t all = packedShape[0] * kInt8Lanes;
  if (outChannels == 0) return all;
  if (outChannels > all || outChannels <= all - kInt8Lanes)
    throwDiagnostic("topi_int8", op + ": " + std::to_string(outChannels) +
                                     " output channels do not fit the packed weight's " +
                                     std::to_string(packedShape[0]) + " blocks");
  return outChannels;
}

Tensor conv2dNchwInt8(const Tensor& data, const Tensor& packed, const Conv2DParams& p,
                      int64_t outChannels) {
  const std::string op = "conv2d_nchw_int8";
  const ConvOperands operands = convOperands(data, packed, p, op);
  const std::vector<int64_t>&ds = operands.data, &ws = operands.packed;
  const int64_t groups = operands.groups;
  const DotForm& form = operands.form;
  const int64_t shift = form.shift;
  const auto [oh, ow] = outputExtent(ds, ws[2], ws[3], p);
  if (oh <= 0 || ow <= 0)
    throwDiagnostic("topi_int8", op + ": the window exceeds the padded input");

  // A strided pointwise convolution reads one pixel in strides[0] x strides[1]: only those are
  // repacked, and the products then read the repacked data with unit steps.
  const bool subsample = ws[2] == 1 && ws[3] == 1 &&
                         p.padding == std::array<int64_t, 4>{0, 0, 0, 0} &&
                         (p.strides[0] > 1 || p.strides[1] > 1);
  const std::array<int64_t, 2> step = subsample ? p.strides : std::array<int64_t, 2>{1, 1};
  const std::array<int64_t, 2> readStride = subsample ? std::array<int64_t, 2>{1, 1} : p.strides;
  // The repacked rows are whole vectors of kInt8Lanes columns, so that the schedule repacks them
  // with vector loads and stores (schedule_int8.cc); the columns past the row read as padding.
  const int64_t columns = subsample ? ow : ds[3] + p.padding[1] + p.padding[3];
  const int64_t vectorColumns = ceilDiv(columns, kInt8Lanes) * kInt8Lanes;
  const int64_t lastColumn = subsample ? ow : ds[3] + p.padding[1];  // past it: padding
  // Padding and missing channels read as the value 0 would have after the shift. The condition
  // selects the loaded int8 itself, so that vectorized it is a masked load.
  Tensor repacked = te::compute(
      shapeOf({ds[0], groups, subsample ? oh : ds[2] + p.padding[0] + p.padding[2], vectorColumns,
               form.depth}),
      [&](Var n, Var c, Var y, Var x, Var k) -> PrimExpr {
        PrimExpr channel = addIdx(mulIdx(c, form.depth), k);
        PrimExpr inside;
        auto require = [&](PrimExpr cond) {
          inside = inside ? tir::logicalAnd(inside, cond) : cond;
        };
        if (ds[1] % form.depth != 0) require(tir::lt(channel, tir::intImm(ds[1])));
        if (p.padding[0] != 0) require(tir::ge(y, tir::intImm(p.padding[0])));
        if (p.padding[2] != 0) require(tir::lt(y, tir::intImm(ds[2] + p.padding[0])));
        if (p.padding[1] != 0) require(tir::ge(x, tir::intImm(p.padding[1])));
        if (lastColumn != vectorColumns) require(tir::lt(x, tir::intImm(lastColumn)));
        PrimExpr v = data(n, channel, addIdx(mulIdx(y, step[0]), -p.padding[0]),
                          addIdx(mulIdx(x, step[1]), -p.padding[1]));
        if (inside) v = tir::ifThenElse(inside, v, tir::intImm(0, data.dtype()));
        return repackedValue(v, form);
      },
      te::ComputeOptions{.name = form.repackName, .tag = "injective,pad"});

  IterVar rc = te::reduceAxis(0, groups, "rc");
  IterVar ry = te::reduceAxis(0, ws[2], "ry");
  IterVar rx = te::reduceAxis(0, ws[3], "rx");
  IterVar rk = te::reduceAxis(0, form.depth, "rk");
  const DataType i32 = DataType::int32();
  Tensor acc = te::compute(
      shapeOf({ds[0], ws[0], oh, ow, kInt8Lanes}),
      [&](Var n, Var oc, Var y, Var x, Var lane) {
        PrimExpr row = addIdx(mulIdx(y, readStride[0]), mulIdx(ry.var, p.dilation[0]));
        PrimExpr col = addIdx(mulIdx(x, readStride[1]), mulIdx(rx.var, p.dilation[1]));
        return te::sum(tir::cast(i32, repacked(n, rc.var, row, col, rk.var)) *
                           tir::cast(i32, packed(oc, rc.var, ry.var, rx.var, lane, rk.var)),
                       {rc, ry, rx, rk});
      },
      te::ComputeOptions{
          .name = op, .tag = op, .indexNames = {"n", "oc_chunk", "oh", "ow", "oc_block"}});
  return te::compute(
      shapeOf({ds[0], channelsOf(ws, outChannels, op), oh, ow}),
      [&](Var n, Var c, Var y, Var x) {
        const ChannelPosition at = positionOf(c);
        return compensated(acc(n, at.block, y, x, at.lane), packed, at, shift, groups);
      },
      te::ComputeOptions{
          .name = "T_conv2d_int8_unpack", .tag = "injective", .indexNames = {"n", "c", "h", "w"}});
}

bool conv2d1x1Int8Applies(const std::vector<int64_t>& dataShape,
                          const std::vector<int64_t>& weightShape, const Conv2DParams& p) {
  if (dataShape.size() != 4 || weightShape.size() != 4) return false;
  if (weightShape[2] != 1 || weightShape[3] != 1 || p.groups != 1 ||
      p.padding != std::array<int64_t, 4>{0, 0, 0, 0} || p.strides[0] < 1 || p.strides[1] < 1)
    return false;
  // The padding pixels cost products: past an eighth of the pixels (a 7x7 image computes 64 for
  // 49) only a short reduction, whose output stage weighs more, gains from whole pixel vectors.
  const auto [height, width] = outputExtent(dataShape, 1, 1, p);
  const int64_t pixels = height * width;
  const int64_t padding = ceilDiv(pixels, kInt8Lanes) * kInt8Lanes - pixels;
  return padding * 8 <= pixels || dataShape[1] <= kMaxPaddedPixelReduction;
}

bool isChannelAddend(const std::vector<int64_t>& shape, int64_t channels) {
  if (shape == std::vector<int64_t>{channels, 1, 1}) return true;
  return shape == std::vector<int64_t>{1, channels, 1, 1};
}

PrimExpr channelAddend(const Tensor& bias, const PrimExpr& oc) {
  const std::vector<int64_t> shape = constShape(bias, "conv2d bias");
  const int64_t channels = shape.size() == 3 ? shape[0] : shape[1];
  // Clamped to the real channels: the padding channels' sums are never read.
  const PrimExpr c = tir::min(oc, tir::intImm(channels - 1, oc->dtype));
  const PrimExpr zero = tir::intImm(0, oc->dtype);
  return shape.size() == 3 ? bias(c, zero, zero) : bias(zero, c, zero, zero);
}

Tensor conv2dNchw1x1Int8(const Tensor& data, const Tensor& packed, const Conv2DParams& p,
                         int64_t outChannels, const std::optional<Tensor>& bias) {
  const std::string op = "conv2d_1x1_int8";
  const ConvOperands operands = convOperands(data, packed, p, op);
  const std::vector<int64_t>&ds = operands.data, &ws = operands.packed;
  const int64_t groups = operands.groups;
  if (!conv2d1x1Int8Applies(ds, {ws[0] * kInt8Lanes, ds[1], ws[2], ws[3]}, p))
    throwDiagnostic("topi_int8", op + ": needs a pointwise NCHW conv2d over whole pixel vectors");
  const DotForm& form = operands.form;
  const int64_t shift = form.shift;
  const auto [height, width] = outputExtent(ds, 1, 1, p);
  const int64_t pixels = height * width;
  // The pixels padded to whole vectors: the padding pixels' products are computed and never read.
  const int64_t paddedPixels = ceilDiv(pixels, kInt8Lanes) * kInt8Lanes;
  // A strided one reads one pixel in strides[0] x strides[1]: those are copied out first, a row at
  // a time (strided vector loads), so that 16 consecutive output pixels are 16 consecutive bytes
  // of the copy even where they span two rows.
  Tensor source = data;
  if (height != ds[2] || width != ds[3])
    source = te::compute(
        shapeOf({ds[0], ds[1], height, width}),
        [&](Var n, Var c, Var y, Var x) {
          return data(n, c, mulIdx(y, p.strides[0]), mulIdx(x, p.strides[1]));
        },
        te::ComputeOptions{.name = "data_subsampled", .tag = "injective"});

  // (N, I/4, H*W, 4): 16 consecutive pixels of a channel group are 64 contiguous bytes.
  Tensor repacked = te::compute(
      shapeOf({ds[0], groups, paddedPixels, form.depth}),
      [&](Var n, Var c, Var pixel, Var k) -> PrimExpr {
        PrimExpr channel = addIdx(mulIdx(c, form.depth), k);
        PrimExpr w = tir::intImm(width, pixel->dtype);
        PrimExpr v = source(n, channel, tir::floordiv(pixel, w), tir::floormod(pixel, w));
        PrimExpr inside;
        if (ds[1] % form.depth != 0) inside = tir::lt(channel, tir::intImm(ds[1]));
        if (paddedPixels != pixels) {
          PrimExpr real = tir::lt(pixel, tir::intImm(pixels, pixel->dtype));
          inside = inside ? tir::logicalAnd(inside, real) : real;
        }
        if (inside) v = tir::ifThenElse(inside, v, tir::intImm(0, data.dtype()));
        return repackedValue(v, form);
      },
      te::ComputeOptions{.name = form.repackName, .tag = "injective,pad"});
  IterVar rc = te::reduceAxis(0, groups, "rc");
  IterVar rk = te::reduceAxis(0, form.depth, "rk");
  const DataType i32 = DataType::int32();
  Tensor acc = te::compute(
      shapeOf({ds[0], ws[0] * kInt8Lanes, paddedPixels}),
      [&](Var n, Var oc, Var pixel) {
        const ChannelPosition at = positionOf(oc);
        // The shifted data's compensation is the accumulators' start value (one broadcast load
        // per tile), so the output stage adds only the bias: one broadcast operand where the
        // bias and compensation took a scalar load, subtract, broadcast and add.
        te::ReduceOptions start;
        if (shift != 0) start.init = compensation(packed, at.block, at.lane, groups);
        if (bias) {
          const PrimExpr addend = channelAddend(*bias, oc);
          start.init = start.init ? start.init + addend : addend;
        }
        return te::sum(tir::cast(i32, repacked(n, rc.var, pixel, rk.var)) *
                           tir::cast(i32, packed(at.block, rc.var, tir::intImm(0), tir::intImm(0),
                                                 at.lane, rk.var)),
                       {rc, rk}, start);
      },
      te::ComputeOptions{.name = op, .tag = op, .indexNames = {"n", "oc", "pixel"}});
  return te::compute(
      shapeOf({ds[0], channelsOf(ws, outChannels, op), height, width}),
      [&](Var n, Var c, Var y, Var x) { return acc(n, c, addIdx(mulIdx(y, width), x)); },
      te::ComputeOptions{.name = "T_conv2d_1x1_int8_unpack",
                         .tag = "injective",
                         .indexNames = {"n", "c", "h", "w"}});
}

bool conv2dInt8OverPixelsApplies(const std::vector<int64_t>& dataShape,
                                 const std::vector<int64_t>& weightShape, const Conv2DParams& p) {
  if (dataShape.size() != 4 || weightShape.size() != 4 || p.groups != 1) return false;
  // Pointwise ones, strided too, take the pointwise product over pixels (conv2dNchw1x1Int8).
  if (weightShape[2] * weightShape[3] == 1) return false;
  const int64_t steps = ceilDiv(dataShape[1], kInt8Depth) * weightShape[2] * weightShape[3];
  // Rows of whole vectors: a vector of pixels spanning two rows reads no affine span of the data,
  // and the data copy would be a scalar loop.
  const int64_t ow = outputExtent(dataShape, weightShape[2], weightShape[3], p)[1];
  return steps <= kMaxInt8PixelSteps && ow > 0 && ow % kInt8Lanes == 0;
}

Tensor conv2dNchwInt8OverPixels(const Tensor& data, const Tensor& packed, const Conv2DParams& p,
                                int64_t outChannels, const std::optional<Tensor>& bias) {
  const std::string op = "conv2d_pixels_int8";
  const ConvOperands operands = convOperands(data, packed, p, op);
  const std::vector<int64_t>&ds = operands.data, &ws = operands.packed;
  const int64_t groups = operands.groups, kh = ws[2], kw = ws[3];
  const DotForm& form = operands.form;
  const auto [oh, ow] = outputExtent(ds, kh, kw, p);
  if (oh <= 0 || ow <= 0)
    throwDiagnostic("topi_int8", op + ": the window exceeds the padded input");
  if (!conv2dInt8OverPixelsApplies(ds, {ws[0] * kInt8Lanes, ds[1], kh, kw}, p))
    throwDiagnostic("topi_int8", op + ": needs a conv2d with few channel groups and taps and " +
                                     "output rows of whole vectors of 16");
  const int64_t pixels = oh * ow;

  // (N, I/4, KH, KW, P, 4): for each tap, the input value each output pixel multiplies by it
  // (zero in the padding), 16 consecutive pixels 64 contiguous bytes.
  Tensor repacked = te::compute(
      shapeOf({ds[0], groups, kh, kw, pixels, form.depth}),
      [&](const std::vector<Var>& i) -> PrimExpr {
        const Var &n = i[0], &c = i[1], &ry = i[2], &rx = i[3], &pixel = i[4], &k = i[5];
        const DataType t = pixel->dtype;
        PrimExpr channel = addIdx(mulIdx(c, form.depth), k);
        PrimExpr y =
            addIdx(mulIdx(tir::floordiv(pixel, tir::intImm(ow, t)), p.strides[0]), -p.padding[0]);
        y = addIdx(y, mulIdx(ry, p.dilation[0]));
        PrimExpr x =
            addIdx(mulIdx(tir::floormod(pixel, tir::intImm(ow, t)), p.strides[1]), -p.padding[1]);
        x = addIdx(x, mulIdx(rx, p.dilation[1]));
        PrimExpr inside = tir::logicalAnd(
            tir::lt(channel, tir::intImm(ds[1], t)),
            tir::logicalAnd(
                tir::logicalAnd(tir::ge(y, tir::intImm(0, t)), tir::lt(y, tir::intImm(ds[2], t))),
                tir::logicalAnd(tir::ge(x, tir::intImm(0, t)), tir::lt(x, tir::intImm(ds[3], t)))));
        PrimExpr v = tir::ifThenElse(inside, data(n, channel, y, x), tir::intImm(0, data.dtype()));
        return repackedValue(v, form);
      },
      te::ComputeOptions{.name = form.repackName, .tag = "injective,pad"});
  IterVar rc = te::reduceAxis(0, groups, "rc"), ry = te::reduceAxis(0, kh, "ry"),
          rx = te::reduceAxis(0, kw, "rx"), rk = te::reduceAxis(0, form.depth, "rk");
  const DataType i32 = DataType::int32();
  Tensor acc = te::compute(
      shapeOf({ds[0], ws[0] * kInt8Lanes, pixels}),
      [&](Var n, Var oc, Var pixel) {
        const ChannelPosition at = positionOf(oc);
        te::ReduceOptions start;
        if (bias) start.init = channelAddend(*bias, oc);
        return te::sum(
            tir::cast(i32, repacked(n, rc.var, ry.var, rx.var, pixel, rk.var)) *
                tir::cast(i32, packed(at.block, rc.var, ry.var, rx.var, at.lane, rk.var)),
            {rc, ry, rx, rk}, start);
      },
      te::ComputeOptions{.name = op, .tag = op, .indexNames = {"n", "oc", "pixel"}});
  return te::compute(
      shapeOf({ds[0], channelsOf(ws, outChannels, op), oh, ow}),
      [&](Var n, Var c, Var y, Var x) {
        return compensated(acc(n, c, addIdx(mulIdx(y, ow), x)), packed, positionOf(c), form.shift,
                           groups);
      },
      te::ComputeOptions{.name = "T_conv2d_pixels_int8_unpack",
                         .tag = "injective",
                         .indexNames = {"n", "c", "h", "w"}});
}

Tensor denseInt8(const Tensor& data, const Tensor& packed, int64_t outChannels) {
  const std::string op = "dense_int8";
  const std::vector<int64_t> ds = constShape(data, op), ws = constShape(packed, op);
  if (ds.empty()) throwDiagnostic("topi_int8", op + ": needs (..., K) data");
  const DotForm form = requireInt8Operands(data, packed, ds.back(), op);
  const int64_t groups = ws[1] - form.extraRows, depth = ds.back();
  if (ds.size() < 2 || ceilDiv(depth, form.depth) != groups || ws[2] != 1 || ws[3] != 1)
    throwDiagnostic("topi_int8", op + ": needs (..., K) data whose K the weight was packed for");
  const int64_t shift = form.shift;
  const size_t rows = ds.size() - 1;  // the leading dims

  std::vector<int64_t> repackedShape(ds.begin(), ds.end() - 1);
  repackedShape.insert(repackedShape.end(), {groups, form.depth});
  Tensor repacked = te::compute(
      shapeOf(repackedShape),
      [&](const std::vector<Var>& i) -> PrimExpr {
        std::vector<PrimExpr> idx(i.begin(), i.begin() + static_cast<long>(rows));
        PrimExpr k = addIdx(mulIdx(i[rows], form.depth), i[rows + 1]);
        idx.push_back(k);
        PrimExpr v = repackedValue(data(idx), form);
        if (depth % form.depth == 0) return v;
        return tir::ifThenElse(tir::lt(k, tir::intImm(depth)), v,
                               tir::intImm(shift, form.repacked));
      },
      te::ComputeOptions{.name = form.repackName, .tag = "injective,pad"});

  IterVar rc = te::reduceAxis(0, groups, "rc");
  IterVar rk = te::reduceAxis(0, form.depth, "rk");
  const DataType i32 = DataType::int32();
  std::vector<int64_t> accShape(ds.begin(), ds.end() - 1);
  accShape.insert(accShape.end(), {ws[0], kInt8Lanes});
  Tensor acc = te::compute(
      shapeOf(accShape),
      [&](const std::vector<Var>& i) {
        std::vector<PrimExpr> idx(i.begin(), i.begin() + static_cast<long>(rows));
        idx.insert(idx.end(), {rc.var, rk.var});
        return te::sum(tir::cast(i32, repacked(idx)) *
                           tir::cast(i32, packed(i[rows], rc.var, tir::intImm(0), tir::intImm(0),
                                                 i[rows + 1], rk.var)),
                       {rc, rk});
      },
      te::ComputeOptions{.name = op, .tag = op, .indexNames = axisNames(accShape.size(), "i")});
  std::vector<int64_t> outShape(ds.begin(), ds.end() - 1);
  outShape.push_back(channelsOf(ws, outChannels, op));
  return te::compute(
      shapeOf(outShape),
      [&](const std::vector<Var>& i) {
        const ChannelPosition at = positionOf(i.back());
        std::vector<PrimExpr> idx(i.begin(), i.end() - 1);
        idx.insert(idx.end(), {at.block, at.lane});
        return compensated(acc(idx), packed, at, shift, groups);
      },
      te::ComputeOptions{
          .name = "T_dense_int8", .tag = "injective", .indexNames = axisNames(outShape.size())});
}

}  // namespace tessera::topi
