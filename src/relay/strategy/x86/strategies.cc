// The x86 rows of the strategy table (target key "cpu"): which compute and anchor schedule of
// topi/x86 each dense, batch_matmul and conv2d call gets, and the generic steps every kernel gets.
// Priorities follow TVM's x86 strategy: Winograd (15) over the packed direct kernels (10) over the
// plain ones (5); the op's generic compute is the fallback.
#include <algorithm>
#include <regex>
#include <thread>

#include "relay/strategy/op_strategy.h"
#include "relay/strategy/packed_weights.h"
#include "relay/strategy/strategy_util.h"
#include "relay/strategy/x86/strategy_util.h"
#include "support/check.h"
#include "topi/x86/schedule.h"

namespace tessera::relay::strategy {

topi::x86::ScheduleOptions x86ScheduleOptions(const target::Target& target) {
  topi::x86::ScheduleOptions options;
  options.numCores = target.numCores > 0
                         ? target.numCores
                         : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  options.vectorBytes = target.vectorBytes();
  options.vectorRegisters = target.vectorRegisters();
  return options;
}

KernelSchedule x86Schedule(Applicability (*rule)(tir::Schedule&,
                                                 const topi::x86::ScheduleOptions&)) {
  return [rule](tir::Schedule& sch, const target::Target& target) {
    return rule(sch, x86ScheduleOptions(target));
  };
}

const TensorTypeNode* argType(const CallNode& call, size_t i) {
  const Type& t = call.args.at(i)->checkedType;
  return t ? t->as<TensorTypeNode>() : nullptr;
}

namespace {

using Tensors = std::vector<te::Tensor>;

// Whether the call's weight is (or, while packing is decided, can be) packed as `kind`.
Applicability weightPackedAs(const StrategyCall& c, PackKind kind, const std::string& needs) {
  if (c.weight.kind == kind) return Applicability::yes();
  if (c.weight) return Applicability::no("the weight is packed for another implementation");
  if (!c.weightConstant)
    return Applicability::no("the weight is not a constant that can be packed at compile time");
  if (packingOf(c.call, c.target).kind != kind) return Applicability::no("needs " + needs);
  return Applicability::yes();
}

Tensors packedWeightCompute(const StrategyCall& c, const Tensors& in) {
  return packedCompute(c.call, c.weight, in.at(0), in.at(1), c.outType);
}

// The columns of a product whose right operand is packed inside the kernel must block.
Applicability runtimePackable(const StrategyCall& c) {
  const TensorTypeNode* a = argType(c.call, 0);
  const TensorTypeNode* b = argType(c.call, 1);
  if (!a || !b || !(a->dtype == b->dtype || mixedInt8(a->dtype, b->dtype)))
    return Applicability::no("the operands have different dtypes");
  const std::optional<std::vector<int64_t>> bs = staticShape(b->shape);
  if (!bs || bs->size() < 2 || a->shape.size() < 2)
    return Applicability::no("needs static operands of rank 2 or more");
  bool transposeB = true;
  if (c.call.op->as<OpNode>()->name == "nn.batch_matmul") {
    const auto& attrs = attrsOf<BatchMatmulAttrs>(c.call.attrs);
    if (attrs.transposeA) return Applicability::no("the left operand is transposed");
    transposeB = attrs.transposeB;
  } else if (bs->size() != 2) {
    return Applicability::no("the weight is not a matrix");
  }
  const int64_t columns = transposeB ? (*bs)[bs->size() - 2] : bs->back();
  if (topi::matmulBlockSize(columns) == 0)
    return Applicability::no(std::to_string(columns) + " output columns do not block");
  return Applicability::yes();
}

Tensors runtimePackedWeightCompute(const StrategyCall& c, const Tensors& in) {
  std::optional<Tensors> out = runtimePackedCompute(c.call, in, c.outType);
  TS_CHECK(out) << "runtimePackable accepted a call runtimePackedCompute declines";
  return *out;
}

Applicability nchwConv(const StrategyCall& c) {
  const auto& a = attrsOf<Conv2DAttrs>(c.call.attrs);
  if (a.dataLayout != "NCHW" || a.kernelLayout != "OIHW")
    return Applicability::no("layout " + a.dataLayout + "/" + a.kernelLayout +
                             " (the x86 kernels take NCHW/OIHW)");
  return Applicability::yes();
}

Applicability pointwiseConv(const StrategyCall& c) {
  if (Applicability layout = nchwConv(c); !layout) return layout;
  const TensorTypeNode* d = argType(c.call, 0);
  const TensorTypeNode* w = argType(c.call, 1);
  const std::optional<std::vector<int64_t>> ds = d ? staticShape(d->shape) : std::nullopt;
  const std::optional<std::vector<int64_t>> ws = w ? staticShape(w->shape) : std::nullopt;
  const auto& a = attrsOf<Conv2DAttrs>(c.call.attrs);
  if (!ds || !ws ||
      !topi::conv2d1x1AsMatmul(*ds, *ws, convParams(a, d->dtype), pointwisePartialPanels(c.target)))
    return Applicability::no(
        "not a pointwise (1x1, stride 1, unpadded, groups 1) convolution over whole vectors of "
        "pixels (H*W a multiple of 16; with AVX2, at least 16)");
  return Applicability::yes();
}

// The product over pixels, also where H*W is not whole panels (pointwiseConv decided it
// applies; like the packed rows, the output is NCHW).
Tensors pointwiseConvCompute(const StrategyCall& c, const Tensors& in) {
  return {topi::conv2d1x1Nchw(in.at(0), in.at(1), tensorTypeOf(c.outType).dtype)};
}

// The blocked convolutions x86's AlterOpLayout makes (alter_layout.cc); the op's compute
// (compute_nn.cc) dispatches on the same layouts.
// Whether the data is NCHW[x]c and the kernel layout matches `kernel`, whose first group is x.
bool blockedLayouts(const Conv2DAttrs& a, const std::regex& kernel) {
  static const std::regex data("NCHW([0-9]+)c");
  std::smatch dm, km;
  return std::regex_match(a.dataLayout, dm, data) && std::regex_match(a.kernelLayout, km, kernel) &&
         dm[1] == km[1];
}

Applicability blockedConv(const StrategyCall& c) {
  const auto& a = attrsOf<Conv2DAttrs>(c.call.attrs);
  static const std::regex kernel("OIHW([0-9]+)i[0-9]+o");
  if (a.groups != 1 || !blockedLayouts(a, kernel))
    return Applicability::no("not a conv2d of NCHW[x]c data and OIHW[x]i[y]o weights, groups 1");
  return Applicability::yes();
}

Applicability blockedDepthwiseConv(const StrategyCall& c) {
  const auto& a = attrsOf<Conv2DAttrs>(c.call.attrs);
  const TensorTypeNode* d = argType(c.call, 0);
  const std::optional<std::vector<int64_t>> ds = d ? staticShape(d->shape) : std::nullopt;
  const std::string blocked = a.outLayout.empty() ? a.dataLayout : a.outLayout;
  static const std::regex kernel("OIHW1i([0-9]+)o");
  if (!ds || ds->size() != 5 || a.groups != (*ds)[1] * (*ds)[4] || blocked != a.dataLayout ||
      !blockedLayouts(a, kernel))
    return Applicability::no("not a depthwise conv2d of NCHW[x]c data and OIHW1i[x]o weights");
  return Applicability::yes();
}

WeightPacking packingOfCall(const StrategyCall& c) {
  return packingOf(c.call, c.target);
}

// The packed-product schedule, shared by dense (either packing) and batch_matmul.
Applicability denseSchedule(tir::Schedule& sch, const target::Target& target) {
  return topi::x86::scheduleDensePacked(sch, x86ScheduleOptions(target));
}

void registerDense(StrategyRegistry& r) {
  r.add("nn.dense", "cpu",
        {.name = "dense_pack.x86",
         .priority = 10,
         .condition =
             [](const StrategyCall& c) {
               return weightPackedAs(c, PackKind::kDense,
                                     "a weight of the data's dtype whose rows block");
             },
         .packWeight = packingOfCall,
         .compute = packedWeightCompute,
         .schedule = denseSchedule});
  r.add("nn.dense", "cpu",
        {.name = "dense_pack_runtime.x86",
         .priority = 5,
         .condition = runtimePackable,
         .compute = runtimePackedWeightCompute,
         .schedule = denseSchedule});
  r.add("nn.batch_matmul", "cpu",
        {.name = "batch_matmul_pack.x86",
         .priority = 10,
         .condition = runtimePackable,
         .compute = runtimePackedWeightCompute,
         .schedule = denseSchedule});
}

void registerConv2d(StrategyRegistry& r) {
  r.add("nn.conv2d", "cpu",
        {.name = "conv2d_nchw_winograd.x86",
         .priority = 15,
         .condition =
             [](const StrategyCall& c) {
               return weightPackedAs(c, PackKind::kWinograd,
                                     "a 3x3 stride-1 float32 NCHW conv2d, groups 1, whose output "
                                     "channels block by 8");
             },
         .packWeight = packingOfCall,
         .compute = packedWeightCompute,
         .schedule = x86Schedule(topi::x86::scheduleConv2dWinograd)});
  r.add("nn.conv2d", "cpu",
        {.name = "conv2d_nchw_pack.x86",
         .priority = 10,
         .condition =
             [](const StrategyCall& c) {
               return weightPackedAs(c, PackKind::kConv2d,
                                     "an NCHW/OIHW conv2d, groups 1, not pointwise, whose "
                                     "output channels block by 8");
             },
         .packWeight = packingOfCall,
         .compute = packedWeightCompute,
         .schedule = x86Schedule(topi::x86::scheduleConv2dPacked)});
  r.add("nn.conv2d", "cpu",
        {.name = "conv2d_1x1.x86",
         .priority = 10,
         .condition = pointwiseConv,
         .compute = pointwiseConvCompute,
         .schedule = x86Schedule(topi::x86::scheduleConv2d1x1)});
  r.add("nn.conv2d", "cpu",
        {.name = "conv2d_NCHWc.x86",
         .priority = 10,
         .condition = blockedConv,
         .schedule = x86Schedule(topi::x86::scheduleConv2dNCHWc)});
  r.add("nn.conv2d", "cpu",
        {.name = "depthwise_conv2d_NCHWc.x86",
         .priority = 10,
         .condition = blockedDepthwiseConv,
         .schedule = x86Schedule(topi::x86::scheduleDepthwiseConv2dNCHWc)});
  r.add("nn.conv2d", "cpu",
        {.name = "conv2d_nchw.x86",
         .priority = 5,
         .condition = nchwConv,
         .schedule = x86Schedule(topi::x86::scheduleConv2dDirect)});
}

}  // namespace

void registerX86Int8Strategies(StrategyRegistry& r);  // int8_strategies.cc
// int8_batch_depthwise_strategies.cc
void registerX86Int8BatchDepthwiseStrategies(StrategyRegistry& r);

void registerX86Strategies() {
  StrategyRegistry& r = StrategyRegistry::global();
  registerDense(r);
  registerConv2d(r);
  registerX86Int8Strategies(r);
  registerX86Int8BatchDepthwiseStrategies(r);
  r.setGenericSchedule("cpu", [](tir::Schedule& sch, const target::Target& t, bool anchored) {
    topi::x86::scheduleGeneric(sch, x86ScheduleOptions(t), anchored);
  });
}

}  // namespace tessera::relay::strategy
