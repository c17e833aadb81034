// VTA's dense strategy (dense_strategy.h): the fused function is read from its result back to the
// dense (epilogue_reader.h), then the operands' blocks and dtypes are checked.
#include "vta/strategy/dense_strategy.h"

#include "relay/visit.h"
#include "support/diagnostic.h"
#include "tir/transform/lower.h"
#include "vta/strategy/epilogue_reader.h"
#include "vta/tir/passes.h"

namespace tessera::vta {

using namespace relay;

namespace {

std::string dims(const std::vector<int64_t>& v) {
  std::string s = "(";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + ")";
}

}  // namespace

VtaDenseKernel readDenseKernel(const Function& fn, const Config& c) {
  const EpilogueChain chain = readEpilogueChain(
      fn, "nn.dense",
      [](const std::vector<int64_t>& out) {
        return out.size() == 4 ? std::vector<int64_t>{out[1], out[2], out[3]}
                               : std::vector<int64_t>{-1};
      },
      "(O/co, b, co)");
  const auto* dense = chain.anchor->as<CallNode>();
  const std::vector<int64_t> data = staticDimsAt(dense->args[0], *dense);
  const std::vector<int64_t> weight = staticDimsAt(dense->args[1], *dense);
  if (data.size() != 4 || weight.size() != 4 || data[2] != c.batch() || data[3] != c.blockIn() ||
      weight[2] != c.blockOut() || weight[3] != c.blockIn() || weight[1] != data[1])
    failAt(*dense, "a VTA dense needs data (N/" + std::to_string(c.batch()) + ", K/" +
                       std::to_string(c.blockIn()) + ", " + std::to_string(c.batch()) + ", " +
                       std::to_string(c.blockIn()) + ") and weight (O/" +
                       std::to_string(c.blockOut()) + ", K/" + std::to_string(c.blockIn()) + ", " +
                       std::to_string(c.blockOut()) + ", " + std::to_string(c.blockIn()) +
                       "), found " + dims(data) + " and " + dims(weight) +
                       " (run graph packing first)");
  const TensorTypeNode* dt = tensorTypeOfExpr(dense->args[0]);
  const TensorTypeNode* wt = tensorTypeOfExpr(dense->args[1]);
  const TensorTypeNode* ot = tensorTypeOfExpr(chain.anchor);
  if (dt->dtype != DataType::int8() || wt->dtype != DataType::int8() ||
      ot->dtype != DataType::int32())
    failAt(*dense, "VTA dense layers are int8 x int8 -> int32, found " + dt->dtype.name() + " x " +
                       wt->dtype.name() + " -> " + ot->dtype.name());
  VtaDenseKernel k;
  static_cast<GemmOperands&>(k) = gemmOperands(fn, chain, "dense layer");
  k.span = dense->span;
  k.shape.batch = data[0] * data[2];
  k.shape.inFeatures = data[1] * data[3];
  k.shape.outFeatures = weight[0] * weight[2];
  k.shape.epilogue = chain.ops;
  return k;
}

tir::PrimFunc compileDenseKernel(const VtaDenseKernel& kernel, const Config& config) {
  try {
    tir::Schedule sch(densePackedFunc(config, kernel.shape));
    scheduleDensePacked(sch, config, kernel.shape, defaultDensePackedKnobs(config, kernel.shape));
    tir::transform::PassContext ctx;
    addVtaLowerPasses(ctx, config);
    return tir::transform::lower(sch.func(), ctx);
  } catch (const DiagnosticError& e) {
    // The layer's limits are the user's: point at the op they come from.
    Diagnostic d = e.diagnostic();
    if (d.span.defined()) throw;
    d.span = kernel.span;
    if (d.context.empty()) d.context = "nn.dense";
    throw DiagnosticError(std::move(d));
  }
}

bool isVtaDenseFunction(const Function& fn) {
  bool found = false;
  postOrderVisit(fn->body, [&](const Expr& e) {
    const auto* call = e->as<CallNode>();
    if (!call || opNameOf(*call) != "nn.dense" || call->args.size() != 2) return;
    const TensorTypeNode* weight = tensorTypeOfExpr(call->args[1]);
    if (weight && weight->ndim() == 4) found = true;
  });
  return found;
}

}  // namespace tessera::vta
