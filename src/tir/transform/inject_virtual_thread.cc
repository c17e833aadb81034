// InjectVirtualThread (TVM's inject_virtual_thread.cc): a loop bound to a virtual thread axis
// (`vthread*`, or VTA's `cthread`) is lowered by LowerOpaqueBlock to a `virtual_thread` attribute
// around its body; this pass replaces the attribute by explicit copies of the work, so the threads'
// instructions interleave in one program.
//
//  * Allocations inside the scope get one copy per thread, side by side: extent n becomes n * N and
//    thread t's accesses are offset by t * n. Under `vthread` only buffers whose contents depend on
//    the thread are copied (the others are shared); under `cthread` every allocation is, as TVM
//    does for tags other than "vthread" (VTA's SRAM tiles are per thread).
//  * Each statement that reads the thread index or a per-thread buffer is replicated at the
//    innermost level where that happens: unrolled into N consecutive copies with t = 0..N-1 when
//    it holds no loop and N < 16, else wrapped in `for t.s in range(N)`. Loops that do not depend
//    on the thread stay shared around the copies. Under `cthread`, `coproc_scope` and
//    `coproc_uop_scope` statements are replicated whole (VTA's queue scopes), and so is every
//    evaluated call (VTA's dependency calls between them).
#include <unordered_map>
#include <unordered_set>

#include "support/diagnostic.h"
#include "tir/functor.h"
#include "tir/transform/pass_util.h"
#include "tir/transform/transform.h"

namespace tessera::tir::transform {

namespace {

using VarSet = std::unordered_set<const VarNode*>;

bool usesAny(const PrimExpr& e, const VarSet& vars) {
  bool found = false;
  postOrderVisitExpr(e, [&](const PrimExpr& x) {
    if (const auto* v = x->as<VarNode>(); v && vars.count(v)) found = true;
    if (const auto* load = x->as<BufferLoadNode>(); load && vars.count(load->buffer->data.get()))
      found = true;
  });
  return found;
}

// The thread variable, and every buffer (data variable) or let variable whose value depends on
// it, to a fixed point: a store of a dependent value (or at a dependent index) makes the buffer
// dependent.
VarSet touchedVars(const Stmt& body, const VarNode* thread) {
  VarSet touched = {thread};
  for (size_t before = 0; before != touched.size();) {
    before = touched.size();
    preOrderVisit(body, [&](const Stmt& s) {
      if (const auto* store = s->as<BufferStoreNode>()) {
        bool dependent = usesAny(store->value, touched);
        for (const PrimExpr& i : store->indices) dependent = dependent || usesAny(i, touched);
        if (dependent) touched.insert(store->buffer->data.get());
      } else if (const auto* let = s->as<LetStmtNode>()) {
        if (usesAny(let->value, touched)) touched.insert(let->var.get());
      }
      return true;
    });
  }
  return touched;
}

PrimExpr product(const std::vector<PrimExpr>& extents) {
  PrimExpr p = intImm(1);
  for (const PrimExpr& e : extents) p = mul(p, e);
  return p;
}

class VirtualThreadInjector : public IRMutator {
 public:
  VirtualThreadInjector(Var thread, int64_t count, VarSet touched, bool allowShare)
      : thread_(std::move(thread)),
        count_(count),
        touched_(std::move(touched)),
        allowShare_(allowShare) {}

  Stmt visitStmt(const Stmt& s) override {
    if (!s) return s;
    Stmt result = IRMutator::visitStmt(s);
    if (seen_ && !injected_) return inject(result, /*beforeMutation=*/false);
    if (injected_) seen_ = false;
    return result;
  }

 protected:
  PrimExpr visitVar(const VarNode* op, const PrimExpr& self) override {
    if (touched_.count(op)) seen_ = true;
    return self;
  }

  Buffer visitBuffer(const Buffer& b) override {
    auto it = bufferRemap_.find(b.get());
    return it == bufferRemap_.end() ? b : it->second;
  }

  PrimExpr visitBufferLoad(const BufferLoadNode* op, const PrimExpr& self) override {
    if (touched_.count(op->buffer->data.get())) seen_ = true;
    PrimExpr e = IRMutator::visitBufferLoad(op, self);
    const auto* load = e->as<BufferLoadNode>();
    auto stride = strideOf(load->buffer);
    if (!stride) return e;
    return bufferLoad(load->buffer, {offsetIndex(load->indices, *stride)});
  }

