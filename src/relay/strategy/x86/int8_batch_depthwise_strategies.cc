// The x86 rows of the strategy table for the int8 ops int8_strategies.cc leaves to the generic
// kernels: nn.batch_matmul of int8/uint8 x int8 -> int32 on AVX-512 VNNI (transformers'
// attention, both operands activations; a constant B is packed at compile time), and the
// depthwise NCHW conv2d of int8/uint8 data (MobileNet's), vectorized along the output width: what
// relay.quantize's realize produces for them. Priority 20, as the other int8 rows: above the
// float implementations, whose conditions an int8 call may also meet. On AVX-512 VNNI with VBMI,
// depthwise convolutions of horizontal stride 1 or 2 and rows of at least 16 columns take the
// window form instead (priorities 22 and 21: unsigned or proven data, shifted int8 data).
#include "relay/strategy/op_strategy.h"
#include "relay/strategy/packed_weights.h"
#include "relay/strategy/strategy_util.h"
#include "relay/strategy/x86/strategy_util.h"
#include "topi/batch_matmul_int8.h"
#include "topi/depthwise_conv2d_int8.h"
#include "topi/nn_int8.h"
#include "topi/x86/schedule.h"

namespace tessera::relay::strategy {
namespace {

bool isInt8Data(const TensorTypeNode* t) {
  return t && (t->dtype == DataType::int8() || t->dtype == DataType::uint8());
}

Applicability hasVnni(const StrategyCall& c) {
  if (!c.target.hasFeature("avx512vnni") || !c.target.hasFeature("avx512bw"))
    return Applicability::no("the target has no AVX-512 VNNI (-mattr=+avx512vnni)");
  return Applicability::yes();
}

PackKind batchPackKind(const StrategyCall& c) {
  return attrsOf<BatchMatmulAttrs>(c.call.attrs).transposeB ? PackKind::kInt8BatchNT
                                                            : PackKind::kInt8BatchNN;
}

Applicability int8BatchMatmul(const StrategyCall& c) {
  const TensorTypeNode* a = argType(c.call, 0);
  const TensorTypeNode* b = argType(c.call, 1);
  const TensorTypeNode* out = c.outType->as<TensorTypeNode>();
  if (!isInt8Data(a) || !b || b->dtype != DataType::int8() || !out ||
      out->dtype != DataType::int32())
    return Applicability::no("not int8/uint8 x int8 -> int32");
  if (Applicability vnni = hasVnni(c); !vnni) return vnni;
  if (!staticShape(a->shape) || !staticShape(b->shape) || !staticShape(out->shape))
    return Applicability::no("needs static shapes");
  if (c.weight && c.weight.kind != batchPackKind(c))
    return Applicability::no("the weight is packed for another implementation");
  return Applicability::yes();
}

// A constant B is packed at compile time; a run-time one inside the kernel.
WeightPacking int8BatchPacking(const StrategyCall& c) {
  return {batchPackKind(c), topi::kInt8Lanes};
}

std::vector<te::Tensor> int8BatchMatmulCompute(const StrategyCall& c,
                                               const std::vector<te::Tensor>& in) {
  const auto& a = attrsOf<BatchMatmulAttrs>(c.call.attrs);
  const std::vector<int64_t> out = constExtentsOf(c.outType, "batch_matmul_int8");
  return {topi::batchMatmulInt8(in.at(0), in.at(1), a.transposeA, a.transposeB, out.at(2))};
}

// A depthwise NCHW conv2d (multiplier 1) of int8/uint8 data with an int8 weight, int32 out.
Applicability int8DepthwiseConv(const StrategyCall& c) {
  const auto& a = attrsOf<Conv2DAttrs>(c.call.attrs);
  const TensorTypeNode* d = argType(c.call, 0);
  const TensorTypeNode* w = argType(c.call, 1);
  const TensorTypeNode* out = c.outType->as<TensorTypeNode>();
  if (!isInt8Data(d) || !w || w->dtype != DataType::int8() || !out ||
      out->dtype != DataType::int32())
    return Applicability::no("not int8/uint8 data x int8 weight -> int32");
  if (a.dataLayout != "NCHW" || a.kernelLayout != "OIHW" ||
      !(a.outLayout.empty() || a.outLayout == "NCHW"))
    return Applicability::no("not an NCHW/OIHW conv2d");
  const std::optional<std::vector<int64_t>> ds = staticShape(d->shape);
  const std::optional<std::vector<int64_t>> ws = staticShape(w->shape);
  if (!ds || !ws || !topi::depthwiseConv2dInt8Applies(*ds, *ws, convParams(a, out->dtype)))
    return Applicability::no(
        "not a depthwise conv2d (groups = channels, multiplier 1, dilation 1)");
  return Applicability::yes();
}

// The window form on AVX-512 VNNI and VBMI (vpermb): unsigned data (uint8, or int8 proven to lie
// in [0, 127]) as it is, other int8 data shifted (kShifted). Two rows, so that the data fact
// changes the choice and kernels of proven and unproven data are not shared.
template <bool kShifted>
Applicability int8DepthwiseWindow(const StrategyCall& c) {
  if (Applicability depthwise = int8DepthwiseConv(c); !depthwise) return depthwise;
  if (Applicability vnni = hasVnni(c); !vnni) return vnni;
  if (!c.target.hasFeature("avx512vbmi"))
    return Applicability::no("the target has no AVX-512 VBMI (-mattr=+avx512vbmi)");
  const TensorTypeNode* d = argType(c.call, 0);
  const bool unsignedData = d->dtype == DataType::uint8() || c.smallNonNegativeData;
  if (kShifted == unsignedData)
    return Applicability::no(kShifted ? "the data is unsigned or proven to lie in [0, 127]"
                                      : "int8 data not proven to lie in [0, 127]");
  const auto& a = attrsOf<Conv2DAttrs>(c.call.attrs);
  const TensorTypeNode* w = argType(c.call, 1);
  if (!topi::depthwiseConv2dInt8WindowApplies(*staticShape(d->shape), *staticShape(w->shape),
                                              convParams(a, DataType::int32())))
    return Applicability::no("needs a horizontal stride of 1 or 2 and at least 16 output columns");
  return Applicability::yes();
}

template <bool kShifted>
std::vector<te::Tensor> int8DepthwiseWindowCompute(const StrategyCall& c,
                                                   const std::vector<te::Tensor>& in) {
  const auto& a = attrsOf<Conv2DAttrs>(c.call.attrs);
  return {topi::depthwiseConv2dNchwInt8Window(in.at(0), in.at(1), convParams(a, DataType::int32()),
                                              kShifted, channelAddendInput(in))};
}

std::vector<te::Tensor> int8DepthwiseCompute(const StrategyCall& c,
                                             const std::vector<te::Tensor>& in) {
  const auto& a = attrsOf<Conv2DAttrs>(c.call.attrs);
  return {topi::depthwiseConv2dNchwInt8(in.at(0), in.at(1), convParams(a, DataType::int32()))};
}

}  // namespace

void registerX86Int8BatchDepthwiseStrategies(StrategyRegistry& r) {
  r.add("nn.batch_matmul", "cpu",
        {.name = "batch_matmul_int8_vnni.x86",
         .priority = 20,
         .condition = int8BatchMatmul,
         .packWeight = int8BatchPacking,
         .compute = int8BatchMatmulCompute,
         .schedule = x86Schedule(topi::x86::scheduleBatchMatmulInt8)});
  r.add("nn.conv2d", "cpu",
        {.name = "depthwise_conv2d_nchw_int8.x86",
         .priority = 20,
         .condition = int8DepthwiseConv,
         .compute = int8DepthwiseCompute,
         .schedule = x86Schedule(topi::x86::scheduleDepthwiseConv2dInt8)});
  r.add("nn.conv2d", "cpu",
        {.name = "depthwise_conv2d_nchw_int8_window.x86",
         .priority = 22,
         .condition = int8DepthwiseWindow<false>,
         .compute = int8DepthwiseWindowCompute<false>,
         .schedule = x86Schedule(topi::x86::scheduleDepthwiseConv2dInt8Window),
         .foldsChannelAddend = true});
  r.add("nn.conv2d", "cpu",
        {.name = "depthwise_conv2d_nchw_int8_window_shifted.x86",
         .priority = 21,
         .condition = int8DepthwiseWindow<true>,
         .compute = int8DepthwiseWindowCompute<true>,
         .schedule = x86Schedule(topi::x86::scheduleDepthwiseConv2dInt8Window),
         .foldsChannelAddend = true});
}

}  // namespace tessera::relay::strategy
