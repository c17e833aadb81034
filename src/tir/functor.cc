#include "tir/functor.h"

#include "support/check.h"
#include "tir/node_fields.h"

namespace tessera::tir {

namespace {

// --- IRVisitor
// ------------------------------------------------------------------------------------

// Visits what a field list names as children: operands (including region bounds and iteration
// domains) and statements. Definitions, buffers and plain data are not visited.
class VisitChildren : public FieldVisitor<VisitChildren> {
 public:
  explicit VisitChildren(IRVisitor& v) : v_(v) {}
  void expr(const PrimExpr& e) { v_.visitExpr(e); }
  void stmt(const Stmt& s) { v_.visitStmt(s); }
  void block(const Block& b) { v_.visitStmt(b); }

 private:
  IRVisitor& v_;
};

// --- IRMutator
// ------------------------------------------------------------------------------------

// The new children of the nodes being rebuilt, on per-thread stacks: a node pushes the results for
// its fields while reading them and pops them when done, so an unchanged node costs no allocation.
// Nested mutators (a visit that runs another mutator) push above and pop before returning.
struct ChildResults {
  std::vector<PrimExpr> exprs;
  std::vector<Stmt> stmts;
  std::vector<Buffer> buffers;
};
thread_local ChildResults results;

// The stack heights when a node started; restores them on the way out, exceptions included.
class ResultsMark {
 public:
  ResultsMark()
      : exprs(results.exprs.size()), stmts(results.stmts.size()), buffers(results.buffers.size()) {}
  ~ResultsMark() {
    results.exprs.resize(exprs);
    results.stmts.resize(stmts);
    results.buffers.resize(buffers);
  }
  ResultsMark(const ResultsMark&) = delete;
  ResultsMark& operator=(const ResultsMark&) = delete;
  const size_t exprs, stmts, buffers;
};

// First reading: mutates every child and notes whether any changed.
class MutateChildren : public FieldVisitor<MutateChildren> {
 public:
  explicit MutateChildren(IRMutator& m) : m_(m) {}
  bool changed = false;

  void expr(const PrimExpr& e) { push(results.exprs, m_.visitExpr(e), e); }
  void stmt(const Stmt& s) { push(results.stmts, m_.visitStmt(s), s); }
  void block(const Block& b) { stmt(b); }
  void bufferUse(const Buffer& b) { push(results.buffers, m_.visitBuffer(b), b); }
  void bufferDef(const Buffer& b) { bufferUse(b); }

 private:
  template <typename T>
  void push(std::vector<T>& stack, T result, const T& old) {
    changed = changed || result != old;
    stack.push_back(std::move(result));
  }
  IRMutator& m_;
};

// Second reading, of the copy: writes the new children in, in the same order.
class StoreChildren : public FieldVisitor<StoreChildren> {
 public:
  explicit StoreChildren(const ResultsMark& mark)
      : expr_(mark.exprs), stmt_(mark.stmts), buffer_(mark.buffers) {}

  void expr(PrimExpr& e) { e = results.exprs[expr_++]; }
  void stmt(Stmt& s) { s = results.stmts[stmt_++]; }
  void block(Block& b) {
    const Stmt& s = results.stmts[stmt_++];
    TS_CHECK(s && s->kind == StmtKind::kBlock)
        << "IRMutator: a block realize's block must stay a block";
    b = std::static_pointer_cast<const BlockNode>(s);
  }
  void bufferUse(Buffer& b) { b = results.buffers[buffer_++]; }
  void bufferDef(Buffer& b) { bufferUse(b); }