  // An address of a per-thread buffer (`tir.tvm_access_ptr(data, offset, extent, mask)`, as
  // tensor intrinsics pass tiles) moves with the thread's copy.
  PrimExpr visitCall(const CallNode* op, const PrimExpr& self) override {
    PrimExpr e = IRMutator::visitCall(op, self);
    const auto* c = e->as<CallNode>();
    if (c->op != "tir.tvm_access_ptr" || c->args.size() < 2) return e;
    const auto* data = c->args[0]->as<VarNode>();
    auto it = data ? remap_.find(data) : remap_.end();
    if (it == remap_.end()) return e;
    seen_ = true;
    std::vector<PrimExpr> args = c->args;
    args[1] = add(args[1], mul(thread_, it->second));
    return call(c->dtype, c->op, args);
  }

  Stmt visitBufferStore(const BufferStoreNode* op, const Stmt& self) override {
    if (touched_.count(op->buffer->data.get())) seen_ = true;
    Stmt s = IRMutator::visitBufferStore(op, self);
    const auto* store = s->as<BufferStoreNode>();
    auto stride = strideOf(store->buffer);
    if (!stride) return s;
    return bufferStore(store->buffer, store->value, {offsetIndex(store->indices, *stride)});
  }

  Stmt visitFor(const ForNode* op, const Stmt& self) override {
    PrimExpr extent = visitExpr(op->extent);
    if (seen_ && !injected_) {
      Stmt s = inject(self, /*beforeMutation=*/true);
      ++loopDepth_;
      return s;
    }
    seen_ = false;
    Stmt body = visitStmt(op->body);
    ++loopDepth_;
    auto n = std::make_shared<ForNode>(*op);
    n->extent = extent;
    n->body = body;
    return n;
  }

  Stmt visitSeqStmt(const SeqStmtNode* op, const Stmt&) override {
    std::vector<Stmt> out;
    for (const Stmt& child : op->seq) {
      const int outer = loopDepth_;
      loopDepth_ = 0;
      out.push_back(visitStmt(child));
      loopDepth_ = std::max(loopDepth_, outer);
    }
    return seq(std::move(out));
  }

  Stmt visitOtherStmt(const Stmt& self) override {
    if (const auto* attr = self->as<AttrStmtNode>()) return visitAttr(*attr, self);
    if (const auto* let = self->as<LetStmtNode>()) {
      PrimExpr value = visitExpr(let->value);
      if (seen_ && !injected_) return inject(self, true);
      seen_ = false;
      return letStmt(let->var, value, visitStmt(let->body));
    }
    if (const auto* branch = self->as<IfThenElseNode>()) {
      PrimExpr cond = visitExpr(branch->condition);
      if (seen_ && !injected_) return inject(self, true);
      seen_ = false;
      const int outer = loopDepth_;
      loopDepth_ = 0;
      Stmt thenCase = visitStmt(branch->thenCase);
      Stmt elseCase = branch->elseCase ? visitStmt(branch->elseCase) : nullptr;
      loopDepth_ = std::max(loopDepth_, outer);
      return ifThenElse(cond, thenCase, elseCase);
    }
    if (const auto* alloc = self->as<AllocateNode>()) return visitAllocate(*alloc, self);
    if (self->as<EvaluateNode>() && !allowShare_) {
      // TVM replicates every evaluated call under a non-sharing tag: VTA's dependency pushes and
      // pops outside queue scopes belong to each thread's stream.
      Stmt s = IRMutator::visitOtherStmt(self);
      seen_ = true;
      return s;
    }
    if (const auto* decl = self->as<DeclBufferNode>()) {
      auto it = remap_.find(decl->buffer->data.get());
      if (it != remap_.end())
        bufferRemap_[decl->buffer.get()] =
            withShape(decl->buffer, {mul(it->second, intImm(count_))});
      return declBuffer(visitBuffer(decl->buffer), visitStmt(decl->body));
    }
    return IRMutator::visitOtherStmt(self);
  }

