// LowerDeviceStorageAccessInfo (spec vta.md §6.1, §6.8): addresses of SRAM tiles become entry
// indices. An INP entry holds BATCH x BLOCK_IN scalars, WGT BLOCK_OUT x BLOCK_IN, ACC
// BATCH x BLOCK_OUT, so `tir.tvm_access_ptr(buf, offset, ...)` of an SRAM buffer is
// `base(buf) + offset / that`. Each scope's allocations (virtual-thread copies included) are laid
// out one after another from entry 0 — every allocation counts as live for the whole program,
// which is exact for the one region per scope VTA kernels use — and must fit the scope's depth.
// SRAM allocations have no host address; each is dropped once nothing on the host reads or
// writes it (an allocation still accessed by loads or stores is kept).
#include <unordered_map>
#include <unordered_set>

#include "support/diagnostic.h"
#include "tir/arith/analyzer.h"
#include "tir/functor.h"
#include "tir/printer/printer.h"
#include "tir/transform/pass_util.h"
#include "vta/tir/passes.h"

namespace tessera::vta {

namespace {

using namespace tir;

int64_t scalarsPerEntry(const std::string& scope, const Config& c) {
  if (scope == "local.inp_buffer") return int64_t{c.batch()} * c.blockIn();
  if (scope == "local.wgt_buffer") return int64_t{c.blockOut()} * c.blockIn();
  if (scope == "local.acc_buffer") return int64_t{c.batch()} * c.blockOut();
  return 0;
}

int64_t depthOf(const std::string& scope, const Config& c) {
  if (scope == "local.inp_buffer") return c.inpBuffDepth();
  if (scope == "local.wgt_buffer") return c.wgtBuffDepth();
  return c.accBuffDepth();
}

class AccessLowerer : public IRMutator {
 public:
  AccessLowerer(const Stmt& body, const Config& c) {
    std::unordered_map<std::string, int64_t> used;  // entries per scope
    preOrderVisit(body, [&](const Stmt& s) {
      if (const auto* a = s->as<AllocateNode>())
        if (int64_t n = scalarsPerEntry(a->scope, c)) {
          entry_[a->bufferVar.get()] = n;
          int64_t scalars = 1;
          for (const PrimExpr& e : a->extents) {
            const int64_t* v = asConstInt(e);
            if (!v)
              throwDiagnostic("vta_lower", "SRAM buffer '" + a->bufferVar->name +
                                               "' has a size unknown at compile time");
            scalars *= *v;
          }
          base_[a->bufferVar.get()] = used[a->scope];
          used[a->scope] += (scalars + n - 1) / n;
          const int64_t depth = depthOf(a->scope, c);
          if (used[a->scope] > depth)
            throwDiagnostic("vta_lower", "allocation exceeds bound of memory tag " + a->scope +
                                             ": " + std::to_string(used[a->scope]) +
                                             " entries needed, " + std::to_string(depth) +
                                             " available ('" + a->bufferVar->name +
                                             "', virtual-thread copies included)");
        }
      if (const auto* st = s->as<BufferStoreNode>()) accessed_.insert(st->buffer->data.get());
      return true;
    });
    postOrderVisitExprs(body, [&](const PrimExpr& e) {
      if (const auto* l = e->as<BufferLoadNode>()) accessed_.insert(l->buffer->data.get());
    });
  }

 protected:
  PrimExpr visitCall(const CallNode* op, const PrimExpr& self) override {
    PrimExpr e = IRMutator::visitCall(op, self);
    const auto* c = e->as<CallNode>();
    if (c->op != "tir.tvm_access_ptr" || c->args.size() < 2) return e;
    const auto* data = c->args[0]->as<VarNode>();
    auto it = data ? entry_.find(data) : entry_.end();
    if (it == entry_.end()) return e;
    const PrimExpr per = intImm(it->second, c->args[1]->dtype);
    if (!analyzer_.canProve(eq(floormod(c->args[1], per), intImm(0, per->dtype))))
      throwDiagnostic("vta_lower",
                      "the address of '" + data->name + "' is not a whole SRAM entry (" +
                          std::to_string(it->second) + " scalars): " + toString(c->args[1]));
    return analyzer_.simplify(floordiv(c->args[1], per) + intImm(base_.at(data), per->dtype));
  }

  Stmt visitOtherStmt(const Stmt& self) override {
    if (const auto* a = self->as<AllocateNode>())
      if (entry_.count(a->bufferVar.get()) && !accessed_.count(a->bufferVar.get()))
        return visitStmt(a->body);
    if (const auto* d = self->as<DeclBufferNode>())
      if (entry_.count(d->buffer->data.get()) && !accessed_.count(d->buffer->data.get()))
        return visitStmt(d->body);
    return IRMutator::visitOtherStmt(self);
  }

 private:
  std::unordered_map<const VarNode*, int64_t> entry_;
  std::unordered_map<const VarNode*, int64_t> base_;  // first entry of the buffer in its SRAM
  std::unordered_set<const VarNode*> accessed_;
  arith::Analyzer analyzer_;
};

}  // namespace

PrimFunc lowerDeviceStorageAccessInfo(const PrimFunc& func, const Config& config) {
  AccessLowerer lowerer(func->body, config);
  return tir::transform::withBody(func, lowerer.visitStmt(func->body));
}

}  // namespace tessera::vta
