#include "relay/quantize/annotate.h"

#include <algorithm>
#include <map>
#include <mutex>

#include "relay/quantize/qconfig.h"
#include "relay/quantize/quantize_util.h"
#include "relay/visit.h"
#include "support/diagnostic.h"

namespace tessera::relay::quantize {
namespace {

struct QuantizeContext {
  int64_t conv2dCounter = 0;
  bool stopped = false;
  std::map<std::pair<const ExprNode*, int>, Expr> nodes;  // keyed by (data, kind)
  std::vector<Expr> keepAlive;                            // pins the keys' nodes
};

QuantizeContext& context() {
  thread_local QuantizeContext ctx;
  return ctx;
}

bool isOp(const CallNode& call, const char* name) {
  const auto* op = call.op->as<OpNode>();
  return op && op->name == name;
}

Var scalarVar(const char* name) {
  return makeVar(name, tensorType(Shape{}, DataType::float32()));
}

}  // namespace

RewriteValue annotatedExpr(Expr e, QAnnotateKind kind) {
  return RewriteValue(std::make_shared<const QAnnotateExpr>(std::move(e), kind));
}

std::pair<Expr, std::optional<QAnnotateKind>> exprKind(const RewriteValue& v) {
  if (const auto* a = v.as<QAnnotateExpr>()) return {a->expr, a->kind};
  return {v.realize(), std::nullopt};
}

Expr attachSimulatedQuantize(const Expr& data, QAnnotateKind kind) {
  if (const auto* call = data->as<CallNode>())
    if (isOp(*call, "relay.op.annotation.simulated_quantize"))
      if (const auto* a = attrsAs<SimulatedQuantizeAttrs>(call->attrs.get()))
        if (a->kind == static_cast<int>(kind) && a->sign && a->rounding == "round") return data;
  QuantizeContext& ctx = context();
  const auto key = std::make_pair(data.get(), static_cast<int>(kind));
  if (auto it = ctx.nodes.find(key); it != ctx.nodes.end()) return it->second;
  Expr node = simulatedQuantize(data, scalarVar("dom_scale"), scalarVar("clip_min"),
                                scalarVar("clip_max"), kind);
  ctx.keepAlive.push_back(data);
  ctx.nodes[key] = node;
  return node;
}

bool checkToSkip(const CallNode& call) {
  QuantizeContext& ctx = context();
  if (ctx.stopped) return true;
  const QConfig& cfg = currentQConfig();
  if (!cfg.skipConvLayers || !isOp(call, "nn.conv2d")) return false;
  const std::vector<int64_t>& skip = *cfg.skipConvLayers;
  const bool skipped = std::find(skip.begin(), skip.end(), ctx.conv2dCounter) != skip.end();
  ++ctx.conv2dCounter;
  return skipped;
}

void stopQuantize() {
  context().stopped = true;
}

void registerAnnotateFunction(const std::string& op, ForwardRewriteFn rule, int level) {
  ForwardRewriteFn guarded =
      [op, rule = std::move(rule)](
          const CallNode& call,
          const std::vector<RewriteValue>& args) -> std::optional<RewriteValue> {
    const std::optional<std::vector<std::string>>& enabled = currentQConfig().debugEnabledOps;
    if (enabled && std::find(enabled->begin(), enabled->end(), op) == enabled->end()) {
      std::vector<Expr> plain;
      for (const RewriteValue& a : args) plain.push_back(exprKind(a).first);
      return RewriteValue(forwardOp(call, std::move(plain)));
    }
    return rule(call, args);
  };
  kAnnotateRules.set(op, std::move(guarded), level);
}

Function annotate(const Function& fn) {
  registerBuiltinAnnotateRules();
  context() = QuantizeContext{};
  ForwardRewriteOptions options;
  options.ruleOf = [](const std::string& op) { return kAnnotateRules.get(op); };
  // A quantized value with several consumers is quantized to INPUT once, for all of them.
  options.multiRef = [](const RewriteValue& v) {
    const auto* a = v.as<QAnnotateExpr>();
    if (!a) return v;
    return annotatedExpr(attachSimulatedQuantize(a->expr, QAnnotateKind::kInput),
                         QAnnotateKind::kInput);
  };
  const Function rewritten = forwardRewrite(fn, options);
  context() = QuantizeContext{};
  // The simulated_quantize variables become parameters, in order of first use.
  std::vector<Var> params = rewritten->params;
  std::vector<const VarNode*> known;
  for (const Var& p : params) known.push_back(p.get());
  postOrderVisit(rewritten->body, [&](const Expr& node) {
    const auto* v = node->as<VarNode>();
    if (!v || std::find(known.begin(), known.end(), v) != known.end()) return;
    known.push_back(v);
    params.push_back(exprAs<VarNode>(node));
  });
  return makeFunction(params, rewritten->body, rewritten->retType, rewritten->attrs,
                      rewritten->span);
}

Pass annotatePass() {
  return makeFunctionPass(
      PassInfo{"QuantizeAnnotate", 1, {"InferType"}},
      [](const Function& fn, const IRModule&, PassContext&) { return annotate(fn); });
}

}  // namespace tessera::relay::quantize
