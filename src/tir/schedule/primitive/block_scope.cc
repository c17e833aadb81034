// Shared helpers of the block primitives: locating statements, scope relations, region
// relaxation, buffer replacement and read-region recomputation.
#include "tir/schedule/primitive/block_scope.h"

#include "support/check.h"
#include "tir/functor.h"
#include "tir/schedule/block_analysis.h"

namespace tessera::tir {

namespace {

class BufferReplacer : public IRMutator {
 public:
  explicit BufferReplacer(const std::unordered_map<const BufferNode*, Buffer>& map) : map_(map) {}
  Buffer visitBuffer(const Buffer& b) override {
    auto it = map_.find(b.get());
    return it == map_.end() ? b : it->second;
  }

 private:
  const std::unordered_map<const BufferNode*, Buffer>& map_;
};

// Collects per-buffer bounding boxes of loads, relaxing loop variables of loops inside the block
// and summarising nested blocks by their own (relaxed) read regions.
class ReadCollector : public IRVisitor {
 public:
  ReadCollector(const BlockNode* block, arith::Analyzer& analyzer)
      : block_(block), analyzer_(analyzer) {}
  std::vector<BufferRegion> regions;

 protected:
  void visitBufferLoad(const BufferLoadNode* op) override {
    IRVisitor::visitBufferLoad(op);
    std::vector<Range> region;
    for (const PrimExpr& index : op->indices) {
      if (dom_.empty()) {
        region.push_back({index, intImm(1, index->dtype)});
        continue;
      }
      arith::IntervalSet set = analyzer_.evalSet(index, dom_);
      TS_CHECK(set.bounded()) << "read region of '" << op->buffer->name << "' is unbounded";
      region.push_back({set.min, analyzer_.simplify(set.max - set.min + 1)});
    }
    add(op->buffer, std::move(region));
  }
  void visitFor(const ForNode* op) override {
    dom_[op->loopVar.get()] = {op->min, op->extent};
    IRVisitor::visitFor(op);
    dom_.erase(op->loopVar.get());
  }
  void visitBlockRealize(const BlockRealizeNode* op) override {
    // A nested block's accesses are summarised by its declared reads.
    for (const BufferRegion& r : op->block->reads)
      add(r.buffer, relaxRegion(r.region, op, dom_, analyzer_));
  }

 private:
  bool skipped(const BufferNode* b) const {
    for (const Buffer& a : block_->allocBuffers)
      if (a.get() == b) return true;
    return block_->init && writesBuffer(block_, b);
  }
  void add(const Buffer& buffer, std::vector<Range> region) {
    if (skipped(buffer.get())) return;
    for (BufferRegion& r : regions) {
      if (r.buffer != buffer) continue;
      r.region = unionRegion(r.region, region, analyzer_);
      return;
    }
    regions.push_back({buffer, std::move(region)});
  }

