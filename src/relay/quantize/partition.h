// Stage 1 of the quantizer, partition (TVM's QuantizePartition, spec relay.md §5.5): marks where
// integer regions begin and end. A value inside a region is a QPartitionExpr; where it leaves
// (an op without a rule, the function's result) it is realized as
// annotation.stop_fusion(annotation.cast_hint(value, dtype_input)).
//
// The rules are the op attribute "FQPartitionRewrite" (levels and reset as for any op
// attribute), so a user can replace them — seed 001's flow:
//
//   kPartitionRules.reset("nn.relu");
//   registerPartitionFunction("nn.relu", [](const CallNode& call, const auto& args)
//       -> std::optional<RewriteValue> {
//     auto [partitioned, inner] = partitionExprCheck(args[0]);
//     return partitionedExpr(forwardOp(call, {inner}));
//   });
#pragma once

#include <utility>

#include "relay/op_registry.h"
#include "relay/quantize/forward_rewrite.h"
#include "relay/transform/pass.h"

namespace tessera::relay::quantize {

/// A value inside an integer region.
class QPartitionExpr : public TempExpr {
 public:
  explicit QPartitionExpr(Expr expr) : expr(std::move(expr)) {}
  Expr realize() const override;
  const Expr expr;
};

/// `e` marked as inside a region (TVM's QPartitionExpr(e)).
RewriteValue partitionedExpr(Expr e);
/// (whether `v` is a QPartitionExpr, its inner expression or else the value as IR) — TVM's
/// partition_expr_check.
std::pair<bool, Expr> partitionExprCheck(const RewriteValue& v);

inline constexpr OpAttrMap<ForwardRewriteFn> kPartitionRules{"FQPartitionRewrite"};
/// TVM's register_partition_function.
void registerPartitionFunction(const std::string& op, ForwardRewriteFn rule, int level = 10);

/// Registers the seven built-in rules (once per process; later calls do nothing, so rules a user
/// reset stay reset).
void registerBuiltinPartitionRules();
/// Puts the seven built-in rules back at level 10 (whatever replaced or reset them).
void restoreBuiltinPartitionRules();
/// The partition of one function (registers the built-in rules first, once per process).
Function partition(const Function& fn);
/// QuantizePartition (level 1).
Pass partitionPass();

}  // namespace tessera::relay::quantize
