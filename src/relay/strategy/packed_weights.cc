// Weight pre-packing: a dense or NCHW conv2d whose weight is a constant of the fused function gets
// its weight repacked while compiling (topi/nn_packed.cc) and the packed compute, which the x86
// schedules tile with the output channels as the vector lanes. The block size is chosen here,
// where the constant is known, and read back by the schedule from the packed buffer's shape.
#include "relay/strategy/packed_weights.h"

#include "relay/op/nn.h"
#include "relay/strategy/strategy_util.h"
#include "topi/batch_matmul_int8.h"
#include "topi/nn_int8.h"
#include "topi/nn_int8_amx.h"
#include "topi/transform.h"
#include "topi/x86/schedule.h"

namespace tessera::relay::strategy {
namespace {

// Two vector registers of output channels per column of the tile when they divide, else one,
// else 8. With AVX-512 (32 channels) each step of the reduction then broadcasts one input value
// for two FMAs instead of one: ResNet-50's 1x1 and strided layers on Zen 5, 0.51-0.76x the time
// of 16-channel blocks (2048 -> 512 at 7x7: 0.75 -> 0.52 ms; strided 1x1 256 -> 512: 1.90 ->
// 1.16 ms). Unless a narrower block gives the register tile more accumulators: `tile(block)` is
// the tile's columns (rows of the Winograd products), a divisor of the output's, and with AVX2's
// 16 registers two-vector columns of a 7-column row fit one column per tile, one-vector ones
// seven (ResNet-18's 256 -> 512 stride-2 layer on Zen 3: 31 GFLOP/s with 7 columns of 16 channels,
// which spilled, 23 with one, 62 with 7 columns of 8).
template <typename Tile>
int64_t convBlock(int64_t channels, const target::Target& target, Tile tile) {
  const int64_t lanes = std::max(8, target.vectorBytes() / 4);
  int64_t best = 0, bestAccumulators = 0;
  for (int64_t b : {2 * lanes, lanes, int64_t{8}}) {
    if (channels % b != 0) continue;
    const int64_t accumulators = std::max<int64_t>(1, b / lanes) * tile(b);
    if (accumulators > bestAccumulators) best = b, bestAccumulators = accumulators;
  }
  return best;
}

topi::x86::ScheduleOptions tileOptions(const target::Target& target) {
  topi::x86::ScheduleOptions options;
  options.vectorBytes = target.vectorBytes();
  options.vectorRegisters = target.vectorRegisters();
  return options;
}

// (OH, OW) of an NCHW/OIHW conv2d.
std::array<int64_t, 2> convOutputSize(const std::vector<int64_t>& data,
                                      const std::vector<int64_t>& weight,
                                      const topi::Conv2DParams& p) {
  std::array<int64_t, 2> out{};
  for (int i = 0; i < 2; ++i) {
    const int64_t span = (weight[2 + i] - 1) * p.dilation[i] + 1;
    out[i] = (data[2 + i] + p.padding[i] + p.padding[i + 2] - span) / p.strides[i] + 1;
  }
  return out;
}

}  // namespace

bool pointwisePartialPanels(const target::Target& target) {
  return target.vectorRegisters() < 32;
}

bool mixedInt8(DataType data, DataType weight) {
  return data == DataType::uint8() && weight == DataType::int8();
}

WeightPacking packingOf(const CallNode& call, const target::Target& target) {
  const auto* op = call.op->as<OpNode>();
  if (!op || call.args.size() != 2) return {};
  const Type& dataType = call.args[0]->checkedType;
  const Type& weightType = call.args[1]->checkedType;
  if (!dataType || !weightType) return {};
  const auto* data = dataType->as<TensorTypeNode>();
  const auto* weight = weightType->as<TensorTypeNode>();
  // One dtype, or uint8 data with an int8 weight (relay.quantize with unsigned_inputs): the
  // packed computes cast both operands to the output dtype.
  if (!data || !weight || !(data->dtype == weight->dtype || mixedInt8(data->dtype, weight->dtype)))
    return {};
  const std::optional<std::vector<int64_t>> w = staticShape(weight->shape);
  if (!w) return {};
  if (op->name == "nn.dense") {
    // The packed product (topi::densePacked) takes data of rank 2 or more.
    const bool packable = w->size() == 2 && data->ndim() >= 2;
    const int64_t block = packable ? topi::matmulBlockSize((*w)[0]) : 0;
    return block ? WeightPacking{PackKind::kDense, block} : WeightPacking{};
  }
  if (op->name != "nn.conv2d" || w->size() != 4) return {};
  const auto& a = attrsOf<Conv2DAttrs>(call.attrs);
  const bool plain = a.dataLayout == "NCHW" && a.kernelLayout == "OIHW" &&
                     (a.outLayout.empty() || a.outLayout == "NCHW");
  const std::optional<std::vector<int64_t>> d = staticShape(data->shape);
  if (!plain || !d || a.groups != 1) return {};
  const topi::Conv2DParams params = convParams(a, data->dtype);
  // Pointwise convolutions are computed as matrix products over pixels, on the weight as it is.
  if (topi::conv2d1x1AsMatmul(*d, *w, params, pointwisePartialPanels(target))) return {};
  const bool winograd =
      data->dtype == DataType::float32() && topi::conv2dWinogradApplies(*d, *w, params);
  const topi::x86::ScheduleOptions options = tileOptions(target);
  const std::array<int64_t, 2> out = convOutputSize(*d, *w, params);
  if (!winograd) {
    const int64_t block = convBlock((*w)[0], target, [&](int64_t b) {
      return topi::x86::packedConvColumns(out[1], b, options);
    });
    return block ? WeightPacking{PackKind::kConv2d, block} : WeightPacking{};
  }
  // Winograd's products are dense tiles, a row per 2x2 output tile: two vectors of channels per
  // row when they divide (AVX-512, 512 channels at 7x7: 1.54 -> 1.33 ms with 32 rather than 16).
  // A fixed 32 was four vectors with AVX2, whose 16 registers then spilled the tile.
  const int64_t tiles = ((out[0] + 1) / 2) * ((out[1] + 1) / 2);
  const int64_t block = convBlock(
      (*w)[0], target, [&](int64_t b) { return topi::x86::packedDenseRows(tiles, b, options); });
  return block ? WeightPacking{PackKind::kWinograd, block} : WeightPacking{};
}

NDArray packWeight(const NDArray& weight, const WeightPacking& packing) {
  switch (packing.kind) {
    case PackKind::kDense:
      return topi::packDenseWeight(weight, packing.block);
    case PackKind::kConv2d:
      return topi::packConv2dWeight(weight, packing.block);
    case PackKind::kWinograd:
      return topi::winogradWeightTransform(weight, packing.block);
    case PackKind::kInt8:
      return topi::packInt8Weight(weight);
    case PackKind::kInt8Pairs:
      return topi::packInt8WeightPairs(weight);
    case PackKind::kInt8Bytes:
      return topi::packInt8Weight(weight, /*compensation=*/false);
    case PackKind::kInt8Amx:
      return topi::packInt8WeightAmx(weight);
    case PackKind::kInt8BatchNN:
    case PackKind::kInt8BatchNT:
      return topi::packInt8BatchWeight(weight, packing.kind == PackKind::kInt8BatchNT);
    case PackKind::kNone:
      break;
  }
  return weight;
}

NDArray packWeightConsuming(NDArray weight, const WeightPacking& packing) {
  if (weight.soleOwner()) {
    if (packing.kind == PackKind::kDense)
      return topi::packDenseWeightInPlace(std::move(weight), packing.block);
    if (packing.kind == PackKind::kConv2d)
      return topi::packConv2dWeightInPlace(std::move(weight), packing.block);
  }
  return packWeight(weight, packing);
}

std::vector<int64_t> packedShape(const std::vector<int64_t>& s, const WeightPacking& packing) {
  const int64_t b = packing.block;
  switch (packing.kind) {
    case PackKind::kDense:
      return {s[0] / b, s[1], b};
    case PackKind::kConv2d:
      return {s[0] / b, s[1], s[2], s[3], b};
    case PackKind::kWinograd:
      return {4, 4, s[0] / b, s[1], b};
    case PackKind::kInt8:
      return topi::packedInt8Shape(s, topi::Int8Form::kVnni);
    case PackKind::kInt8Pairs:
      return topi::packedInt8Shape(s, topi::Int8Form::kPairs);
    case PackKind::kInt8Bytes:
      return topi::packedInt8Shape(s, topi::Int8Form::kBytes);
    case PackKind::kInt8Amx: {
      const bool fold = topi::amxFoldsWindow(s[1], s[2], s[3]);
      const int64_t channels = fold ? s[1] * s[2] * s[3] : s[1];
      return {s[0] / topi::kAmxTileRows,
              (channels + topi::kAmxStepChannels - 1) / topi::kAmxStepChannels *
                  (fold ? 1 : s[2] * s[3]),
              topi::kAmxTileRows, topi::kAmxStepChannels};
    }
    case PackKind::kInt8BatchNN:
    case PackKind::kInt8BatchNT: {
      const bool nt = packing.kind == PackKind::kInt8BatchNT;
      const int64_t n = nt ? s[1] : s[2], k = nt ? s[2] : s[1];
      return {s[0], (n + topi::kInt8Lanes - 1) / topi::kInt8Lanes,
              (k + topi::kInt8Depth - 1) / topi::kInt8Depth + 1, topi::kInt8Lanes,
              topi::kInt8Depth};
    }
    case PackKind::kNone:
      break;
  }
  return s;
}

DataType packedDtype(DataType dtype, const WeightPacking& packing) {
  return packing.kind == PackKind::kInt8Pairs ? DataType::int16() : dtype;
}

std::vector<te::Tensor> packedCompute(const CallNode& call, const WeightPacking& packing,
                                      const te::Tensor& data, const te::Tensor& packedWeight,
                                      const Type& outType) {
  const DataType outDtype = tensorTypeOf(outType).dtype;
  if (packing.kind == PackKind::kDense) return {topi::densePacked(data, packedWeight, outDtype)};
  if (packing.kind == PackKind::kInt8 || packing.kind == PackKind::kInt8Pairs ||
      packing.kind == PackKind::kInt8Bytes) {
    const std::vector<int64_t> out = constExtentsOf(outType, "int8 packed compute");
    if (call.op->as<OpNode>()->name == "nn.dense") {
      if (data.ndim() <= 2) return {topi::denseInt8(data, packedWeight, out.back())};
      // N-D data as the matrix of its rows, so that the int8 dense schedule tiles rows.
      const std::vector<int64_t> ds = topi::constShape(data, "dense_int8");
      int64_t rows = 1;
      for (size_t d = 0; d + 1 < ds.size(); ++d) rows *= ds[d];
      const te::Tensor y = topi::denseInt8(topi::reshape(data, topi::shapeOf({rows, ds.back()})),
                                           packedWeight, out.back());
      return {topi::reshape(y, topi::shapeOf(out))};
    }
    return {topi::conv2dNchwInt8(
        data, packedWeight, convParams(attrsOf<Conv2DAttrs>(call.attrs), outDtype), out.at(1))};
  }
  const topi::Conv2DParams p = convParams(attrsOf<Conv2DAttrs>(call.attrs), outDtype);
  if (packing.kind == PackKind::kWinograd) return {topi::conv2dWinogradNchw(data, packedWeight, p)};
  return {topi::conv2dNchwPacked(data, packedWeight, p)};
}

std::optional<std::vector<te::Tensor>> runtimePackedCompute(const CallNode& call,
                                                            const std::vector<te::Tensor>& in,
                                                            const Type& outType) {
  const auto* op = call.op->as<OpNode>();
  if (!op || in.size() != 2 ||
      !(in[0].dtype() == in[1].dtype() || mixedInt8(in[0].dtype(), in[1].dtype())))
    return std::nullopt;
  if (in[0].ndim() < 2 || in[1].ndim() < 2) return std::nullopt;
  bool transposeB = true;
  if (op->name == "nn.batch_matmul") {
    const auto& a = attrsOf<BatchMatmulAttrs>(call.attrs);
    if (a.transposeA) return std::nullopt;
    transposeB = a.transposeB;
  } else if (op->name != "nn.dense" || in[1].ndim() != 2) {
    return std::nullopt;
  }
  const std::vector<int64_t> bs = topi::constShape(in[1], op->name);
  const int64_t nr = topi::matmulBlockSize(transposeB ? bs[bs.size() - 2] : bs.back());
  if (nr == 0) return std::nullopt;
  return std::vector<te::Tensor>{
      topi::matmulPacked(in[0], in[1], transposeB, nr, tensorTypeOf(outType).dtype)};
}

}  // namespace tessera::relay::strategy
