// The built-in partition rules (exactly TVM's seven; nn.dense has none, seed 001 adds one).
#include "relay/quantize/partition.h"

#include <iterator>
#include <mutex>

#include "relay/op/tensor.h"
#include "relay/quantize/qconfig.h"
#include "relay/quantize/quantize_util.h"
#include "support/diagnostic.h"

namespace tessera::relay::quantize {

Expr QPartitionExpr::realize() const {
  return stopFusion(castHint(expr, currentQConfig().dtypeInput));
}

RewriteValue partitionedExpr(Expr e) {
  return RewriteValue(std::make_shared<const QPartitionExpr>(std::move(e)));
}

std::pair<bool, Expr> partitionExprCheck(const RewriteValue& v) {
  if (const auto* p = v.as<QPartitionExpr>()) return {true, p->expr};
  return {false, v.realize()};
}

void registerPartitionFunction(const std::string& op, ForwardRewriteFn rule, int level) {
  kPartitionRules.set(op, std::move(rule), level);
}

namespace {

using Args = std::vector<RewriteValue>;
using Result = std::optional<RewriteValue>;

Result conv2dPartition(const CallNode& call, const Args& args) {
  const auto [weightPartitioned, weight] = partitionExprCheck(args[1]);
  if (weightPartitioned)
    throwDiagnostic("quantize_partition", "the weight of a conv2d is inside an integer region");
  return partitionedExpr(forwardOp(call, {args[0].realize(), weight}));
}

// clip, nn.relu, nn.max_pool2d: stay inside a region they are given.
Result identityPartition(const CallNode& call, const Args& args) {
  const auto [partitioned, inner] = partitionExprCheck(args[0]);
  if (!partitioned) return std::nullopt;
  return partitionedExpr(forwardOp(call, {inner}));
}

Result addPartition(const CallNode& call, const Args& args) {
  const auto [lhsIn, lhs] = partitionExprCheck(args[0]);
  const auto [rhsIn, rhs] = partitionExprCheck(args[1]);
  if (lhsIn && rhsIn)  // ResNet's first residual: both sides get a boundary
    return partitionedExpr(forwardOp(call, {args[0].realize(), args[1].realize()}));
  if (!lhsIn && rhsIn) return RewriteValue(forwardOp(call, {lhs, args[1].realize()}));
  if (lhsIn && !rhsIn) {
    if (isConstantExpr(rhs))  // bias or batch-norm shift
      return partitionedExpr(forwardOp(call, {lhs, rhs}));
    return RewriteValue(forwardOp(call, {args[0].realize(), rhs}));  // MobileNetV2's residual
  }
  return std::nullopt;
}

Result multiplyPartition(const CallNode& call, const Args& args) {
  const auto [lhsIn, lhs] = partitionExprCheck(args[0]);
  const auto [rhsIn, rhs] = partitionExprCheck(args[1]);
  if (lhsIn) return partitionedExpr(forwardOp(call, {args[0].realize(), rhs}));
  if (rhsIn) return partitionedExpr(forwardOp(call, {lhs, args[1].realize()}));
  return std::nullopt;
}

// Ends a region: the input always gets its boundary.
Result globalAvgPoolPartition(const CallNode& call, const Args& args) {
  const auto [partitioned, inner] = partitionExprCheck(args[0]);
  const Expr data = partitioned ? args[0].realize() : QPartitionExpr(inner).realize();
  return RewriteValue(forwardOp(call, {data}));
}

}  // namespace

namespace {

constexpr const char* kBuiltinOps[] = {
    "nn.conv2d", "clip", "nn.relu", "nn.max_pool2d", "add", "multiply", "nn.global_avg_pool2d"};

void setBuiltinRules() {
  const ForwardRewriteFn rules[] = {conv2dPartition,       identityPartition, identityPartition,
                                    identityPartition,     addPartition,      multiplyPartition,
                                    globalAvgPoolPartition};
  for (size_t i = 0; i < std::size(kBuiltinOps); ++i)
    registerPartitionFunction(kBuiltinOps[i], rules[i]);
}

}  // namespace

void registerBuiltinPartitionRules() {
  static std::once_flag once;
  std::call_once(once, setBuiltinRules);
}

void restoreBuiltinPartitionRules() {
  registerBuiltinPartitionRules();
  for (const char* op : kBuiltinOps) kPartitionRules.reset(op);
  setBuiltinRules();
}

Function partition(const Function& fn) {
  registerBuiltinPartitionRules();
  ForwardRewriteOptions options;
  options.ruleOf = [](const std::string& op) { return kPartitionRules.get(op); };
  return forwardRewrite(fn, options);
}

Pass partitionPass() {
  return makeFunctionPass(
      PassInfo{"QuantizePartition", 1, {"InferType"}},
      [](const Function& fn, const IRModule&, PassContext&) { return partition(fn); });
}

}  // namespace tessera::relay::quantize
