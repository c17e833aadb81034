#include "tir/functor.h"

#include "support/check.h"

namespace tessera::tir {

// --- IRVisitor -----------------------------------------------------------------------------------

void IRVisitor::visitExpr(const PrimExpr& e) {
  if (!e) return;
  switch (e->kind) {
    case ExprKind::kIntImm:
    case ExprKind::kFloatImm:
    case ExprKind::kStringImm:
      return;
    case ExprKind::kVar: return visitVar(e->as<VarNode>());
    case ExprKind::kCast: return visitExpr(e->as<CastNode>()->value);
    case ExprKind::kBinary:
      visitExpr(e->as<BinaryNode>()->a);
      return visitExpr(e->as<BinaryNode>()->b);
    case ExprKind::kNot: return visitExpr(e->as<NotNode>()->a);
    case ExprKind::kSelect: {
      const auto* s = e->as<SelectNode>();
      visitExpr(s->cond);
      visitExpr(s->t);
      return visitExpr(s->f);
    }
    case ExprKind::kBufferLoad: return visitBufferLoad(e->as<BufferLoadNode>());
    case ExprKind::kRamp:
      visitExpr(e->as<RampNode>()->base);
      return visitExpr(e->as<RampNode>()->stride);
    case ExprKind::kBroadcast: return visitExpr(e->as<BroadcastNode>()->value);
    case ExprKind::kLet: return visitLet(e->as<LetNode>());
    case ExprKind::kCall: return visitCall(e->as<CallNode>());
    case ExprKind::kReduce: return visitReduce(e->as<ReduceNode>());
  }
}

void IRVisitor::visitBufferLoad(const BufferLoadNode* op) {
  for (const PrimExpr& i : op->indices) visitExpr(i);
}
void IRVisitor::visitCall(const CallNode* op) {
  for (const PrimExpr& a : op->args) visitExpr(a);
}
void IRVisitor::visitReduce(const ReduceNode* op) {
  for (const PrimExpr& s : op->source) visitExpr(s);
  for (const PrimExpr& s : op->init) visitExpr(s);
  visitExpr(op->condition);
}
void IRVisitor::visitLet(const LetNode* op) {
  visitExpr(op->value);
  visitExpr(op->body);
}

void IRVisitor::visitRegion(const BufferRegion& region) {
  for (const Range& r : region.region) {
    visitExpr(r.min);
    visitExpr(r.extent);
  }
}

void IRVisitor::visitStmt(const Stmt& s) {
  if (!s) return;
  switch (s->kind) {
    case StmtKind::kBufferStore: return visitBufferStore(s->as<BufferStoreNode>());
    case StmtKind::kFor: return visitFor(s->as<ForNode>());
    case StmtKind::kBlock: return visitBlock(s->as<BlockNode>());
    case StmtKind::kBlockRealize: return visitBlockRealize(s->as<BlockRealizeNode>());
    case StmtKind::kIfThenElse: return visitIfThenElse(s->as<IfThenElseNode>());
    case StmtKind::kLetStmt: return visitLetStmt(s->as<LetStmtNode>());
    case StmtKind::kAllocate: return visitAllocate(s->as<AllocateNode>());
    default: return visitOtherStmt(s);
  }
}

void IRVisitor::visitBufferStore(const BufferStoreNode* op) {
  visitExpr(op->value);
  for (const PrimExpr& i : op->indices) visitExpr(i);
}
void IRVisitor::visitFor(const ForNode* op) {
  visitExpr(op->min);
  visitExpr(op->extent);
  visitStmt(op->body);
}
void IRVisitor::visitBlock(const BlockNode* op) {
  for (const IterVar& iv : op->iterVars) {
    visitExpr(iv.dom.min);
    visitExpr(iv.dom.extent);
  }
  for (const BufferRegion& r : op->reads) visitRegion(r);
  for (const BufferRegion& r : op->writes) visitRegion(r);
  for (const MatchBufferRegion& m : op->matchBuffers) visitRegion(m.source);
  visitStmt(op->init);
  visitStmt(op->body);
}
void IRVisitor::visitBlockRealize(const BlockRealizeNode* op) {
  for (const PrimExpr& v : op->iterValues) visitExpr(v);
  visitExpr(op->predicate);
  visitStmt(op->block);
}
void IRVisitor::visitIfThenElse(const IfThenElseNode* op) {
  visitExpr(op->condition);
  visitStmt(op->thenCase);
  visitStmt(op->elseCase);
}
void IRVisitor::visitLetStmt(const LetStmtNode* op) {
  visitExpr(op->value);
  visitStmt(op->body);
}
void IRVisitor::visitAllocate(const AllocateNode* op) {
  for (const PrimExpr& e : op->extents) visitExpr(e);
  visitStmt(op->body);
}
void IRVisitor::visitOtherStmt(const Stmt& s) {
  switch (s->kind) {
    case StmtKind::kSeqStmt:
      for (const Stmt& x : s->as<SeqStmtNode>()->seq) visitStmt(x);
      return;
    case StmtKind::kEvaluate: return visitExpr(s->as<EvaluateNode>()->value);
    case StmtKind::kAttrStmt:
      visitExpr(s->as<AttrStmtNode>()->value);
      return visitStmt(s->as<AttrStmtNode>()->body);
    case StmtKind::kAssertStmt:
      visitExpr(s->as<AssertStmtNode>()->condition);
      return visitStmt(s->as<AssertStmtNode>()->body);
    case StmtKind::kDeclBuffer: return visitStmt(s->as<DeclBufferNode>()->body);
    default: TS_CHECK(false) << "IRVisitor: unhandled statement kind";
  }
}

// --- IRMutator -----------------------------------------------------------------------------------

std::vector<PrimExpr> IRMutator::visitExprs(const std::vector<PrimExpr>& es, bool* changed) {
  std::vector<PrimExpr> out;
  out.reserve(es.size());
  for (const PrimExpr& e : es) {
    out.push_back(visitExpr(e));
    if (out.back() != e) *changed = true;
  }
  return out;
}

PrimExpr IRMutator::visitExpr(const PrimExpr& e) {
  if (!e) return e;
  switch (e->kind) {
    case ExprKind::kVar: return visitVar(e->as<VarNode>(), e);
    case ExprKind::kBufferLoad: return visitBufferLoad(e->as<BufferLoadNode>(), e);
    case ExprKind::kCall: return visitCall(e->as<CallNode>(), e);
    default: return visitOtherExpr(e);
  }
}

PrimExpr IRMutator::visitBufferLoad(const BufferLoadNode* op, const PrimExpr& self) {
  bool changed = false;
  std::vector<PrimExpr> indices = visitExprs(op->indices, &changed);
  Buffer buffer = visitBuffer(op->buffer);
  if (!changed && buffer == op->buffer) return self;
  return bufferLoad(buffer, std::move(indices));
}

PrimExpr IRMutator::visitCall(const CallNode* op, const PrimExpr& self) {
  bool changed = false;
  std::vector<PrimExpr> args = visitExprs(op->args, &changed);
  if (!changed) return self;
  return call(op->dtype, op->op, std::move(args));
}

PrimExpr IRMutator::visitOtherExpr(const PrimExpr& e) {
  switch (e->kind) {
    case ExprKind::kIntImm:
    case ExprKind::kFloatImm:
    case ExprKind::kStringImm:
    case ExprKind::kVar:
      return e;
    case ExprKind::kCast: {
      const auto* op = e->as<CastNode>();
      PrimExpr v = visitExpr(op->value);
      return v == op->value ? e : std::make_shared<CastNode>(op->dtype, v);
    }
    case ExprKind::kBinary: {
      const auto* op = e->as<BinaryNode>();
      PrimExpr a = visitExpr(op->a);
      PrimExpr b = visitExpr(op->b);
      if (a == op->a && b == op->b) return e;
      return std::make_shared<BinaryNode>(op->op, op->dtype, a, b);
    }
    case ExprKind::kNot: {
      const auto* op = e->as<NotNode>();
      PrimExpr a = visitExpr(op->a);
      return a == op->a ? e : std::make_shared<NotNode>(a);
    }
    case ExprKind::kSelect: {
      const auto* op = e->as<SelectNode>();
      PrimExpr c = visitExpr(op->cond), t = visitExpr(op->t), f = visitExpr(op->f);
      if (c == op->cond && t == op->t && f == op->f) return e;
      return std::make_shared<SelectNode>(c, t, f);
    }
    case ExprKind::kRamp: {
      const auto* op = e->as<RampNode>();
      PrimExpr base = visitExpr(op->base), stride = visitExpr(op->stride);
      if (base == op->base && stride == op->stride) return e;
      return ramp(base, stride, op->lanes);
    }
    case ExprKind::kBroadcast: {
      const auto* op = e->as<BroadcastNode>();
      PrimExpr v = visitExpr(op->value);
      return v == op->value ? e : broadcast(v, op->lanes);
    }
    case ExprKind::kLet: {
      const auto* op = e->as<LetNode>();
      PrimExpr v = visitExpr(op->value), b = visitExpr(op->body);
      if (v == op->value && b == op->body) return e;
      return let(op->var, v, b);
    }
    case ExprKind::kReduce: {
      const auto* op = e->as<ReduceNode>();
      bool changed = false;
      std::vector<PrimExpr> source = visitExprs(op->source, &changed);
      std::vector<PrimExpr> init = visitExprs(op->init, &changed);
      PrimExpr cond = visitExpr(op->condition);
      if (!changed && cond == op->condition) return e;
      return std::make_shared<ReduceNode>(op->dtype, op->combiner, source, op->axis, cond,
                                          op->valueIndex, init);
    }
    default: TS_CHECK(false) << "IRMutator: unhandled expression kind";
  }
  return e;
}

BufferRegion IRMutator::visitRegion(const BufferRegion& region) {
  BufferRegion out{visitBuffer(region.buffer), {}};
  for (const Range& r : region.region) out.region.push_back({visitExpr(r.min), visitExpr(r.extent)});
  return out;
}

Stmt IRMutator::visitStmt(const Stmt& s) {
  if (!s) return s;
  switch (s->kind) {
    case StmtKind::kBufferStore: return visitBufferStore(s->as<BufferStoreNode>(), s);
    case StmtKind::kFor: return visitFor(s->as<ForNode>(), s);
    case StmtKind::kBlock: return visitBlock(s->as<BlockNode>(), s);
    case StmtKind::kBlockRealize: return visitBlockRealize(s->as<BlockRealizeNode>(), s);
    case StmtKind::kSeqStmt: return visitSeqStmt(s->as<SeqStmtNode>(), s);
    default: return visitOtherStmt(s);
  }
}

Stmt IRMutator::visitBufferStore(const BufferStoreNode* op, const Stmt& self) {
  bool changed = false;
  PrimExpr value = visitExpr(op->value);
  std::vector<PrimExpr> indices = visitExprs(op->indices, &changed);
  Buffer buffer = visitBuffer(op->buffer);
  if (!changed && value == op->value && buffer == op->buffer) return self;
  return bufferStore(buffer, value, std::move(indices));
}

Stmt IRMutator::visitFor(const ForNode* op, const Stmt& self) {
  PrimExpr min = visitExpr(op->min), extent = visitExpr(op->extent);
  Stmt body = visitStmt(op->body);
  if (min == op->min && extent == op->extent && body == op->body) return self;
  auto n = std::make_shared<ForNode>(*op);
  n->min = min;
  n->extent = extent;
  n->body = body;
  return n;
}

Stmt IRMutator::visitBlock(const BlockNode* op, const Stmt& self) {
  auto n = copyBlock(*op);
  for (IterVar& iv : n->iterVars) iv.dom = {visitExpr(iv.dom.min), visitExpr(iv.dom.extent)};
  for (BufferRegion& r : n->reads) r = visitRegion(r);
  for (BufferRegion& r : n->writes) r = visitRegion(r);
  for (Buffer& b : n->allocBuffers) b = visitBuffer(b);
  for (MatchBufferRegion& m : n->matchBuffers) m = {visitBuffer(m.buffer), visitRegion(m.source)};
  n->init = visitStmt(op->init);
  n->body = visitStmt(op->body);
  // Keep identity when nothing changed, so callers can detect "no change" cheaply.
  bool same = n->init == op->init && n->body == op->body;
  for (size_t i = 0; same && i < op->iterVars.size(); ++i)
    same = n->iterVars[i].dom.min == op->iterVars[i].dom.min &&
           n->iterVars[i].dom.extent == op->iterVars[i].dom.extent;
  auto sameRegions = [](const std::vector<BufferRegion>& a, const std::vector<BufferRegion>& b) {
    for (size_t i = 0; i < a.size(); ++i) {
      if (a[i].buffer != b[i].buffer) return false;
      for (size_t d = 0; d < a[i].region.size(); ++d)
        if (a[i].region[d].min != b[i].region[d].min ||
            a[i].region[d].extent != b[i].region[d].extent)
          return false;
    }
    return true;
  };
  same = same && sameRegions(n->reads, op->reads) && sameRegions(n->writes, op->writes);
  for (size_t i = 0; same && i < op->allocBuffers.size(); ++i)
    same = n->allocBuffers[i] == op->allocBuffers[i];
  for (size_t i = 0; same && i < op->matchBuffers.size(); ++i)
    same = n->matchBuffers[i].buffer == op->matchBuffers[i].buffer &&
           sameRegions({n->matchBuffers[i].source}, {op->matchBuffers[i].source});
  return same ? self : Stmt(n);
}

Stmt IRMutator::visitBlockRealize(const BlockRealizeNode* op, const Stmt& self) {
  bool changed = false;
  std::vector<PrimExpr> values = visitExprs(op->iterValues, &changed);
  PrimExpr pred = visitExpr(op->predicate);
  Stmt block = visitStmt(op->block);
  if (!changed && pred == op->predicate && block == op->block) return self;
  TS_CHECK(block && block->kind == StmtKind::kBlock)
      << "IRMutator: a block realize's block must stay a block";
  return blockRealize(std::move(values), pred, std::static_pointer_cast<const BlockNode>(block));
}

Stmt IRMutator::visitSeqStmt(const SeqStmtNode* op, const Stmt& self) {
  std::vector<Stmt> out;
  bool changed = false;
  for (const Stmt& s : op->seq) {
    out.push_back(visitStmt(s));
    if (out.back() != s) changed = true;
  }
  return changed ? seq(std::move(out)) : self;
}

Stmt IRMutator::visitOtherStmt(const Stmt& s) {
  switch (s->kind) {
    case StmtKind::kEvaluate: {
      const auto* op = s->as<EvaluateNode>();
      PrimExpr v = visitExpr(op->value);
      return v == op->value ? s : evaluate(v);
    }
    case StmtKind::kLetStmt: {
      const auto* op = s->as<LetStmtNode>();
      PrimExpr v = visitExpr(op->value);
      Stmt b = visitStmt(op->body);
      return v == op->value && b == op->body ? s : letStmt(op->var, v, b);
    }
    case StmtKind::kAttrStmt: {
      const auto* op = s->as<AttrStmtNode>();
      PrimExpr v = visitExpr(op->value);
      Stmt b = visitStmt(op->body);
      return v == op->value && b == op->body ? s : attrStmt(op->node, op->key, v, b);
    }
    case StmtKind::kAssertStmt: {
      const auto* op = s->as<AssertStmtNode>();
      PrimExpr c = visitExpr(op->condition);
      Stmt b = visitStmt(op->body);
      return c == op->condition && b == op->body ? s : assertStmt(c, op->message, b);
    }
    case StmtKind::kIfThenElse: {
      const auto* op = s->as<IfThenElseNode>();
      PrimExpr c = visitExpr(op->condition);
      Stmt t = visitStmt(op->thenCase), e = visitStmt(op->elseCase);
      if (c == op->condition && t == op->thenCase && e == op->elseCase) return s;
      return ifThenElse(c, t, e);
    }
    case StmtKind::kAllocate: {
      const auto* op = s->as<AllocateNode>();
      bool changed = false;
      std::vector<PrimExpr> extents = visitExprs(op->extents, &changed);
      Stmt b = visitStmt(op->body);
      if (!changed && b == op->body) return s;
      return allocate(op->bufferVar, op->dtype, extents, op->scope, b);
    }
    case StmtKind::kDeclBuffer: {
      const auto* op = s->as<DeclBufferNode>();
      Buffer buf = visitBuffer(op->buffer);
      Stmt b = visitStmt(op->body);
      return buf == op->buffer && b == op->body ? s : declBuffer(buf, b);
    }
    default: TS_CHECK(false) << "IRMutator: unhandled statement kind";
  }
  return s;
}

// --- helpers -------------------------------------------------------------------------------------

namespace {
class Substituter : public IRMutator {
 public:
  explicit Substituter(const VarMap& map) : map_(map) {}

