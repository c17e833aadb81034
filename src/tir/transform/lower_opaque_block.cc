// LowerOpaqueBlock: the last pass that sees blocks. A block becomes its body wrapped in its
// allocations (Allocate + DeclBuffer) and, when it has a predicate, an `if`. Loops lose what only
// blocks needed: extent-1 loops vanish, `pragma_*` annotations become attribute statements around
// the body, and thread-bound loops become `thread_extent` attributes on a thread variable.
#include "support/check.h"
#include "tir/functor.h"
#include "tir/transform/pass_util.h"
#include "tir/transform/transform.h"

namespace tessera::tir::transform {

namespace {

bool startsWith(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

class OpaqueBlockLowerer : public IRMutator {
 protected:
  PrimExpr visitVar(const VarNode* op, const PrimExpr& self) override {
    auto it = substituted_.find(op);
    return it == substituted_.end() ? self : it->second;
  }

  Stmt visitBlockRealize(const BlockRealizeNode* op, const Stmt& self) override {
    const BlockNode* block = op->block.get();
    TS_CHECK(block->iterVars.empty() && !block->init)
        << "LowerOpaqueBlock: block '" << block->name
        << "' still has iter vars or init; run ConvertBlocksToOpaque and LowerInitBlock first";
    Stmt body = visitStmt(block->body);
    for (auto it = block->allocBuffers.rbegin(); it != block->allocBuffers.rend(); ++it) {
      const Buffer& b = *it;
      body = allocate(b->data, b->dtype, b->shape, b->scope, declBuffer(b, body));
    }
    PrimExpr predicate = visitExpr(op->predicate);
    if (!isConstTrue(predicate)) body = ifThenElse(predicate, body);
    return body;
  }

  Stmt visitFor(const ForNode* op, const Stmt& self) override {
    PrimExpr min = visitExpr(op->min);
    PrimExpr extent = visitExpr(op->extent);
    if (op->forKind == ForKind::kThreadBinding) return lowerThreadBinding(op, min, extent);
    if (isOne(extent) && op->annotations.empty()) {
      // The loop variable takes one value; substitute it and drop the loop.
      substituted_[op->loopVar.get()] = min;
      return visitStmt(op->body);
    }
    Stmt body = visitStmt(op->body);
    Annotations kept;
    std::vector<std::pair<std::string, PrimExpr>> pragmas;
    for (const auto& [key, value] : op->annotations.entries()) {
      PrimExpr asExpr = startsWith(key, "pragma_") ? attrToExpr(value) : nullptr;
      if (asExpr)
        pragmas.emplace_back(key, asExpr);
      else
        kept.set(key, value);
    }
    for (auto it = pragmas.rbegin(); it != pragmas.rend(); ++it)
      body = attrStmt(op->loopVar, it->first, it->second, body);
    auto n = std::make_shared<ForNode>(*op);
    n->min = min;
    n->extent = extent;
    n->body = body;
    n->annotations = kept;
    return n;
  }

 private:
  // A thread-bound loop is implicit: the launch provides one thread per iteration. Its variable is
  // renamed after the thread tag, which is how code generators recognise the thread index.
  Stmt lowerThreadBinding(const ForNode* op, const PrimExpr& min, const PrimExpr& extent) {
    Var thread =
        makeVar(op->threadTag.empty() ? op->loopVar->name : op->threadTag, op->loopVar->dtype);
    substituted_[op->loopVar.get()] = isZero(min) ? PrimExpr(thread) : add(thread, min);
    Stmt body = visitStmt(op->body);
    // Virtual threads (vthread*, and VTA's cthread) run in one program: InjectVirtualThread
    // replicates their work; real thread axes are launched.
    const std::string& tag = op->threadTag;
    if (tag.rfind("vthread", 0) == 0 || tag == "cthread")
      return attrStmt(thread, "virtual_thread", extent, body);
    return attrStmt(thread, "thread_extent", extent, body);
  }

  VarMap substituted_;
};

}  // namespace

PrimFunc lowerOpaqueBlock(const PrimFunc& func) {
  OpaqueBlockLowerer lowerer;
  return withBody(func, lowerer.visitStmt(func->body));
}

}  // namespace tessera::tir::transform
