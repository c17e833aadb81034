// Placement of the declarations the printer adds for buffers and variables that the IR uses without
// defining (flattened buffer views after FlattenBuffer, free variables). Like TVM's printer, each
// goes right before the innermost statement that encloses all of its uses.
#include <unordered_set>

#include "tir/functor.h"
#include "tir/printer/script_printer.h"

namespace tessera::tir::script {

namespace {

class DefCollector {
 public:
  explicit DefCollector(const PrimFuncNode& func) {
    for (const Var& p : func.params) defineVar(p.get());
    for (const auto& [param, buffer] : func.bufferMap) {
      defineBuffer(buffer.get());
      // Shape variables of parameters are defined by the signature.
      for (const PrimExpr& d : buffer->shape) defineIfVar(d);
      for (const PrimExpr& s : buffer->strides) defineIfVar(s);
      if (buffer->elemOffset) defineIfVar(buffer->elemOffset);
    }
  }

  void visitStmt(const Stmt& s) {
    path_.push_back(s.get());
    visitStmtChildren(s);
    path_.pop_back();
  }

  ImplicitDefMap result() const {
    ImplicitDefMap map;
    for (const Use& u : uses_) {
      if (u.buffer ? definedBuffers_.count(u.buffer) : definedVars_.count(u.var)) continue;
      const StmtNode* at = u.lca.empty() ? nullptr : u.lca.back();
      map[at].push_back(ImplicitDef{u.buffer, u.var});
    }
    return map;
  }

 private:
  struct Use {
    const BufferNode* buffer = nullptr;
    const VarNode* var = nullptr;
    std::vector<const StmtNode*> lca;  ///< common prefix of the paths of all uses
  };

  void defineVar(const VarNode* v) { definedVars_.insert(v); }
  void defineIfVar(const PrimExpr& e) {
    if (const auto* v = e->as<VarNode>()) defineVar(v);
  }
  void defineBuffer(const BufferNode* b) {
    definedBuffers_.insert(b);
    defineVar(b->data.get());
  }

  void use(const void* key, const BufferNode* b, const VarNode* v) {
    auto it = useIndex_.find(key);
    if (it == useIndex_.end()) {
      useIndex_.emplace(key, uses_.size());
      uses_.push_back(Use{b, v, path_});
      if (b) {
        // An implicit buffer's shape and data pointer are used where it is declared.
        for (const PrimExpr& d : b->shape) visitExpr(d);
        use(b->data.get(), nullptr, b->data.get());
      }
      return;
    }
    std::vector<const StmtNode*>& lca = uses_[it->second].lca;
    size_t n = 0;
    while (n < lca.size() && n < path_.size() && lca[n] == path_[n]) ++n;
    lca.resize(n);
  }
  void useBuffer(const Buffer& b) { use(b.get(), b.get(), nullptr); }

  void visitExpr(const PrimExpr& e) {
    postOrderVisitExpr(e, [&](const PrimExpr& x) {
      if (const auto* v = x->as<VarNode>()) use(v, nullptr, v);
      if (const auto* l = x->as<BufferLoadNode>()) useBuffer(l->buffer);
      if (const auto* l = x->as<LetNode>()) defineVar(l->var.get());
      if (const auto* r = x->as<ReduceNode>()) {
        for (const IterVar& iv : r->axis) defineVar(iv.var.get());
        for (const Var& v : r->combiner->lhs) defineVar(v.get());
        for (const Var& v : r->combiner->rhs) defineVar(v.get());
      }
    });
  }
  void visitExprs(const std::vector<PrimExpr>& es) {
    for (const PrimExpr& e : es) visitExpr(e);
  }
  void visitRegion(const BufferRegion& r) {
    useBuffer(r.buffer);
    for (const Range& range : r.region) {
      visitExpr(range.min);
      visitExpr(range.extent);
    }
  }