 protected:
  PrimExpr visitVar(const VarNode* op, const PrimExpr& self) override {
    auto it = map_.find(op);
    return it == map_.end() ? self : it->second;
  }

 private:
  const VarMap& map_;
};

class PreOrder : public IRVisitor {
 public:
  explicit PreOrder(const std::function<bool(const Stmt&)>& fn) : fn_(fn) {}
  void visitStmt(const Stmt& s) override {
    if (s && fn_(s)) IRVisitor::visitStmt(s);
  }
  void visitExpr(const PrimExpr&) override {}

 private:
  const std::function<bool(const Stmt&)>& fn_;
};

class PostOrderExprs : public IRVisitor {
 public:
  explicit PostOrderExprs(const std::function<void(const PrimExpr&)>& fn) : fn_(fn) {}
  void visitExpr(const PrimExpr& e) override {
    if (!e) return;
    IRVisitor::visitExpr(e);
    fn_(e);
  }

 private:
  const std::function<void(const PrimExpr&)>& fn_;
};
}  // namespace

PrimExpr substitute(const PrimExpr& e, const VarMap& map) {
  if (map.empty()) return e;
  Substituter s(map);
  return s.visitExpr(e);
}

Stmt substitute(const Stmt& st, const VarMap& map) {
  if (map.empty()) return st;
  Substituter s(map);
  return s.visitStmt(st);
}

void preOrderVisit(const Stmt& s, const std::function<bool(const Stmt&)>& fn) {
  PreOrder v(fn);
  v.visitStmt(s);
}

void postOrderVisitExprs(const Stmt& s, const std::function<void(const PrimExpr&)>& fn) {
  PostOrderExprs v(fn);
  v.visitStmt(s);
}

void postOrderVisitExpr(const PrimExpr& e, const std::function<void(const PrimExpr&)>& fn) {
  PostOrderExprs v(fn);
  v.visitExpr(e);
}

}  // namespace tessera::tir
