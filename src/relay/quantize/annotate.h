// Stage 2 of the quantizer, annotate (TVM's QuantizeAnnotate, spec relay.md §5.6): inserts
// relay.op.annotation.simulated_quantize where values are to be quantized and tracks each
// value's kind (INPUT, WEIGHT, ACTIVATION). Each simulated_quantize gets three fresh variables
// (dom_scale, clip_min, clip_max), appended to the function's parameters for calibrate to bind.
// Rules are the op attribute "FQAnnotateRewrite"; with qconfig's debug_enabled_ops set, ops not
// listed keep their float form.
#pragma once

#include "relay/op/quantize.h"
#include "relay/op_registry.h"
#include "relay/quantize/forward_rewrite.h"
#include "relay/transform/pass.h"

namespace tessera::relay::quantize {

/// A value with its annotation kind.
class QAnnotateExpr : public TempExpr {
 public:
  QAnnotateExpr(Expr expr, QAnnotateKind kind) : expr(std::move(expr)), kind(kind) {}
  Expr realize() const override { return expr; }
  const Expr expr;
  const QAnnotateKind kind;
};

RewriteValue annotatedExpr(Expr e, QAnnotateKind kind);
/// The expression and kind of a rewritten value (kind nullopt for a plain expression).
std::pair<Expr, std::optional<QAnnotateKind>> exprKind(const RewriteValue& v);
/// TVM's attach_simulated_quantize: `data` itself when it already is a simulated_quantize of
/// `kind`, the node made before for the same (data, kind), or a new one.
Expr attachSimulatedQuantize(const Expr& data, QAnnotateKind kind);

/// The state annotate's rules share while one function is annotated (TVM's quantize_context):
/// the conv2d counter behind skip_conv_layers, the stop flag global_avg_pool2d sets, and the
/// simulated_quantize nodes made so far.
bool checkToSkip(const CallNode& call);
void stopQuantize();

inline constexpr OpAttrMap<ForwardRewriteFn> kAnnotateRules{"FQAnnotateRewrite"};
/// TVM's register_annotate_function: the rule runs only for ops qconfig's debug_enabled_ops
/// admits; others are forwarded with their annotations dropped.
void registerAnnotateFunction(const std::string& op, ForwardRewriteFn rule, int level = 10);
/// The built-in rules (once per process).
void registerBuiltinAnnotateRules();

/// The annotation of one function (its quantize context starts afresh).
Function annotate(const Function& fn);
/// QuantizeAnnotate (level 1).
Pass annotatePass();

}  // namespace tessera::relay::quantize