 private:
  size_t expr_, stmt_, buffer_;
};

// `self` when no child of `op` changed; otherwise a copy with the new children (a block keeps its
// id). A type that follows from the children is computed again: a vectorized index widens a load.
template <typename Node, typename Ref>
Ref rebuild(IRMutator& m, const Node& op, const Ref& self) {
  ResultsMark mark;
  MutateChildren mutate(m);
  readFields(op, mutate);
  if (!mutate.changed) return self;
  auto copy = std::make_shared<Node>(op);
  StoreChildren store(mark);
  readFields(*copy, store);
  if constexpr (requires { Node::derivedDType(*copy); }) copy->dtype = Node::derivedDType(*copy);
  // seq() flattens nested sequences and drops statements a mutator removed (returned null).
  if constexpr (std::is_same_v<Node, SeqStmtNode>) return seq(std::move(copy->seq));
  return copy;
}

}  // namespace

void IRVisitor::visitExpr(const PrimExpr& e) {
  if (!e) return;
  switch (e->kind) {
    case ExprKind::kVar:
      return visitVar(e->as<VarNode>());
    case ExprKind::kBufferLoad:
      return visitBufferLoad(e->as<BufferLoadNode>());
    case ExprKind::kCall:
      return visitCall(e->as<CallNode>());
    case ExprKind::kReduce:
      return visitReduce(e->as<ReduceNode>());
    case ExprKind::kLet:
      return visitLet(e->as<LetNode>());
    default:
      return visitChildren(*e);
  }
}

void IRVisitor::visitStmt(const Stmt& s) {
  if (!s) return;
  switch (s->kind) {
    case StmtKind::kBufferStore:
      return visitBufferStore(s->as<BufferStoreNode>());
    case StmtKind::kFor:
      return visitFor(s->as<ForNode>());
    case StmtKind::kBlock:
      return visitBlock(s->as<BlockNode>());
    case StmtKind::kBlockRealize:
      return visitBlockRealize(s->as<BlockRealizeNode>());
    case StmtKind::kIfThenElse:
      return visitIfThenElse(s->as<IfThenElseNode>());
    case StmtKind::kLetStmt:
      return visitLetStmt(s->as<LetStmtNode>());
    case StmtKind::kAllocate:
      return visitAllocate(s->as<AllocateNode>());
    default:
      return visitOtherStmt(s);
  }
}

void IRVisitor::visitChildren(const PrimExprNode& e) {
  VisitChildren children(*this);
  withExprNode(e, [&](const auto& node) { readFields(node, children); });
}

void IRVisitor::visitChildren(const StmtNode& s) {
  VisitChildren children(*this);
  withStmtNode(s, [&](const auto& node) { readFields(node, children); });
}

void IRVisitor::visitRegion(const BufferRegion& region) {
  VisitChildren children(*this);
  children.region(region);
}

PrimExpr IRMutator::visitExpr(const PrimExpr& e) {
  if (!e) return e;
  switch (e->kind) {
    case ExprKind::kVar:
      return visitVar(e->as<VarNode>(), e);
    case ExprKind::kBufferLoad:
      return visitBufferLoad(e->as<BufferLoadNode>(), e);
    case ExprKind::kCall:
      return visitCall(e->as<CallNode>(), e);
    default:
      return visitOtherExpr(e);
  }
}

Stmt IRMutator::visitStmt(const Stmt& s) {
  if (!s) return s;
  switch (s->kind) {
    case StmtKind::kBufferStore:
      return visitBufferStore(s->as<BufferStoreNode>(), s);
    case StmtKind::kFor:
      return visitFor(s->as<ForNode>(), s);
    case StmtKind::kBlock:
      return visitBlock(s->as<BlockNode>(), s);
    case StmtKind::kBlockRealize:
      return visitBlockRealize(s->as<BlockRealizeNode>(), s);
    case StmtKind::kSeqStmt:
      return visitSeqStmt(s->as<SeqStmtNode>(), s);
    default:
      return visitOtherStmt(s);
  }
}

PrimExpr IRMutator::visitBufferLoad(const BufferLoadNode* op, const PrimExpr& self) {
  return rebuild(*this, *op, self);
}
PrimExpr IRMutator::visitCall(const CallNode* op, const PrimExpr& self) {
  return rebuild(*this, *op, self);
}
PrimExpr IRMutator::visitOtherExpr(const PrimExpr& e) {
  return withExprNode(*e, [&](const auto& node) { return rebuild(*this, node, e); });
}
Stmt IRMutator::visitBufferStore(const BufferStoreNode* op, const Stmt& self) {
  return rebuild(*this, *op, self);
}
Stmt IRMutator::visitFor(const ForNode* op, const Stmt& self) {
  return rebuild(*this, *op, self);
}
Stmt IRMutator::visitBlock(const BlockNode* op, const Stmt& self) {
  return rebuild(*this, *op, self);
}
Stmt IRMutator::visitBlockRealize(const BlockRealizeNode* op, const Stmt& self) {
  return rebuild(*this, *op, self);
}
Stmt IRMutator::visitSeqStmt(const SeqStmtNode* op, const Stmt& self) {
  return rebuild(*this, *op, self);
}
Stmt IRMutator::visitOtherStmt(const Stmt& s) {
  return withStmtNode(*s, [&](const auto& node) { return rebuild(*this, node, s); });
}

BufferRegion IRMutator::visitRegion(const BufferRegion& region) {
  BufferRegion out{visitBuffer(region.buffer), {}};
  for (const Range& r : region.region)
    out.region.push_back({visitExpr(r.min), visitExpr(r.extent)});
  return out;
}

std::vector<PrimExpr> IRMutator::visitExprs(const std::vector<PrimExpr>& es, bool* changed) {
  std::vector<PrimExpr> out;
  out.reserve(es.size());
  for (const PrimExpr& e : es) {
    out.push_back(visitExpr(e));
    if (out.back() != e) *changed = true;
  }
  return out;
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