  void visitStmtChildren(const Stmt& s) {
    switch (s->kind) {
      case StmtKind::kBufferStore: {
        const auto* op = s->as<BufferStoreNode>();
        useBuffer(op->buffer);
        visitExprs(op->indices);
        visitExpr(op->value);
        return;
      }
      case StmtKind::kEvaluate:
        visitExpr(s->as<EvaluateNode>()->value);
        return;
      case StmtKind::kLetStmt: {
        const auto* op = s->as<LetStmtNode>();
        visitExpr(op->value);
        defineVar(op->var.get());
        visitStmt(op->body);
        return;
      }
      case StmtKind::kAttrStmt: {
        const auto* op = s->as<AttrStmtNode>();
        if (op->node) use(op->node.get(), nullptr, op->node.get());
        if (op->value) visitExpr(op->value);
        visitStmt(op->body);
        return;
      }
      case StmtKind::kAssertStmt: {
        const auto* op = s->as<AssertStmtNode>();
        visitExpr(op->condition);
        if (op->body) visitStmt(op->body);
        return;
      }
      case StmtKind::kIfThenElse: {
        const auto* op = s->as<IfThenElseNode>();
        visitExpr(op->condition);
        visitStmt(op->thenCase);
        if (op->elseCase) visitStmt(op->elseCase);
        return;
      }
      case StmtKind::kFor: {
        const auto* op = s->as<ForNode>();
        visitExpr(op->min);
        visitExpr(op->extent);
        defineVar(op->loopVar.get());
        visitStmt(op->body);
        return;
      }
      case StmtKind::kSeqStmt:
        for (const Stmt& c : s->as<SeqStmtNode>()->seq) visitStmt(c);
        return;
      case StmtKind::kBlock:
        visitBlock(s->as<BlockNode>());
        return;
      case StmtKind::kBlockRealize: {
        const auto* op = s->as<BlockRealizeNode>();
        visitExprs(op->iterValues);
        if (op->predicate) visitExpr(op->predicate);
        visitBlock(op->block.get());
        return;
      }
      case StmtKind::kAllocate: {
        const auto* op = s->as<AllocateNode>();
        visitExprs(op->extents);
        defineVar(op->bufferVar.get());
        visitStmt(op->body);
        return;
      }
      case StmtKind::kDeclBuffer: {
        const auto* op = s->as<DeclBufferNode>();
        definedBuffers_.insert(op->buffer.get());
        for (const PrimExpr& d : op->buffer->shape) visitExpr(d);
        use(op->buffer->data.get(), nullptr, op->buffer->data.get());
        visitStmt(op->body);
        return;
      }
    }
  }

  void visitBlock(const BlockNode* b) {
    for (const IterVar& iv : b->iterVars) {
      visitExpr(iv.dom.min);
      visitExpr(iv.dom.extent);
      defineVar(iv.var.get());
    }
    for (const Buffer& a : b->allocBuffers) {
      defineBuffer(a.get());
      for (const PrimExpr& d : a->shape) visitExpr(d);
    }
    for (const MatchBufferRegion& m : b->matchBuffers) {
      defineBuffer(m.buffer.get());
      for (const PrimExpr& d : m.buffer->shape) defineIfVar(d);
      for (const PrimExpr& st : m.buffer->strides) defineIfVar(st);
      if (m.buffer->elemOffset) defineIfVar(m.buffer->elemOffset);
      visitRegion(m.source);
    }
    for (const BufferRegion& r : b->reads) visitRegion(r);
    for (const BufferRegion& r : b->writes) visitRegion(r);
    if (b->init) visitStmt(b->init);
    visitStmt(b->body);
  }

  std::vector<const StmtNode*> path_;
  std::vector<Use> uses_;
  std::unordered_map<const void*, size_t> useIndex_;
  std::unordered_set<const VarNode*> definedVars_;
  std::unordered_set<const BufferNode*> definedBuffers_;
};

}  // namespace

ImplicitDefMap placeImplicitDefs(const PrimFuncNode& func) {
  DefCollector collector(func);
  if (func.body) collector.visitStmt(func.body);
  return collector.result();
}

}  // namespace tessera::tir::script
