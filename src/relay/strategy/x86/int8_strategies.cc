// The x86 rows of the strategy table for int8 products on AVX-512 VNNI (topi/nn_int8.h): a
// conv2d (NCHW/OIHW, groups 1) or dense of int8/uint8 data with a constant int8 weight and int32
// output — what relay.quantize's realize produces — gets the weight packed into groups of 16 x 4
// bytes and a tensorized schedule. Priority 20 (21 for pointwise convolutions over whole pixel
// vectors, computed as products over pixels): above every float implementation, whose
// conditions an int8 call may also meet. On a target with AMX-INT8, the convolutions
// topi/nn_int8_amx.h takes (unit stride, channels in blocks of 32) run on tile products instead
// (priority 22). A target with AVX2 but no VNNI takes the same computes in the byte form when the
// data is proven to lie in [0, 127] (vpmaddubsw; priorities 19 and 20) and in the pair form
// otherwise (int16 weights, vpmaddwd; priorities 18 and 19). VNNI's rows and the byte form's
// exclude each other (the byte form's need a target without VNNI).
#include "relay/strategy/op_strategy.h"
#include "relay/strategy/packed_weights.h"
#include "relay/strategy/strategy_util.h"
#include "relay/strategy/x86/strategy_util.h"
#include "topi/nn_int8.h"
#include "topi/nn_int8_amx.h"
#include "topi/x86/schedule.h"