 private:
  Stmt visitAttr(const AttrStmtNode& attr, const Stmt& self) {
    PrimExpr value = visitExpr(attr.value);
    if (seen_ && !injected_) return inject(self, true);
    const bool queueScope = attr.key == "coproc_scope" || attr.key == "coproc_uop_scope";
    if (!allowShare_ && !injected_ && queueScope) return inject(self, true);
    return attrStmt(attr.node, attr.key, value, visitStmt(attr.body));
  }

  Stmt visitAllocate(const AllocateNode& alloc, const Stmt& self) {
    std::vector<PrimExpr> extents;
    for (const PrimExpr& e : alloc.extents) extents.push_back(visitExpr(e));
    if (seen_ && !injected_) return inject(self, true);
    seen_ = false;
    if (touched_.count(alloc.bufferVar.get()) || !allowShare_) {
      const PrimExpr perThread = product(extents);
      remap_[alloc.bufferVar.get()] = perThread;
      extents = {mul(perThread, intImm(count_))};
    }
    return allocate(alloc.bufferVar, alloc.dtype, extents, alloc.scope, visitStmt(alloc.body));
  }

  std::optional<PrimExpr> strideOf(const Buffer& buffer) const {
    auto it = remap_.find(buffer->data.get());
    if (it == remap_.end()) return std::nullopt;
    return it->second;
  }

  // Thread t's copy of a per-thread buffer starts t * stride elements in.
  PrimExpr offsetIndex(const std::vector<PrimExpr>& indices, const PrimExpr& stride) {
    if (indices.size() != 1)
      throwDiagnostic("virtual_thread",
                      "a per-thread buffer must be flat (one index) when threads are injected");
    seen_ = true;
    const PrimExpr offset = mul(thread_, stride);  // substituted per copy below
    if (const auto* r = indices[0]->as<RampNode>())
      return ramp(add(r->base, offset), r->stride, r->lanes);
    return add(indices[0], offset);
  }

  Stmt inject(Stmt stmt, bool beforeMutation) {
    seen_ = false;
    injected_ = true;
    if (beforeMutation) stmt = visitStmt(stmt);
    injected_ = false;
    seen_ = false;
    if (loopDepth_ == 0 && count_ < 16) {
      std::vector<Stmt> copies;
      for (int64_t t = 0; t < count_; ++t)
        copies.push_back(substitute(stmt, {{thread_.get(), intImm(t, thread_->dtype)}}));
      return seq(std::move(copies));
    }
    Var index = makeVar(thread_->name + ".s", thread_->dtype);
    return forLoop(index, intImm(0, index->dtype), intImm(count_, index->dtype), ForKind::kSerial,
                   substitute(stmt, {{thread_.get(), index}}));
  }

  const Var thread_;
  const int64_t count_;
  const VarSet touched_;
  const bool allowShare_;
  bool seen_ = false;      // the statement being visited reads the thread or a per-thread buffer
  bool injected_ = false;  // inside a statement already being replicated
  int loopDepth_ = 0;      // loops inside the statement visited last
  std::unordered_map<const VarNode*, PrimExpr> remap_;  // per-thread buffer -> its stride
  std::unordered_map<const BufferNode*, Buffer> bufferRemap_;
};

// Innermost scopes first, as TVM's post-order mutator does.
class VirtualThreadLowerer : public IRMutator {
 protected:
  Stmt visitOtherStmt(const Stmt& self) override {
    Stmt s = IRMutator::visitOtherStmt(self);
    const auto* attr = s->as<AttrStmtNode>();
    if (!attr || attr->key != "virtual_thread") return s;
    const int64_t* count = asConstInt(attr->value);
    if (!count || *count <= 0)
      throwDiagnostic("virtual_thread",
                      "virtual thread '" + attr->node->name + "' needs a constant positive extent");
    const bool allowShare = attr->node->name.rfind("vthread", 0) == 0;
    VirtualThreadInjector injector(attr->node, *count, touchedVars(attr->body, attr->node.get()),
                                   allowShare);
    return injector.visitStmt(attr->body);
  }
};

}  // namespace

PrimFunc injectVirtualThread(const PrimFunc& func) {
  VirtualThreadLowerer lowerer;
  return withBody(func, lowerer.visitStmt(func->body));
}

}  // namespace tessera::tir::transform