  const BlockNode* block_;
  arith::Analyzer& analyzer_;
  arith::DomainMap dom_;
};

bool rangesEqual(const Range& a, const Range& b) {
  return deepEqual(a.min, b.min) && deepEqual(a.extent, b.extent);
}

}  // namespace

std::optional<StmtPath> findBlockPath(const Stmt& body, uint64_t id) {
  return findPath(body, [id](const Stmt& s) {
    const auto* b = s->as<BlockNode>();
    return b && b->id == id;
  });
}

std::optional<StmtPath> findLoopPath(const Stmt& body, const VarNode* loopVar) {
  return findPath(body, [loopVar](const Stmt& s) {
    const auto* f = s->as<ForNode>();
    return f && f->loopVar.get() == loopVar;
  });
}

StmtPath requireBlockPath(const PrimFunc& f, uint64_t id, const std::string& primitive) {
  auto path = findBlockPath(f->body, id);
  if (!path)
    throwScheduleError(primitive, "the block does not exist in function '" + f->name + "'");
  return *path;
}

StmtPath requireLoopPath(const PrimFunc& f, const VarNode* loopVar, const std::string& primitive) {
  auto path = loopVar ? findLoopPath(f->body, loopVar) : std::nullopt;
  if (!path) throwScheduleError(primitive, "the loop does not exist in function '" + f->name + "'");
  return *path;
}

PrimFunc withBody(const PrimFunc& f, Stmt body) {
  auto n = std::make_shared<PrimFuncNode>(*f);
  n->body = std::move(body);
  return n;
}

const BlockRealizeNode* realizeAt(const StmtPath& blockPath) {
  TS_CHECK(blockPath.chain.size() >= 2) << "a block path has a realize above the block";
  const auto* r = blockPath.parent()->as<BlockRealizeNode>();
  TS_CHECK(r) << "a block is always directly under its realize";
  return r;
}

bool pathContains(const StmtPath& path, const StmtNode* stmt) {
  for (const Stmt& s : path.chain)
    if (s.get() == stmt) return true;
  return false;
}

std::vector<const BlockRealizeNode*> consumersIn(const Stmt& scope, const BlockNode* block) {
  std::vector<const BlockRealizeNode*> out;
  for (const BlockRealizeNode* r : realizesUnder(scope)) {
    if (r->block.get() == block) continue;
    for (const BufferRegion& w : block->writes) {
      if (readsBuffer(r->block.get(), w.buffer.get())) {
        out.push_back(r);
        break;
      }
    }
  }
  return out;
}

std::vector<const BlockRealizeNode*> producersIn(const Stmt& scope, const BlockNode* block) {
  std::vector<const BlockRealizeNode*> out;
  for (const BlockRealizeNode* r : realizesUnder(scope)) {
    if (r->block.get() == block) continue;
    for (const BufferRegion& rd : block->reads) {
      if (writesBuffer(r->block.get(), rd.buffer.get())) {
        out.push_back(r);
        break;
      }
    }
  }
  return out;
}

bool containsAnyRealize(const Stmt& stmt, const std::vector<const BlockRealizeNode*>& realizes) {
  bool found = false;
  preOrderVisit(stmt, [&](const Stmt& s) {
    if (found) return false;
    if (const auto* r = s->as<BlockRealizeNode>()) {
      for (const BlockRealizeNode* x : realizes) found = found || x == r;
      return false;
    }
    return true;
  });
  return found;
}

StmtPath removalPath(const StmtPath& blockPath) {
  size_t idx = blockPath.chain.size() - 2;  // the realize
  while (idx > 0 && blockPath.chain[idx - 1]->kind == StmtKind::kFor) --idx;
  StmtPath out;
  out.chain.assign(blockPath.chain.begin(), blockPath.chain.begin() + idx + 1);
  return out;
}

std::vector<Stmt> bodyItems(const Stmt& body) {
  if (!body) return {};
  if (const auto* s = body->as<SeqStmtNode>()) return s->seq;
  return {body};
}

std::vector<Range> relaxRegion(const std::vector<Range>& region, const BlockRealizeNode* realize,
                               const arith::DomainMap& relax, arith::Analyzer& analyzer) {
  VarMap bindings;
  const auto& ivs = realize->block->iterVars;
  for (size_t i = 0; i < ivs.size(); ++i) bindings[ivs[i].var.get()] = realize->iterValues[i];
  std::vector<Range> out;
  for (const Range& r : region) {
    // Simplified before bounding: a fused index read back as (p // w) * w + p % w is p, whose
    // bounds are tight; bounding the parts separately would cover whole rows.
    PrimExpr lo = analyzer.simplify(substitute(r.min, bindings));
    PrimExpr hi = analyzer.simplify(substitute(r.min + r.extent - 1, bindings));
    arith::IntervalSet loSet = analyzer.evalSet(lo, relax);
    arith::IntervalSet hiSet = analyzer.evalSet(hi, relax);
    TS_CHECK(loSet.min && hiSet.max) << "an access region could not be bounded";
    PrimExpr min = analyzer.simplify(loSet.min);
    out.push_back({min, analyzer.simplify(hiSet.max - min + 1)});
  }
  return out;
}

std::vector<Range> unionRegion(const std::vector<Range>& a, const std::vector<Range>& b,
                               arith::Analyzer& analyzer) {
  TS_CHECK(a.size() == b.size()) << "regions of one buffer have the same rank";
  std::vector<Range> out;
  for (size_t d = 0; d < a.size(); ++d) {
    if (rangesEqual(a[d], b[d])) {
      out.push_back(a[d]);
      continue;
    }
    PrimExpr lo = analyzer.simplify(min(a[d].min, b[d].min));
    PrimExpr hi = analyzer.simplify(max(a[d].min + a[d].extent, b[d].min + b[d].extent));
    out.push_back({lo, analyzer.simplify(hi - lo)});
  }
  return out;
}

arith::DomainMap loopDomains(const std::vector<For>& loops) {
  arith::DomainMap dom;
  for (const For& l : loops) dom[l->loopVar.get()] = {l->min, l->extent};
  return dom;
}

Stmt replaceBuffers(const Stmt& stmt, const std::unordered_map<const BufferNode*, Buffer>& map) {
  BufferReplacer r(map);
  return r.visitStmt(stmt);
}

std::vector<BufferRegion> recomputeReads(const BlockNode* block) {
  arith::Analyzer analyzer;
  ReadCollector c(block, analyzer);
  c.visitStmt(block->init);
  c.visitStmt(block->body);
  return c.regions;
}

bool usesBuffer(const Stmt& stmt, const BufferNode* buffer) {
  bool used = false;
  auto inRegions = [&](const std::vector<BufferRegion>& rs) {
    for (const BufferRegion& r : rs) used = used || r.buffer.get() == buffer;
  };
  preOrderVisit(stmt, [&](const Stmt& s) {
    if (const auto* st = s->as<BufferStoreNode>()) used = used || st->buffer.get() == buffer;
    if (const auto* b = s->as<BlockNode>()) {
      inRegions(b->reads);
      inRegions(b->writes);
      for (const MatchBufferRegion& m : b->matchBuffers)
        used = used || m.source.buffer.get() == buffer;
    }
    return !used;
  });
  if (used) return true;
  postOrderVisitExprs(stmt, [&](const PrimExpr& e) {
    if (const auto* l = e->as<BufferLoadNode>()) used = used || l->buffer.get() == buffer;
  });
  return used;
}

Stmt dropUnusedAllocation(const Stmt& body, const BufferNode* buffer) {
  auto path = findPath(body, [buffer](const Stmt& s) {
    const auto* b = s->as<BlockNode>();
    if (!b) return false;
    for (const Buffer& a : b->allocBuffers)
      if (a.get() == buffer) return true;
    return false;
  });
  if (!path) return body;
  const auto* block = path->stmt()->as<BlockNode>();
  if (usesBuffer(block->body, buffer) || (block->init && usesBuffer(block->init, buffer)))
    return body;
  auto n = copyBlock(*block);
  std::erase_if(n->allocBuffers, [buffer](const Buffer& b) { return b.get() == buffer; });
  return Schedule::Impl::replaceInBody(*path, n);
}

const BlockNode* allocatingBlock(const StmtPath& path, const BufferNode* buffer) {
  for (const Stmt& s : path.chain) {
    const auto* b = s->as<BlockNode>();
    if (!b) continue;
    for (const Buffer& a : b->allocBuffers)
      if (a.get() == buffer) return b;
  }
  return nullptr;
}

Var freshVar(const std::string& name, DataType dtype) {
  return makeVar(name, dtype);
}

}  // namespace tessera::tir