namespace tessera::relay::strategy {
namespace {

// What every int8 row needs: the instructions, the dtypes, a constant weight with whole blocks of
// output channels (row 0 of the weight's shape).
Applicability int8Product(const StrategyCall& c, PackKind packing) {
  const TensorTypeNode* d = argType(c.call, 0);
  const TensorTypeNode* w = argType(c.call, 1);
  const TensorTypeNode* out = c.outType->as<TensorTypeNode>();
  // A weight packed in pairs may be typed as its int16 packing.
  const bool int8Weight =
      w && (w->dtype == DataType::int8() ||
            (c.weight.kind == PackKind::kInt8Pairs && w->dtype == DataType::int16()));
  const bool vnni = c.target.hasFeature("avx512vnni") && c.target.hasFeature("avx512bw");
  if (!d || !int8Weight || !out ||
      (d->dtype != DataType::int8() && d->dtype != DataType::uint8()) ||
      out->dtype != DataType::int32())
    return Applicability::no("not int8/uint8 data x int8 weight -> int32");
  if (packing == PackKind::kInt8Pairs || packing == PackKind::kInt8Bytes) {
    if (!c.target.hasFeature("avx2"))
      return Applicability::no("the target has no AVX2 (-mattr=+avx2)");
  } else if (!vnni) {
    return Applicability::no("the target has no AVX-512 VNNI (-mattr=+avx512vnni)");
  }
  if (c.weight.kind == packing) return Applicability::yes();
  if (packing == PackKind::kInt8Bytes) {
    if (vnni) return Applicability::no("the target has AVX-512 VNNI (its rows take the call)");
    if (!c.smallNonNegativeData)
      return Applicability::no("the data is not proven to lie in [0, 127]");
  }
  if (c.weight) return Applicability::no("the weight is packed for another implementation");
  if (!c.weightConstant)
    return Applicability::no("the weight is not a constant that can be packed at compile time");
  const std::optional<std::vector<int64_t>> ds = staticShape(d->shape);
  const std::optional<std::vector<int64_t>> ws = staticShape(w->shape);
  if (!ds || !ws || ws->empty() || !topi::int8Packable(ws->front()))
    return Applicability::no("needs static shapes");
  return Applicability::yes();
}

// The conditions below take the packing of their row (VNNI's, AMX's, the pair form's or the byte
// form's) as a template argument, so that each row names its condition without a wrapper.
template <PackKind kPacking>
Applicability int8Conv(const StrategyCall& c) {
  const auto& a = attrsOf<Conv2DAttrs>(c.call.attrs);
  if (a.dataLayout != "NCHW" || a.kernelLayout != "OIHW" ||
      !(a.outLayout.empty() || a.outLayout == "NCHW") || a.groups != 1)
    return Applicability::no("not an NCHW/OIHW conv2d with groups 1");
  return int8Product(c, kPacking);
}

// Whether the call's data and weight have static shapes that `test` (a topi applicability check)
// accepts.
using ConvShapeTest = bool (*)(const std::vector<int64_t>&, const std::vector<int64_t>&,
                               const topi::Conv2DParams&);
bool convShapesPass(const StrategyCall& c, ConvShapeTest test) {
  const TensorTypeNode* d = argType(c.call, 0);
  const TensorTypeNode* w = argType(c.call, 1);
  const std::optional<std::vector<int64_t>> ds = d ? staticShape(d->shape) : std::nullopt;
  const std::optional<std::vector<int64_t>> ws = w ? staticShape(w->shape) : std::nullopt;
  return ds && ws &&
         test(*ds, *ws, convParams(attrsOf<Conv2DAttrs>(c.call.attrs), DataType::int32()));
}

// A pointwise conv2d: the product over pixels (in vectors of 16, the last one padded).
template <PackKind kPacking>
Applicability int8PointwiseConv(const StrategyCall& c) {
  if (Applicability conv = int8Conv<kPacking>(c); !conv) return conv;
  if (!convShapesPass(c, topi::conv2d1x1Int8Applies))
    return Applicability::no("not a pointwise (1x1, unpadded) conv2d");
  return Applicability::yes();
}

// A stem-like conv2d (few channels, a kernel larger than 1x1): the product over output pixels.
template <PackKind kPacking>
Applicability int8PixelsConv(const StrategyCall& c) {
  if (Applicability conv = int8Conv<kPacking>(c); !conv) return conv;
  if (!convShapesPass(c, topi::conv2dInt8OverPixelsApplies))
    return Applicability::no("not a conv2d with a kernel larger than 1x1, at most " +
                             std::to_string(topi::kMaxInt8PixelSteps) +
                             " channel groups x taps and rows of whole vectors of 16 pixels");
  return Applicability::yes();
}

template <PackKind kPacking>
Applicability int8Dense(const StrategyCall& c) {
  const TensorTypeNode* d = argType(c.call, 0);
  if (!d || d->shape.size() < 2) return Applicability::no("the data is not a matrix");
  const TensorTypeNode* w = argType(c.call, 1);
  if (w && w->shape.size() != 2) return Applicability::no("the weight is VTA's packed form (4-D)");
  return int8Product(c, kPacking);
}

// The AMX convolution's geometry (nullopt when the call has none).
std::optional<topi::AmxConvGeometry> amxGeometry(const StrategyCall& c) {
  const TensorTypeNode* d = argType(c.call, 0);
  const TensorTypeNode* w = argType(c.call, 1);
  const std::optional<std::vector<int64_t>> ds = d ? staticShape(d->shape) : std::nullopt;
  const std::optional<std::vector<int64_t>> ws = w ? staticShape(w->shape) : std::nullopt;
  if (!ds || !ws) return std::nullopt;
  return topi::amxConvGeometry(*ds, *ws,
                               convParams(attrsOf<Conv2DAttrs>(c.call.attrs), DataType::int32()));
}

Applicability int8AmxConv(const StrategyCall& c) {
  if (!c.target.hasFeature("amx-int8") || !c.target.hasFeature("amx-tile"))
    return Applicability::no("the target has no AMX-INT8 (-mattr=+amx-tile,+amx-int8)");
  if (Applicability conv = int8Conv<PackKind::kInt8Amx>(c); !conv) return conv;
  if (!amxGeometry(c))
    return Applicability::no(
        "not a unit-stride (or unpadded 1x1) conv2d with >= 32 input channels, output channels in "
        "blocks of 32 and >= 16 output pixels");
  return Applicability::yes();
}

WeightPacking int8AmxPacking(const StrategyCall&) {
  return {PackKind::kInt8Amx, topi::kAmxTileRows};
}

std::vector<te::Tensor> int8AmxCompute(const StrategyCall& c, const std::vector<te::Tensor>& in) {
  const std::vector<int64_t> out = constExtentsOf(c.outType, "conv2d_nchw_int8_amx");
  return {topi::conv2dNchwInt8Amx(in.at(0), in.at(1), *amxGeometry(c),
                                  convParams(attrsOf<Conv2DAttrs>(c.call.attrs), DataType::int32()),
                                  out.at(1))};
}

template <PackKind kPacking>
WeightPacking int8Packing(const StrategyCall&) {
  return {kPacking, topi::kInt8Lanes};
}

std::vector<te::Tensor> int8Compute(const StrategyCall& c, const std::vector<te::Tensor>& in) {
  return packedCompute(c.call, c.weight, in.at(0), in.at(1), c.outType);
}

std::vector<te::Tensor> int8PointwiseCompute(const StrategyCall& c,
                                             const std::vector<te::Tensor>& in) {
  const std::vector<int64_t> out = constExtentsOf(c.outType, "conv2d_nchw_1x1_int8");
  return {topi::conv2dNchw1x1Int8(in.at(0), in.at(1),
                                  convParams(attrsOf<Conv2DAttrs>(c.call.attrs), DataType::int32()),
                                  out.at(1), channelAddendInput(in))};
}

std::vector<te::Tensor> int8PixelsCompute(const StrategyCall& c,
                                          const std::vector<te::Tensor>& in) {
  const std::vector<int64_t> out = constExtentsOf(c.outType, "conv2d_pixels_int8");
  return {topi::conv2dNchwInt8OverPixels(
      in.at(0), in.at(1), convParams(attrsOf<Conv2DAttrs>(c.call.attrs), DataType::int32()),
      out.at(1), channelAddendInput(in))};
}

}  // namespace

void registerX86Int8Strategies(StrategyRegistry& r) {
  r.add("nn.conv2d", "cpu",
        {.name = "conv2d_nchw_int8_amx.x86",
         .priority = 22,
         .condition = int8AmxConv,
         .packWeight = int8AmxPacking,
         .compute = int8AmxCompute,
         .schedule = x86Schedule(topi::x86::scheduleConv2dInt8Amx)});
  r.add("nn.conv2d", "cpu",
        {.name = "conv2d_1x1_int8_vnni.x86",
         .priority = 21,
         .condition = int8PointwiseConv<PackKind::kInt8>,
         .packWeight = int8Packing<PackKind::kInt8>,
         .compute = int8PointwiseCompute,
         .schedule = x86Schedule(topi::x86::scheduleConv2d1x1Int8),
         .foldsChannelAddend = true});
  r.add("nn.conv2d", "cpu",
        {.name = "conv2d_pixels_int8_vnni.x86",
         .priority = 21,
         .condition = int8PixelsConv<PackKind::kInt8>,
         .packWeight = int8Packing<PackKind::kInt8>,
         .compute = int8PixelsCompute,
         .schedule = x86Schedule(topi::x86::scheduleConv2dInt8OverPixels),
         .foldsChannelAddend = true});
  r.add("nn.conv2d", "cpu",
        {.name = "conv2d_nchw_int8_vnni.x86",
         .priority = 20,
         .condition = int8Conv<PackKind::kInt8>,
         .packWeight = int8Packing<PackKind::kInt8>,
         .compute = int8Compute,
         .schedule = x86Schedule(topi::x86::scheduleConv2dInt8)});
  r.add("nn.conv2d", "cpu",
        {.name = "conv2d_1x1_int8_bytes_avx2.x86",
         .priority = 20,
         .condition = int8PointwiseConv<PackKind::kInt8Bytes>,
         .packWeight = int8Packing<PackKind::kInt8Bytes>,
         .compute = int8PointwiseCompute,
         .schedule = x86Schedule(topi::x86::scheduleConv2d1x1Int8),
         .foldsChannelAddend = true});
  r.add("nn.conv2d", "cpu",
        {.name = "conv2d_pixels_int8_bytes_avx2.x86",
         .priority = 20,
         .condition = int8PixelsConv<PackKind::kInt8Bytes>,
         .packWeight = int8Packing<PackKind::kInt8Bytes>,
         .compute = int8PixelsCompute,
         .schedule = x86Schedule(topi::x86::scheduleConv2dInt8OverPixels),
         .foldsChannelAddend = true});
  r.add("nn.conv2d", "cpu",
        {.name = "conv2d_nchw_int8_bytes_avx2.x86",
         .priority = 19,
         .condition = int8Conv<PackKind::kInt8Bytes>,
         .packWeight = int8Packing<PackKind::kInt8Bytes>,
         .compute = int8Compute,
         .schedule = x86Schedule(topi::x86::scheduleConv2dInt8)});
  r.add("nn.conv2d", "cpu",
        {.name = "conv2d_1x1_int8_avx2.x86",
         .priority = 19,
         .condition = int8PointwiseConv<PackKind::kInt8Pairs>,
         .packWeight = int8Packing<PackKind::kInt8Pairs>,
         .compute = int8PointwiseCompute,
         .schedule = x86Schedule(topi::x86::scheduleConv2d1x1Int8),
         .foldsChannelAddend = true});
  r.add("nn.conv2d", "cpu",
        {.name = "conv2d_pixels_int8_avx2.x86",
         .priority = 19,
         .condition = int8PixelsConv<PackKind::kInt8Pairs>,
         .packWeight = int8Packing<PackKind::kInt8Pairs>,
         .compute = int8PixelsCompute,
         .schedule = x86Schedule(topi::x86::scheduleConv2dInt8OverPixels),
         .foldsChannelAddend = true});
  r.add("nn.conv2d", "cpu",
        {.name = "conv2d_nchw_int8_avx2.x86",
         .priority = 18,
         .condition = int8Conv<PackKind::kInt8Pairs>,
         .packWeight = int8Packing<PackKind::kInt8Pairs>,
         .compute = int8Compute,
         .schedule = x86Schedule(topi::x86::scheduleConv2dInt8)});
  r.add("nn.dense", "cpu",
        {.name = "dense_int8_bytes_avx2.x86",
         .priority = 19,
         .condition = int8Dense<PackKind::kInt8Bytes>,
         .packWeight = int8Packing<PackKind::kInt8Bytes>,
         .compute = int8Compute,
         .schedule = x86Schedule(topi::x86::scheduleDenseInt8)});
  r.add("nn.dense", "cpu",
        {.name = "dense_int8_avx2.x86",
         .priority = 18,
         .condition = int8Dense<PackKind::kInt8Pairs>,
         .packWeight = int8Packing<PackKind::kInt8Pairs>,
         .compute = int8Compute,
         .schedule = x86Schedule(topi::x86::scheduleDenseInt8)});
  r.add("nn.dense", "cpu",
        {.name = "dense_int8_vnni.x86",
         .priority = 20,
         .condition = int8Dense<PackKind::kInt8>,
         .packWeight = int8Packing<PackKind::kInt8>,
         .compute = int8Compute,
         .schedule = x86Schedule(topi::x86::scheduleDenseInt8)});
}

}  // namespace tessera::relay::strategy
