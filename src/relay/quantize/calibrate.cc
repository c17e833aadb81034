#include "relay/quantize/calibrate.h"

#include <cmath>

#include "relay/interp/interpreter.h"
#include "relay/op/quantize.h"
#include "relay/op/tensor.h"
#include "relay/quantize/kl_divergence.h"
#include "relay/quantize/per_channel.h"
#include "relay/quantize/qconfig.h"
#include "relay/quantize/quantize_util.h"
#include "relay/type_infer.h"
#include "relay/visit.h"
#include "support/check.h"
#include "support/diagnostic.h"

namespace tessera::relay::quantize {
namespace {

const SimulatedQuantizeAttrs* sqAttrs(const Expr& e) {
  const auto* call = e->as<CallNode>();
  const auto* op = call ? call->op->as<OpNode>() : nullptr;
  if (!op || op->name != "relay.op.annotation.simulated_quantize") return nullptr;
  return attrsAs<SimulatedQuantizeAttrs>(call->attrs.get());
}

bool isWeight(const Expr& sq) {
  return sqAttrs(sq)->kind == static_cast<int>(QAnnotateKind::kWeight);
}

void collectTensors(const Value& v, std::vector<NDArray>& out) {
  if (v.isTensor()) {
    out.push_back(v.tensor());
    return;
  }
  for (const Value& f : v.fields()) collectTensors(f, out);
}

/// The profile function: simulated quantizes pass values through (kind IDENTITY, scalar
/// placeholders) and the result is the tuple of the inputs of `observed`.
IRModule profileModule(const Function& fn, const std::vector<Expr>& observed,
                       const std::vector<Var>& params) {
  std::unordered_map<const ExprNode*, Expr> rewritten;
  const Expr zero = scalarConstant(0, DataType::float32());
  Expr body = rewriteBottomUp(fn->body, [&](const Expr& node, const std::vector<Expr>& children) {
    if (!sqAttrs(node)) return withChildren(node, children);
    Expr identity = simulatedQuantize(children[1], zero, zero, zero, QAnnotateKind::kIdentity);
    rewritten[node.get()] = identity;
    return identity;
  });
  std::vector<Expr> fields;
  for (const Expr& sq : observed) fields.push_back(rewritten.at(sq.get()));
  return inferTypes(IRModule::fromExpr(makeFunction(params, makeTuple(fields))));
}

void checkBatch(const std::map<std::string, NDArray>& batch, const std::vector<Var>& params,
                size_t index) {
  const std::string where = "calibration batch " + std::to_string(index);
  for (const auto& [name, value] : batch) {
    const Var* match = nullptr;
    for (const Var& p : params)
      if (p->nameHint == name) match = &p;
    if (!match)
      throwDiagnostic("quantize_dataset", where + ": the model has no input '" + name + "'");
    const auto* t =
        (*match)->typeAnnotation ? (*match)->typeAnnotation->as<TensorTypeNode>() : nullptr;
    const std::optional<std::vector<int64_t>> shape = t ? staticShape(t->shape) : std::nullopt;
    if (t && (!(t->dtype == value.dtype()) || (shape && *shape != value.shape())))
      throwDiagnostic("quantize_dataset", where + ": input '" + name + "' is " + value.describe() +
                                              " but the model takes " +
                                              typeToString((*match)->typeAnnotation));
    if (value.dtype().isFloat())
      for (int64_t i = 0; i < value.numel(); ++i)
        if (!std::isfinite(value.getFloat(i)))
          throwDiagnostic("quantize_dataset", where + ": input '" + name +
                                                  "' has a NaN or infinite value at element " +
                                                  std::to_string(i));
  }
  for (const Var& p : params)
    if (!batch.count(p->nameHint))
      throwDiagnostic("quantize_dataset", where + ": no value for input '" + p->nameHint + "'");
}

/// The thresholds of the non-weight nodes, in `observed` order.
std::vector<float> statisticThresholds(const Function& fn, const std::vector<Expr>& observed,
                                       const std::vector<Var>& inputs,
                                       const CalibrationDataset& dataset, const ModuleRunner& run,
                                       const QConfig& cfg) {
  if (dataset.empty())
    throwDiagnostic("quantize_dataset", "calibrate_mode \"" + cfg.calibrateMode +
                                            "\" needs a calibration dataset, and it is empty");
  for (size_t b = 0; b < dataset.size(); ++b) checkBatch(dataset[b], inputs, b);
  const size_t chunk = cfg.calibrateChunkBy > 0 ? static_cast<size_t>(cfg.calibrateChunkBy)
                                                : std::max<size_t>(observed.size(), 1);
  std::vector<float> thresholds;
  for (size_t begin = 0; begin < observed.size(); begin += chunk) {
    const std::vector<Expr> part(observed.begin() + begin,
                                 observed.begin() + std::min(observed.size(), begin + chunk));
    const IRModule profile = profileModule(fn, part, inputs);
    std::vector<std::vector<float>> samples(part.size());
    for (const auto& batch : dataset) {
      const std::vector<NDArray> outs = run(profile, batch);
      TS_CHECK(outs.size() == part.size()) << "the profile returned " << outs.size() << " values";
      for (size_t i = 0; i < outs.size(); ++i)
        for (int64_t k = 0; k < outs[i].numel(); ++k)
          samples[i].push_back(static_cast<float>(outs[i].getFloat(k)));
    }
    for (const std::vector<float>& s : samples)
      thresholds.push_back(cfg.calibrateMode == "kl_divergence" ? klDivergenceThreshold(s)
                                                                : percentileThreshold(s));
  }
  return thresholds;
}

}  // namespace

std::vector<NDArray> runOnInterpreter(const IRModule& module,
                                      const std::map<std::string, NDArray>& inputs) {
  Interpreter interp(module);
  std::vector<Value> args;
  for (const Var& p : module.lookup("main")->params) args.push_back(Value(inputs.at(p->nameHint)));
  std::vector<NDArray> out;
  collectTensors(interp.run(args), out);
  return out;
}

float weightThreshold(const NDArray& weight, const std::string& mode) {
  double v = 0;
  for (int64_t i = 0; i < weight.numel(); ++i) v = std::max(v, std::fabs(weight.getFloat(i)));
  const auto maxAbs = static_cast<float>(v);
  if (mode == "max") return maxAbs;
  return maxAbs > 0 ? std::pow(2.0f, std::ceil(std::log2(maxAbs))) : 1.0f;
}

Function calibrate(const Function& fn, const CalibrationDataset& dataset, const ModuleRunner& run,
                   std::vector<CalibratedNode>* chosen) {
  const QConfig& cfg = currentQConfig();
  std::vector<Expr> nodes, observed;
  for (const Expr& node : postOrder(fn->body))
    if (sqAttrs(node)) {
      nodes.push_back(node);
      if (!isWeight(node)) observed.push_back(node);
    }
  // The simulated_quantize variables are the parameters calibrate binds; the rest are inputs.
  std::unordered_map<const VarNode*, Expr> bound;
  for (const Expr& sq : nodes)
    for (size_t i = 1; i < 4; ++i)
      if (const auto* v = sq->as<CallNode>()->args[i]->as<VarNode>()) bound[v] = nullptr;
  std::vector<Var> inputs;
  for (const Var& p : fn->params)
    if (!bound.count(p.get())) inputs.push_back(p);

  // Per-channel weight scales: each weight's output-channel axis, when its one user is a conv2d
  // or dense.
  std::unordered_map<const ExprNode*, std::optional<int>> weightAxis;
  if (cfg.weightScale == "per_channel_max")
    postOrderVisit(fn->body, [&](const Expr& node) {
      const auto* call = node->as<CallNode>();
      if (!call) return;
      for (size_t i = 0; i < call->args.size(); ++i) {
        const Expr& a = call->args[i];
        if (!sqAttrs(a) || !isWeight(a)) continue;
        const bool known = weightAxis.count(a.get()) > 0;
        weightAxis[a.get()] = !known && i == 1 ? weightChannelAxis(*call) : std::nullopt;
      }
    });

  std::vector<float> statistics;
  if (cfg.calibrateMode != "global_scale")
    statistics = statisticThresholds(fn, observed, inputs, dataset, run, cfg);
  size_t next = 0;
  for (const Expr& sq : nodes) {
    const auto& call = *sq->as<CallNode>();
    const auto kind = static_cast<QAnnotateKind>(sqAttrs(sq)->kind);
    // The symmetric range [-(2^(n-1) - 1), 2^(n-1) - 1], or with unsigned_inputs, for a value
    // that cannot be negative, [0, 2^n - 1] (steps half as large).
    const bool unsignedRange =
        cfg.unsignedInputs && kind == QAnnotateKind::kInput && cannotBeNegative(call.args[0]);
    const float validRange =
        std::pow(2.0f, static_cast<float>(cfg.nbitOf(kind) - (unsignedRange ? 0 : 1)));
    float threshold = static_cast<float>(cfg.globalScale);
    std::optional<NDArray> channelScales;  // weight_scale "per_channel_max"
    if (kind == QAnnotateKind::kWeight) {
      const auto* c = call.args[0]->as<ConstantNode>();
      if (!c || !c->hasData()) {
        const auto* v = call.args[0]->as<VarNode>();
        throwDiagnostic(
            "quantize_calibrate",
            "a weight to quantize is not a constant" +
                (v ? " (it is parameter %" + v->nameHint + ")" : std::string()) +
                ": bind the parameters first (quantize(mod, params), --params FILE.npz)",
            call.args[0]->span);
      }
      const auto axis = weightAxis.find(sq.get());
      if (axis != weightAxis.end() && axis->second && *axis->second < c->data.ndim())
        channelScales = perChannelScales(c->data, *axis->second, validRange);
      else
        threshold = weightThreshold(c->data, cfg.weightScale == "power2" ? "power2" : "max");
    } else if (cfg.calibrateMode != "global_scale") {
      threshold = statistics.at(next++);
    }
    // Per channel, the reported threshold and scale are the largest channel's.
    const float domScale = channelScales ? maxScale(*channelScales) : threshold / validRange;
    if (channelScales) threshold = domScale * validRange;
    const Expr values[3] = {
        channelScales ? Expr(makeConstant(std::move(*channelScales)))
                      : scalarConstant(domScale, DataType::float32()),
        scalarConstant(unsignedRange ? 0 : -(validRange - 1), DataType::float32()),
        scalarConstant(validRange - 1, DataType::float32())};
    for (size_t i = 1; i < 4; ++i)
      if (const auto* v = call.args[i]->as<VarNode>()) bound[v] = values[i - 1];
    if (chosen) chosen->push_back({static_cast<int>(kind), threshold, domScale});
  }
  Expr body = rewriteBottomUp(fn->body, [&](const Expr& node, const std::vector<Expr>& children) {
    if (const auto* v = node->as<VarNode>())
      if (auto it = bound.find(v); it != bound.end() && it->second) return it->second;
    return withChildren(node, children);
  });
  return makeFunction(inputs, body, fn->retType, fn->attrs, fn->span);
}

Pass calibratePass(CalibrationDataset dataset, ModuleRunner run) {
  return makeModulePass(
      PassInfo{"QuantizeCalibrate", 1, {"InferType"}},
      [dataset = std::move(dataset), run = std::move(run)](const IRModule& m, PassContext&) {
        IRModule out = m;
        out.add("main", calibrate(m.lookup("main"), dataset, run));
        return out;
      });
}

}  // namespace tessera::relay::quantize
