#include "relay/quantize/report.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <limits>
#include <set>
#include <sstream>

#include "relay/op/quantize.h"
#include "relay/quantize/annotate.h"
#include "relay/quantize/quantize_util.h"
#include "relay/type_infer.h"
#include "relay/visit.h"
#include "support/check.h"

namespace tessera::relay::quantize {
namespace {

const CallNode* sqCall(const Expr& e) {
  const auto* call = e->as<CallNode>();
  const auto* op = call ? call->op->as<OpNode>() : nullptr;
  return op && op->name == "relay.op.annotation.simulated_quantize" ? call : nullptr;
}

int kindOf(const CallNode& sq) {
  return attrsAs<SimulatedQuantizeAttrs>(sq.attrs.get())->kind;
}

std::string producerName(const Expr& e, std::map<std::string, int>& seen,
                         std::map<const ExprNode*, std::string>& names) {
  if (auto it = names.find(e.get()); it != names.end()) return it->second;
  std::string name = "input";
  if (const auto* v = e->as<VarNode>()) name = "%" + v->nameHint;
  if (const auto* c = e->as<CallNode>())
    if (const auto* op = c->op->as<OpNode>())
      name = op->name + " #" + std::to_string(++seen[op->name]);
  names[e.get()] = name;
  return name;
}

}  // namespace

std::vector<LayerReport> layerReport(const Function& calibrated, const CalibrationDataset& dataset,
                                     const ModuleRunner& run) {
  std::vector<Expr> points;  // non-weight simulated quantizes, in post order
  std::map<std::string, int> seen;
  std::map<const ExprNode*, std::string> names;
  std::vector<LayerReport> rows;
  for (const Expr& node : postOrder(calibrated->body)) {
    if (node->as<CallNode>() && !sqCall(node)) producerName(node, seen, names);  // visit order
    const CallNode* sq = sqCall(node);
    if (!sq || kindOf(*sq) == static_cast<int>(QAnnotateKind::kWeight)) continue;
    points.push_back(node);
    LayerReport row;
    row.kind = kindOf(*sq) == static_cast<int>(QAnnotateKind::kInput) ? "INPUT" : "ACTIVATION";
    row.name = producerName(sq->args[0], seen, names) + " -> " + row.kind;
    row.domScale = static_cast<float>(scalarValue(sq->args[1]));
    row.threshold = row.domScale * static_cast<float>(scalarValue(sq->args[3]) + 1);
    rows.push_back(row);
  }
  if (points.empty() || dataset.empty()) return rows;
  // Float values at each point (every simulated quantize passes values through), and the
  // simulated model's value there before and after quantizing.
  std::unordered_map<const ExprNode*, Expr> identity;
  const Expr zero = scalarConstant(0, DataType::float32());
  const Expr floatBody =
      rewriteBottomUp(calibrated->body, [&](const Expr& node, const std::vector<Expr>& children) {
        if (!sqCall(node)) return withChildren(node, children);
        Expr pass = simulatedQuantize(children[1], zero, zero, zero, QAnnotateKind::kIdentity);
        identity[node.get()] = pass;
        return pass;
      });
  std::vector<Expr> floatFields, simFields;
  for (const Expr& p : points) {
    floatFields.push_back(identity.at(p.get()));
    simFields.push_back(sqCall(p)->args[0]);
    simFields.push_back(p);
  }
  const IRModule floatModule =
      inferTypes(IRModule::fromExpr(makeFunction(calibrated->params, makeTuple(floatFields))));
  const IRModule simModule =
      inferTypes(IRModule::fromExpr(makeFunction(calibrated->params, makeTuple(simFields))));
  std::vector<double> signal(points.size()), noise(points.size()), clipped(points.size()),
      count(points.size());
  for (const auto& batch : dataset) {
    const std::vector<NDArray> ref = run(floatModule, batch);
    const std::vector<NDArray> sim = run(simModule, batch);
    for (size_t i = 0; i < points.size(); ++i) {
      const NDArray& before = sim[2 * i];
      const NDArray& after = sim[2 * i + 1];
      const double limit = static_cast<double>(rows[i].threshold) - rows[i].domScale / 2;
      for (int64_t k = 0; k < ref[i].numel(); ++k) {
        const double x = ref[i].getFloat(k), q = after.getFloat(k);
        signal[i] += x * x;
        noise[i] += (x - q) * (x - q);
        clipped[i] += std::fabs(before.getFloat(k)) > limit;
      }
      count[i] += static_cast<double>(ref[i].numel());
    }
  }
  for (size_t i = 0; i < rows.size(); ++i) {
    rows[i].measured = true;
    rows[i].clipped = count[i] > 0 ? clipped[i] / count[i] : 0;
    rows[i].sqnrDb = noise[i] > 0 ? 10 * std::log10(signal[i] / noise[i])
                                  : std::numeric_limits<double>::infinity();
  }
  std::stable_sort(rows.begin(), rows.end(),
                   [](const LayerReport& a, const LayerReport& b) { return a.sqnrDb < b.sqnrDb; });
  return rows;
}

std::vector<std::string> opsLeftInFloat(const Function& fn) {
  registerBuiltinAnnotateRules();
  std::set<std::string> out;
  postOrderVisit(fn->body, [&](const Expr& node) {
    const auto* call = node->as<CallNode>();
    const auto* op = call ? call->op->as<OpNode>() : nullptr;
    if (op && !kAnnotateRules.get(op->name)) out.insert(op->name);
  });
  return {out.begin(), out.end()};
}

std::string formatLayerReport(const std::vector<LayerReport>& rows,
                              const std::vector<std::string>& floatOps) {
  std::ostringstream s;
  s << "quantized values, worst first (SQNR against the float model on the calibration data):\n";
  s << "  " << std::left << std::setw(40) << "value" << std::right << std::setw(12) << "threshold"
    << std::setw(12) << "scale" << std::setw(10) << "clipped" << std::setw(11) << "SQNR dB\n";
  bool unmeasured = false;
  for (const LayerReport& r : rows) {
    s << "  " << std::left << std::setw(40) << r.name << std::right << std::setw(12)
      << std::setprecision(5) << r.threshold << std::setw(12) << r.domScale;
    if (r.measured)
      s << std::setw(9) << std::fixed << std::setprecision(2) << 100 * r.clipped << "%"
        << std::setw(10) << std::setprecision(1) << r.sqnrDb << std::defaultfloat;
    else
      s << std::setw(10) << "-" << std::setw(10) << "-";
    s << "\n";
    unmeasured |= !r.measured;
  }
  if (unmeasured)
    s << "(no calibration data: clipping and SQNR are measured on a dataset; give --dataset)\n";
  if (!floatOps.empty()) {
    s << "ops without a quantization rule (they run in float):";
    for (const std::string& op : floatOps) s << " " << op;
    s << "\n";
  }
  return s.str();
}

}  // namespace tessera::relay::quantize
