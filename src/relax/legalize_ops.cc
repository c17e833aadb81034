// LegalizeOps through callTe: each op's TE compute is one TOPI call, and the PrimFunc name is
// TVM's (the TOPI function name), de-duplicated by structural identity.
#include "relax/legalize_ops.h"

#include "relax/block_builder.h"
#include "relax/ops.h"
#include "support/check.h"
#include "topi/broadcast.h"
#include "topi/elemwise.h"
#include "topi/nn.h"
#include "topi/transform.h"

namespace tessera::relax {

namespace {

Expr legalizeCall(IRModule& module, const CallNode& call) {
  const std::vector<Expr>& args = call.args;
  if (call.op == "relax.add")
    return callTe(module, "add", [](const auto& t) { return topi::add(t[0], t[1]); }, args);
  if (call.op == "relax.multiply")
    return callTe(
        module, "multiply", [](const auto& t) { return topi::multiply(t[0], t[1]); }, args);
  if (call.op == "relax.nn.relu")
    return callTe(module, "relu", [](const auto& t) { return topi::relu(t[0]); }, args);
  if (call.op == "relax.matmul")
    return callTe(module, "matmul", [](const auto& t) { return topi::matmul(t[0], t[1]); }, args);
  TS_CHECK(call.op == "relax.permute_dims");
  std::vector<int64_t> axes = call.axes;
  return callTe(
      module, "transpose", [axes](const auto& t) { return topi::transpose(t[0], axes); }, args);
}

}  // namespace

IRModule legalizeOps(const IRModule& module) {
  IRModule out = module;
  for (const IRModule::Entry& entry : module.entries()) {
    const auto* func = std::get_if<Function>(&entry.func);
    if (!func) continue;
    auto rewritten = std::make_shared<FunctionNode>(**func);
    bool changed = false;
    for (BindingBlock& block : rewritten->blocks)
      for (Binding& b : block.bindings) {
        const auto* call = b.value->as<CallNode>();
        if (!call || !isHighLevelOp(call->op)) continue;
        b.value = legalizeCall(out, *call);
        changed = true;
      }
    if (changed) out.update(entry.name, Function(rewritten));
  }
  return out;
}

}  // namespace tessera::relax
