// The built-in annotate rules (TVM 0.16's _annotate.py): which operands of each op are quantized
// to which kind, and the kind of the result.
#include <mutex>

#include "relay/quantize/annotate.h"
#include "relay/quantize/qconfig.h"
#include "relay/quantize/quantize_util.h"
#include "support/diagnostic.h"

namespace tessera::relay::quantize {
namespace {

using Args = std::vector<RewriteValue>;
using Result = std::optional<RewriteValue>;
using Kind = QAnnotateKind;

[[noreturn]] void unsupported(const CallNode& call, const std::string& why) {
  throwDiagnostic("quantize_annotate", call.op->as<OpNode>()->name + ": " + why);
}

// A constant operand is a weight; anything else an input.
Expr quantizeOperand(const Expr& e) {
  return attachSimulatedQuantize(e, isConstantExpr(e) ? Kind::kWeight : Kind::kInput);
}

// conv2d / dense: the data to INPUT (unless it already is), the weight to WEIGHT.
Result productRule(const CallNode& call, const Args& args) {
  auto [lhs, lhsKind] = exprKind(args[0]);
  auto [rhs, rhsKind] = exprKind(args[1]);
  if (!lhsKind || *lhsKind == Kind::kActivation) lhs = attachSimulatedQuantize(lhs, Kind::kInput);
  if (rhsKind) unsupported(call, "the weight is itself a quantized value");
  rhs = attachSimulatedQuantize(rhs, Kind::kWeight);
  return annotatedExpr(forwardOp(call, {lhs, rhs}), Kind::kActivation);
}

Result conv2dRule(const CallNode& call, const Args& args) {
  if (checkToSkip(call)) return std::nullopt;
  return productRule(call, args);
}

Result denseRule(const CallNode& call, const Args& args) {
  if (currentQConfig().skipDenseLayer || checkToSkip(call)) return std::nullopt;
  return productRule(call, args);
}

Result batchMatmulRule(const CallNode& call, const Args& args) {
  if (checkToSkip(call)) return std::nullopt;
  auto [lhs, lhsKind] = exprKind(args[0]);
  auto [rhs, rhsKind] = exprKind(args[1]);
  if (!lhsKind || *lhsKind == Kind::kActivation) lhs = quantizeOperand(lhs);
  if (!rhsKind || *rhsKind == Kind::kActivation) rhs = quantizeOperand(rhs);
  return annotatedExpr(forwardOp(call, {lhs, rhs}), Kind::kActivation);
}

// One quantized operand (ACTIVATION or INPUT) times a plain one, on either side (TVM 0.16).
Result multiplyRule(const CallNode& call, const Args& args) {
  if (checkToSkip(call)) return std::nullopt;
  auto [lhs, lhsKind] = exprKind(args[0]);
  auto [rhs, rhsKind] = exprKind(args[1]);
  if (!lhsKind && !rhsKind) return std::nullopt;
  const bool lhsQuantized = lhsKind && !rhsKind && *lhsKind != Kind::kWeight;
  const bool rhsQuantized = rhsKind && !lhsKind && *rhsKind != Kind::kWeight;
  if (!lhsQuantized && !rhsQuantized)
    unsupported(call, "only a quantized operand times a plain one is supported");
  Expr& quantized = lhsQuantized ? lhs : rhs;
  Expr& plain = lhsQuantized ? rhs : lhs;
  if ((lhsQuantized ? lhsKind : rhsKind) == Kind::kActivation)
    quantized = attachSimulatedQuantize(quantized, Kind::kInput);
  plain = quantizeOperand(plain);
  return annotatedExpr(forwardOp(call, {lhs, rhs}), Kind::kActivation);
}

// The sum is always ACTIVATION: two int8 values add up to more than int8 holds, so whatever
// narrows the sum again must requantize and clip it first. (TVM before 0.14 called the sum of
// two INPUT values, or of a plain and a quantized value, INPUT; a cast_hint after it then cast
// the int32 sum to int8 with no clip, and ResNet's last residual block wrapped around. TVM's
// #15529 made it ACTIVATION.)
Result addRule(const CallNode& call, const Args& args) {
  if (checkToSkip(call)) return std::nullopt;
  auto [lhs, lhsKind] = exprKind(args[0]);
  auto [rhs, rhsKind] = exprKind(args[1]);
  if (!lhsKind && !rhsKind) return std::nullopt;
  if (!lhsKind) {
    if (*rhsKind == Kind::kWeight) unsupported(call, "a plain value plus a quantized weight");
    lhs = attachSimulatedQuantize(lhs, Kind::kInput);
    return annotatedExpr(forwardOp(call, {lhs, rhs}), Kind::kActivation);
  }
  if (!rhsKind) {  // a constant is a bias or batch-norm shift
    rhs = quantizeOperand(rhs);
    return annotatedExpr(forwardOp(call, {lhs, rhs}), Kind::kActivation);
  }
  if (*lhsKind == Kind::kInput && *rhsKind == Kind::kInput)
    return annotatedExpr(forwardOp(call, {lhs, rhs}), Kind::kActivation);
  if (*lhsKind == Kind::kActivation && *rhsKind == Kind::kActivation) {
    rhs = attachSimulatedQuantize(rhs, Kind::kInput);
    return annotatedExpr(forwardOp(call, {lhs, rhs}), Kind::kActivation);
  }
  const bool mixed = (*lhsKind == Kind::kActivation && *rhsKind == Kind::kInput) ||
                     (*lhsKind == Kind::kInput && *rhsKind == Kind::kActivation);
  if (!mixed) unsupported(call, "the operands' quantization kinds cannot be added");
  return annotatedExpr(forwardOp(call, {lhs, rhs}), Kind::kActivation);
}

// reshape, clip, relu, ...: the kind passes through.
Result identityRule(const CallNode& call, const Args& args) {
  if (checkToSkip(call)) return std::nullopt;
  auto [x, kind] = exprKind(args[0]);
  if (!kind) return std::nullopt;
  return annotatedExpr(forwardOp(call, {x}), *kind);
}

// max pooling works on quantized inputs.
Result maxPoolRule(const CallNode& call, const Args& args) {
  if (checkToSkip(call)) return std::nullopt;
  auto [x, kind] = exprKind(args[0]);
  if (!kind) return std::nullopt;
  if (*kind == Kind::kActivation) x = attachSimulatedQuantize(x, Kind::kInput);
  return annotatedExpr(forwardOp(call, {x}), Kind::kInput);
}

Result castHintRule(const CallNode& call, const Args& args) {
  auto [x, kind] = exprKind(args[0]);
  if (checkToSkip(call)) return RewriteValue(x);  // the hint is dropped
  if (!kind) return args[0];
  if (*kind == Kind::kActivation) x = attachSimulatedQuantize(x, Kind::kInput);
  return annotatedExpr(forwardOp(call, {x}), Kind::kInput);
}

Result concatenateRule(const CallNode& call, const Args& args) {
  if (checkToSkip(call)) return std::nullopt;
  if (!args[0].isTuple()) return std::nullopt;
  std::vector<Expr> fields;
  bool anyQuantized = false;
  for (const RewriteValue& f : args[0].fields()) anyQuantized |= exprKind(f).second.has_value();
  if (!anyQuantized) return std::nullopt;
  for (const RewriteValue& f : args[0].fields()) {
    auto [e, kind] = exprKind(f);
    fields.push_back(kind ? e : attachSimulatedQuantize(e, Kind::kActivation));
  }
  return annotatedExpr(forwardOp(call, {makeTuple(fields)}), Kind::kActivation);
}

// Nothing after a global average pool is quantized (the classifier head stays float).
Result globalAvgPoolRule(const CallNode& call, const Args& args) {
  if (checkToSkip(call)) return std::nullopt;
  if (!exprKind(args[0]).second) return std::nullopt;
  Expr out = forwardOp(call, {args[0].realize()});
  stopQuantize();
  return RewriteValue(out);
}

}  // namespace

void registerBuiltinAnnotateRules() {
  static std::once_flag once;
  std::call_once(once, [] {
    registerAnnotateFunction("nn.conv2d", conv2dRule);
    registerAnnotateFunction("nn.dense", denseRule);
    registerAnnotateFunction("nn.batch_matmul", batchMatmulRule);
    registerAnnotateFunction("multiply", multiplyRule);
    registerAnnotateFunction("add", addRule);
    for (const char* op : {"reshape", "clip", "nn.relu", "strided_slice", "nn.avg_pool2d",
                           "nn.batch_flatten", "transpose", "annotation.stop_fusion"})
      registerAnnotateFunction(op, identityRule);
    registerAnnotateFunction("nn.max_pool2d", maxPoolRule);
    registerAnnotateFunction("annotation.cast_hint", castHintRule);
    registerAnnotateFunction("concatenate", concatenateRule);
    registerAnnotateFunction("nn.global_avg_pool2d", globalAvgPoolRule);
  });
}

}  // namespace tessera::relay::quantize
