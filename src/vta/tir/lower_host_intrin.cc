// LowerVtaHostIntrin: the last step before a VTA program goes to the CPU code generator (TVM's
// intrinsic lowerings that vta/environment.py registers for the "default" target). The lowered
// program names VTA's operations as intrinsics — `vta.command_handle()`, `vta.coproc_dep_push`,
// `vta.coproc_dep_pop`, `vta.coproc_sync`, `vta.uop_push` — so that it prints as TVM prints it;
// here each becomes a call of the runtime's C function (vta/rt/c_api.h), which the code
// generator reaches through its slot. Integer arguments are cast to the C signature's 32 bits.
#include <dlpack/dlpack.h>

#include <limits>

#include "support/diagnostic.h"
#include "tir/functor.h"
#include "tir/transform/pass_util.h"
#include "vta/tir/passes.h"

namespace tessera::vta {

namespace {

using namespace tir;

class HostIntrinLowerer : public IRMutator {
 protected:
  PrimExpr visitCall(const CallNode* op, const PrimExpr& self) override {
    const DataType i32 = DataType::int32();
    auto args = [&] {
      std::vector<PrimExpr> out;
      for (const PrimExpr& a : op->args) out.push_back(toInt32(visitExpr(a)));
      return out;
    };
    auto extern_ = [&](const char* name, std::vector<PrimExpr> rest, bool withHandle) {
      std::vector<PrimExpr> all = {stringImm(name)};
      if (withHandle) all.push_back(handle());
      all.insert(all.end(), rest.begin(), rest.end());
      return call(i32, "tir.call_extern", std::move(all));
    };
    if (op->op == "vta.command_handle") return handle();
    if (op->op == "vta.coproc_dep_push") return extern_("VTADepPush", args(), true);
    if (op->op == "vta.coproc_dep_pop") return extern_("VTADepPop", args(), true);
    // TVM waits up to 1 << 31 cycles; the simulator finishes every run it is given.
    if (op->op == "vta.coproc_sync")
      return extern_("VTASynchronize", {intImm(std::numeric_limits<int32_t>::min())}, true);
    if (op->op == "vta.uop_push") return extern_("VTAUopPush", args(), false);
    if (op->op.starts_with("vta."))
      throwDiagnostic("vta_host",
                      "the VTA host code generator has no lowering for '" + op->op + "'");
    if (op->op == "tir.call_extern") {
      // Runtime calls take 32-bit integers; buffers and the command handle stay pointers.
      std::vector<PrimExpr> out = {op->args.at(0)};
      for (size_t i = 1; i < op->args.size(); ++i) out.push_back(toInt32(visitExpr(op->args[i])));
      return call(op->dtype, op->op, std::move(out));
    }
    return IRMutator::visitCall(op, self);
  }

 private:
  static PrimExpr handle() {
    return call(DataType::handle(), "tir.call_extern", {stringImm("VTATLSCommandHandle")});
  }
  static PrimExpr toInt32(const PrimExpr& e) {
    if (!e->dtype.isInt() && !e->dtype.isUInt()) return e;
    if (e->dtype == DataType::int32()) return e;
    return cast(DataType::int32(), e);
  }
};

}  // namespace

PrimFunc lowerVtaHostIntrin(const PrimFunc& func) {
  HostIntrinLowerer lowerer;
  PrimFunc out = tir::transform::withBody(func, lowerer.visitStmt(func->body));
  auto node = std::make_shared<PrimFuncNode>(*out);
  node->attrs.set("tessera.device_type", AttrValue::integer(kDLExtDev));
  return node;
}

}  // namespace tessera::vta
