#include "relay/quantize/realize.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <mutex>

#include "relay/op/nn.h"
#include "relay/op/op_common.h"
#include "relay/op/quantize.h"
#include "relay/op/tensor.h"
#include "relay/quantize/per_channel.h"
#include "relay/quantize/qconfig.h"
#include "relay/quantize/quantize_util.h"
#include "support/diagnostic.h"

namespace tessera::relay::quantize {

Expr QRealizeIntExpr::realize() const {
  Expr scale = channelScales ? Expr(makeConstant(*channelScales))
                             : scalarConstant(domScale, DataType::float32());
  return multiply(cast(data, DataType::float32()), std::move(scale));
}

RewriteValue realizedExpr(Expr data, float domScale, DataType dtype, bool unsignedRange,
                          std::optional<NDArray> channelScales) {
  return RewriteValue(std::make_shared<const QRealizeIntExpr>(
      std::move(data), domScale, dtype, unsignedRange, std::move(channelScales)));
}

void registerRealizeFunction(const std::string& op, ForwardRewriteFn rule, int level) {
  kRealizeRules.set(op, std::move(rule), level);
}

Expr fixedPointMultiplyBy(Expr data, double factor) {
  const auto [multiplier, shift] = fixedPointMultiplierShift(factor);
  if (currentQConfig().rounding == "UPWARD") return fixedPointMultiply(data, multiplier, shift);
  // TONEAREST: round half away from zero in explicit int64 arithmetic.
  const DataType i64 = DataType::int64();
  Expr t = cast(std::move(data), i64);
  if (shift > 0) t = leftShift(t, scalarConstant(shift, i64));
  t = multiply(t, scalarConstant(multiplier, i64));
  const int totalRightShift = std::max(-shift, 0) + 31;
  // |data * multiplier| < 2^62: a factor this small rounds every value to 0.
  if (totalRightShift > 62) return cast(multiply(t, scalarConstant(0, i64)), DataType::int32());
  const auto half = static_cast<double>(int64_t{1} << (totalRightShift - 1));
  t = add(t, where(greaterEqual(t, scalarConstant(0, i64)), scalarConstant(half, i64),
                   scalarConstant(half - 1, i64)));
  t = rightShift(t, scalarConstant(totalRightShift, i64));
  return cast(t, DataType::int32());
}

namespace {

using Args = std::vector<RewriteValue>;
using Result = std::optional<RewriteValue>;

/// log2(x) when it is a finite integer (a shift), else nullopt.
std::optional<int> exactLog2(float x) {
  const float l = std::log2(x);
  if (!std::isfinite(l) || std::trunc(l) != l) return std::nullopt;
  return static_cast<int>(l);
}

// data * s1 / s2 in `dtype`: a left shift, an integer multiply, or a fixed-point multiply.
Expr mulAndDiv(Expr data, float s1, float s2, DataType dtype) {
  if (s1 == s2) return data;
  const float factor = s1 / s2;
  if (const std::optional<int> shift = exactLog2(factor); shift && *shift > 0)
    return leftShift(data, scalarConstant(*shift, dtype));
  if (std::isfinite(factor) && std::trunc(factor) == factor)
    return multiply(data, scalarConstant(factor, dtype));
  return cast(fixedPointMultiplyBy(data, factor), dtype);
}

// Ops whose every output value is one of (or an average of) their first input's values.
bool keepsRange(const std::string& op) {
  static const char* const kOps[] = {"nn.relu",
                                     "reshape",
                                     "transpose",
                                     "strided_slice",
                                     "nn.batch_flatten",
                                     "annotation.stop_fusion",
                                     "nn.max_pool2d",
                                     "nn.avg_pool2d",
                                     "nn.global_avg_pool2d",
                                     "annotation.cast_hint"};
  return std::find(std::begin(kOps), std::end(kOps), op) != std::end(kOps);
}

/// True when every value of `e` provably lies in [lo, hi]: a clip within it, reached through
/// casts and range-keeping ops.
bool boundedBy(const Expr& e, double lo, double hi) {
  for (const ExprNode* node = e.get();;) {
    const auto* call = node->as<CallNode>();
    const auto* op = call ? call->op->as<OpNode>() : nullptr;
    if (!op || call->args.empty()) return false;
    if (op->name == "clip") {
      const auto& a = attrsOrDefault<ClipAttrs>(call->attrs.get());
      return a.aMin >= lo && a.aMax <= hi;
    }
    if (op->name != "cast" && !keepsRange(op->name)) return false;
    node = call->args[0].get();
  }
}

/// `data` (of dtype `from`) cast to `to`. A narrowing cast to an integer type never wraps: it
/// is preceded by a clip to the target range unless one already bounds `data` (TVM's rules put
/// one there; this keeps the guarantee for rules that do not).
Expr narrowCast(Expr data, DataType from, DataType to) {
  if (from == to) return data;
  // A float, a wider integer, or (to an unsigned type) a signed one may not fit.
  const bool narrows = to.isInteger() &&
                       (from.isFloat() || from.bits() > to.bits() || (to.isUInt() && from.isInt()));
  if (!narrows) return cast(std::move(data), to);
  const QConfig& cfg = currentQConfig();
  const bool isInput = to == cfg.dtypeInput || to == cfg.inputDtype(true);
  const int bits = isInput ? cfg.nbitInput : to.bits();
  // Symmetric for signed types (as TVM's clips), [0, 2^bits - 1] for unsigned ones.
  const double hi = std::ldexp(1.0, to.isUInt() ? bits : bits - 1) - 1;
  const double lo = to.isUInt() ? 0 : -hi;
  if (!boundedBy(data, lo, hi)) data = clip(std::move(data), lo, hi);
  return cast(std::move(data), to);
}

/// A quantized value with one scale (per-channel weights reach only productRealize).
const QRealizeIntExpr* quantized(const RewriteValue& v) {
  const auto* q = v.as<QRealizeIntExpr>();
  if (q && q->channelScales)
    throwDiagnostic("quantize_realize",
                    "a weight with per-channel scales reaches an op other than conv2d or dense");
  return q;
}

void requireNoTemp(const Args& args, const CallNode& call) {
  for (const RewriteValue& a : args)
    if (a.isTemp())
      throwDiagnostic("quantize_realize", "an argument of " + call.op->as<OpNode>()->name +
                                              " is quantized but the rule expects it is not");
}

/// A simulated quantize whose dom_scale holds one scale per channel: a weight, quantized in
/// float (constant-folded later) and carried with its scales to its conv2d or dense.
Result perChannelQuantizeRealize(const CallNode& call, const Args& args, const NDArray& scales) {
  if (args[0].as<QRealizeIntExpr>())
    throwDiagnostic("quantize_realize", "per-channel scales on an already quantized value");
  requireNoTemp(args, call);
  const double lo = scalarValue(args[2].realize()), hi = scalarValue(args[3].realize());
  NDArray inverse = NDArray::empty(scales.shape(), DataType::float32());
  for (int64_t i = 0; i < scales.numel(); ++i)
    inverse.setFloat(i, 1.0f / static_cast<float>(scales.getFloat(i)));
  Expr data = multiply(args[0].realize(), makeConstant(std::move(inverse)));
  return realizedExpr(clip(round(data), lo, hi), maxScale(scales), DataType::float32(), false,
                      scales);
}

Result simulatedQuantizeRealize(const CallNode& call, const Args& args) {
  const QConfig& cfg = currentQConfig();
  if (const auto* c = args[1].realize()->as<ConstantNode>();
      c && c->hasData() && c->data.ndim() > 0)
    return perChannelQuantizeRealize(call, args, c->data);
  const float scale = static_cast<float>(scalarValue(args[1].realize()));
  const double lo = scalarValue(args[2].realize()), hi = scalarValue(args[3].realize());
  // With unsigned_inputs, a value that cannot be negative is quantized to [0, 2^nbit - 1].
  const bool unsignedRange = lo >= 0 && hi > std::ldexp(1.0, cfg.nbitInput - 1) - 1;
  if (const QRealizeIntExpr* in = quantized(args[0])) {
    Expr data = in->data;
    DataType dtype = in->dtype;
    if (unsignedRange && dtype.bits() < cfg.dtypeActivation.bits()) {
      // An int8 value (of max pooling) cannot hold the unsigned range: rescale it in int32.
      data = cast(std::move(data), cfg.dtypeActivation);
      dtype = cfg.dtypeActivation;
    }
    if (in->domScale == scale) return realizedExpr(clip(data, lo, hi), scale, dtype, unsignedRange);
    const float ratio = scale / in->domScale;
    if (const std::optional<int> n = exactLog2(ratio)) {
      if (*n > 0) {
        if (cfg.roundForShift)
          data = add(data, scalarConstant(std::ldexp(1.0, *n - 1), cfg.dtypeActivation));
        data = rightShift(data, scalarConstant(*n, cfg.dtypeActivation));
      } else {
        data = leftShift(data, scalarConstant(-*n, cfg.dtypeActivation));
      }
      return realizedExpr(clip(data, lo, hi), scale, dtype, unsignedRange);
    }
    data = fixedPointMultiplyBy(cast(data, DataType::int64()), in->domScale / scale);
    return realizedExpr(cast(clip(data, lo, hi), dtype), scale, dtype, unsignedRange);
  }
  requireNoTemp(args, call);
  Expr data = multiply(args[0].realize(), scalarConstant(1.0f / scale, DataType::float32()));
  return realizedExpr(clip(round(data), lo, hi), scale, DataType::float32(), unsignedRange);
}

// conv2d, dense, batch_matmul: int8 x int8 -> int32, scale = product of the operands' scales.
template <typename A>
Result productRealize(const CallNode& call, const Args& args) {
  // Both operands quantized, or the product stays float on dequantized operands (TVM's dense
  // rule; e.g. a classifier after global_avg_pool2d stopped quantization).
  const QRealizeIntExpr* lhs = quantized(args[0]);
  const auto* rhs = args[1].as<QRealizeIntExpr>();  // may have per-channel scales
  if (!lhs || !rhs) return std::nullopt;
  const QConfig& cfg = currentQConfig();
  Expr l = narrowCast(lhs->data, lhs->dtype, cfg.inputDtype(lhs->unsignedRange));
  // TVM casts the weight even when it already has the weight dtype.
  Expr r = rhs->dtype == cfg.dtypeWeight ? cast(rhs->data, cfg.dtypeWeight)
                                         : narrowCast(rhs->data, rhs->dtype, cfg.dtypeWeight);
  A attrs = attrsOrDefault<A>(call.attrs.get());
  attrs.outDtype = cfg.dtypeActivation;
  Expr product = makeCall(call.op, {l, r}, makeAttrs(attrs), call.span);
  if (rhs->channelScales) {
    const auto* type = call.checkedType ? call.checkedType->as<TensorTypeNode>() : nullptr;
    if (!type) throwDiagnostic("quantize_realize", "realize needs the types (run InferType)");
    const int rank = type->ndim();
    product = requantizePerChannel(std::move(product), *rhs->channelScales,
                                   productChannelAxis(call, rank), rank);
  }
  return realizedExpr(std::move(product), lhs->domScale * rhs->domScale, cfg.dtypeActivation);
}

/// Both operands of a binary op, when both are quantized; nullopt when neither is (an internal
/// error when only one is: the annotate rules never produce that).
std::optional<std::pair<const QRealizeIntExpr*, const QRealizeIntExpr*>> bothQuantized(
    const CallNode& call, const Args& args) {
  const QRealizeIntExpr* lhs = quantized(args[0]);
  const QRealizeIntExpr* rhs = quantized(args[1]);
  if (lhs && rhs) return std::make_pair(lhs, rhs);
  requireNoTemp(args, call);
  return std::nullopt;
}

Result multiplyRealize(const CallNode& call, const Args& args) {
  const auto operands = bothQuantized(call, args);
  if (!operands) return std::nullopt;
  const auto [lhs, rhs] = *operands;
  const DataType t = currentQConfig().dtypeActivation;
  Expr l = lhs->dtype == t ? lhs->data : cast(lhs->data, t);
  Expr r = rhs->dtype == t ? rhs->data : cast(rhs->data, t);
  return realizedExpr(forwardOp(call, {l, r}), lhs->domScale * rhs->domScale, t);
}

/// TVM's UnifyDTypeScale: the arguments in one dtype and one scale.
std::vector<Expr> unify(const std::vector<Expr>& refArgs,
                        const std::vector<const QRealizeIntExpr*>& args, DataType dtype,
                        float* scale) {
  const QConfig& cfg = currentQConfig();
  std::vector<Expr> out;
  for (size_t i = 0; i < args.size(); ++i) {
    Expr d = args[i]->data;
    const auto* ref = refArgs[i]->as<CallNode>();
    const auto* refOp = ref ? ref->op->as<OpNode>() : nullptr;
    const auto* sq = refOp && refOp->name == "relay.op.annotation.simulated_quantize"
                         ? attrsAs<SimulatedQuantizeAttrs>(ref->attrs.get())
                         : nullptr;
    if (!(args[i]->dtype == dtype))
      d = narrowCast(d, args[i]->dtype, dtype);
    else if (sq && sq->kind == static_cast<int>(QAnnotateKind::kInput))
      d = cast(stopFusion(cast(d, cfg.inputDtype(args[i]->unsignedRange))),
               dtype);  // an int8 boundary
    out.push_back(d);
  }
  *scale = args.size() == 2
               ? std::min(args[0]->domScale, args[1]->domScale)
               : static_cast<float>(cfg.globalScale / std::pow(2.0, cfg.nbitActivation - 1));
  for (size_t i = 0; i < out.size(); ++i)
    out[i] = mulAndDiv(out[i], args[i]->domScale, *scale, dtype);
  return out;
}

Result addRealize(const CallNode& call, const Args& args) {
  const auto operands = bothQuantized(call, args);
  if (!operands) return std::nullopt;
  const auto [lhs, rhs] = *operands;
  const DataType t = currentQConfig().dtypeActivation;
  float scale = 0;
  std::vector<Expr> unified = unify(call.args, {lhs, rhs}, t, &scale);
  for (size_t i = 0; i < 2; ++i)  // a quantized constant is not fused into the kernel
    if ((i == 0 ? lhs : rhs)->dtype == DataType::float32()) unified[i] = stopFusion(unified[i]);
  return realizedExpr(forwardOp(call, unified), scale, t);
}

Result concatenateRealize(const CallNode& call, const Args& args) {
  if (!args[0].isTuple()) return std::nullopt;
  std::vector<const QRealizeIntExpr*> fields;
  for (const RewriteValue& f : args[0].fields()) fields.push_back(quantized(f));
  if (fields.empty() || !fields[0]) return std::nullopt;
  for (const QRealizeIntExpr* f : fields)
    if (!f) throwDiagnostic("quantize_realize", "concatenate: only some fields are quantized");
  const QConfig& cfg = currentQConfig();
  bool anyUnsigned = false;
  for (const QRealizeIntExpr* f : fields) anyUnsigned |= f->unsignedRange;
  const DataType t = fields.size() == 2 && fields[1]->dtype == cfg.dtypeInput && !anyUnsigned
                         ? cfg.dtypeInput
                         : cfg.dtypeActivation;
  const auto* refTuple = call.args[0]->as<TupleNode>();
  if (!refTuple) throwDiagnostic("quantize_realize", "concatenate of a non-literal tuple");
  float scale = 0;
  std::vector<Expr> unified = unify(refTuple->fields, fields, t, &scale);
  return realizedExpr(forwardOp(call, {makeTuple(unified)}), scale, t);
}

Result clipRealize(const CallNode& call, const Args& args) {
  const QRealizeIntExpr* in = quantized(args[0]);
  if (!in) return std::nullopt;
  const auto& a = attrsOrDefault<ClipAttrs>(call.attrs.get());
  const double s = in->domScale;
  return realizedExpr(clip(in->data, a.aMin / s, a.aMax / s), in->domScale, in->dtype,
                      in->unsignedRange);
}

Result identityRealize(const CallNode& call, const Args& args) {
  const QRealizeIntExpr* in = quantized(args[0]);
  if (!in) return std::nullopt;
  return realizedExpr(forwardOp(call, {in->data}), in->domScale, in->dtype, in->unsignedRange);
}

// max pooling runs on the int8 values themselves.
Result castInputRealize(const CallNode& call, const Args& args) {
  const QRealizeIntExpr* in = quantized(args[0]);
  if (!in) return std::nullopt;
  const DataType t = currentQConfig().inputDtype(in->unsignedRange);
  return realizedExpr(forwardOp(call, {narrowCast(in->data, in->dtype, t)}), in->domScale, t,
                      in->unsignedRange);
}

/// How many taps one output of an average pooling sums (0 when unknown).
int64_t poolTaps(const CallNode& call) {
  const auto* op = call.op->as<OpNode>();
  if (op->name == "nn.avg_pool2d") {
    int64_t n = 1;
    for (int64_t k : attrsOrDefault<nn::AvgPool2DAttrs>(call.attrs.get()).poolSize) n *= k;
    return n;
  }
  const auto* t =
      call.args[0]->checkedType ? call.args[0]->checkedType->as<TensorTypeNode>() : nullptr;
  const std::vector<int64_t> dims =
      t ? staticDims(call.args[0]->checkedType) : std::vector<int64_t>{};
  const std::string& layout = attrsOrDefault<nn::GlobalPool2DAttrs>(call.attrs.get()).layout;
  if (dims.size() != 4 || layout.size() != 4) return 0;
  return dims[layout.find('H')] * dims[layout.find('W')];
}

// average pooling sums, so it runs in the activation dtype. The division truncates (TVM's
// integer division); with rounding="TONEAREST", values within 8 bits first gain up to 8
// fraction bits, so the truncation costs at most 1/256 of a step instead of a whole one.
Result avgPoolRealize(const CallNode& call, const Args& args) {
  const QRealizeIntExpr* in = quantized(args[0]);
  if (!in) return std::nullopt;
  const QConfig& cfg = currentQConfig();
  const DataType t = cfg.dtypeActivation;
  Expr data = in->dtype == t ? in->data : cast(in->data, t);
  float scale = in->domScale;
  const int64_t taps = poolTaps(call);
  const bool within8Bits =
      in->dtype.bits() <= 8 || in->unsignedRange || boundedBy(in->data, -255, 255);
  if (cfg.rounding == "TONEAREST" && within8Bits && taps > 0 && t.bits() == 32) {
    int shift = 8;  // the sum of `taps` values of 8 + shift bits must fit int32
    while (shift > 0 && 255.0 * std::ldexp(1.0, shift) * static_cast<double>(taps) >= 0x1p31)
      --shift;
    if (shift > 0) {
      data = leftShift(std::move(data), scalarConstant(shift, t));
      scale = std::ldexp(scale, -shift);
    }
  }
  return realizedExpr(forwardOp(call, {data}), scale, t,
                      in->unsignedRange && scale == in->domScale);
}

Result castHintRealize(const CallNode& call, const Args& args) {
  const QRealizeIntExpr* in = quantized(args[0]);
  if (!in) return std::nullopt;
  const QConfig& cfg = currentQConfig();
  DataType t = attrsOrDefault<CastHintAttrs>(call.attrs.get()).dtype;
  if (in->unsignedRange && t == cfg.dtypeInput) t = cfg.inputDtype(true);
  return realizedExpr(narrowCast(in->data, in->dtype, t), in->domScale, t, in->unsignedRange);
}

}  // namespace

void registerBuiltinRealizeRules() {
  static std::once_flag once;
  std::call_once(once, [] {
    registerRealizeFunction("relay.op.annotation.simulated_quantize", simulatedQuantizeRealize);
    registerRealizeFunction("nn.conv2d", productRealize<nn::Conv2DAttrs>);
    registerRealizeFunction("nn.dense", productRealize<nn::DenseAttrs>);
    registerRealizeFunction("nn.batch_matmul", productRealize<nn::BatchMatmulAttrs>);
    registerRealizeFunction("multiply", multiplyRealize);
    registerRealizeFunction("add", addRealize);
    registerRealizeFunction("concatenate", concatenateRealize);
    registerRealizeFunction("clip", clipRealize);
    for (const char* op : {"nn.relu", "reshape", "strided_slice", "nn.batch_flatten", "transpose",
                           "annotation.stop_fusion"})
      registerRealizeFunction(op, identityRealize);
    registerRealizeFunction("nn.max_pool2d", castInputRealize);
    registerRealizeFunction("nn.avg_pool2d", avgPoolRealize);
    registerRealizeFunction("nn.global_avg_pool2d", avgPoolRealize);
    registerRealizeFunction("annotation.cast_hint", castHintRealize);
  });
}

Function realize(const Function& fn) {
  registerBuiltinRealizeRules();
  ForwardRewriteOptions options;
  options.ruleOf = [](const std::string& op) { return kRealizeRules.get(op); };
  return forwardRewrite(fn, options);
}

Pass realizePass() {
  return makeFunctionPass(
      PassInfo{"QuantizeRealize", 1, {"InferType"}},
      [](const Function& fn, const IRModule&, PassContext&) { return realize(fn); });
}

}  // namespace tessera::relay::quantize
