#include "tune/rules/rule_analysis.h"

#include <functional>

#include "tir/functor.h"
#include "tir/schedule/block_analysis.h"
#include "tune/rules/schedule_rule.h"

namespace tessera::tune::rules {

namespace {

tir::StmtPath pathOf(const tir::Schedule& sch, const tir::BlockRV& block) {
  return sch.impl().blockPath("analysis", block);
}

const tir::BlockRealizeNode* realizeOf(const tir::StmtPath& path) {
  return tir::Schedule::Impl::realizeOf(path);
}

}  // namespace

RuleContext RuleContext::of(const target::Target& target) {
  RuleContext ctx;
  ctx.numCores = std::max(target.numCores, 1);
  return ctx;
}

std::vector<std::string> blocksPostOrder(const tir::PrimFunc& func) {
  // Pre-order with a stack of (statement, children done) pairs, emitting a block after its
  // children: iterative, so the input's depth cannot overflow the C++ stack.
  std::vector<std::string> out;
  std::vector<std::pair<tir::Stmt, bool>> stack{{func->body, false}};
  while (!stack.empty()) {
    auto [stmt, expanded] = stack.back();
    stack.pop_back();
    if (!stmt) continue;
    const auto* block = stmt->as<tir::BlockNode>();
    if (expanded) {
      out.push_back(block->name);
      continue;
    }
    if (block) stack.push_back({stmt, true});
    std::vector<tir::Stmt> children;
    if (block) {
      children = {block->init, block->body};
    } else if (const auto* r = stmt->as<tir::BlockRealizeNode>()) {
      children = {r->block};
    } else if (const auto* f = stmt->as<tir::ForNode>()) {
      children = {f->body};
    } else if (const auto* s = stmt->as<tir::SeqStmtNode>()) {
      children = s->seq;
    } else {
      tir::preOrderVisit(stmt, [&](const tir::Stmt& st) {
        if (st.get() == stmt.get()) return true;
        if (st->as<tir::BlockRealizeNode>()) {
          children.push_back(st);
          return false;
        }
        return true;
      });
    }
    // Pushed in reverse so the first child is visited first.
    for (auto it = children.rbegin(); it != children.rend(); ++it) stack.push_back({*it, false});
  }
  return out;
}

bool hasBlock(const tir::Schedule& sch, const std::string& name) {
  bool found = false;
  tir::preOrderVisit(sch.func()->body, [&](const tir::Stmt& st) {
    if (const auto* b = st->as<tir::BlockNode>(); b && b->name == name) found = true;
    return !found;
  });
  return found;
}

bool isSpatialPrimFunc(const tir::PrimFunc& func) {
  bool spatial = true;
  tir::preOrderVisit(func->body, [&](const tir::Stmt& st) {
    if (const auto* b = st->as<tir::BlockNode>())
      for (const tir::IterVar& iv : b->iterVars)
        if (iv.type != tir::IterVarType::kDataPar) spatial = false;
    return spatial;
  });
  return spatial;
}

bool isRootBlock(const tir::Schedule& sch, const tir::BlockRV& block) {
  return pathOf(sch, block).scopeIndex() < 0;
}

bool isUnderRoot(const tir::Schedule& sch, const tir::BlockRV& block) {
  return pathOf(sch, block).scopeIndex() == 1;  // the chain starts with the root realize
}

std::vector<tir::For> loopsOf(const tir::Schedule& sch, const tir::BlockRV& block) {
  return pathOf(sch, block).loops();
}

std::vector<LoopKind> loopKinds(const tir::Schedule& sch, const tir::BlockRV& block) {
  const tir::StmtPath path = pathOf(sch, block);
  const tir::BlockRealizeNode* realize = realizeOf(path);
  std::vector<LoopKind> out;
  for (const tir::For& loop : path.loops()) {
    const tir::VarNode* v = loop->loopVar.get();
    if (tir::bindsVarAs(realize, v, tir::IterVarType::kOrdered) ||
        tir::bindsVarAs(realize, v, tir::IterVarType::kOpaque))
      out.push_back(LoopKind::kOther);
    else if (tir::bindsVarAs(realize, v, tir::IterVarType::kCommReduce))
      out.push_back(LoopKind::kReduce);
    else
      out.push_back(LoopKind::kSpatial);
  }
  return out;
}

bool hasTrivialBinding(const tir::Schedule& sch, const tir::BlockRV& block) {
  const tir::StmtPath path = pathOf(sch, block);
  const tir::BlockRealizeNode* realize = realizeOf(path);
  const std::vector<tir::For> loops = path.loops();
  const tir::BlockNode* b = realize->block.get();
  if (loops.size() != b->iterVars.size() || !tir::isOne(realize->predicate)) return false;
  for (size_t i = 0; i < loops.size(); ++i) {
    const auto* v = realize->iterValues[i]->as<tir::VarNode>();
    if (v != loops[i]->loopVar.get()) return false;
    const int64_t* le = tir::asConstInt(loops[i]->extent);
    const int64_t* de = tir::asConstInt(b->iterVars[i].dom.extent);
    if (!le || !de || *le != *de) return false;
    const tir::Stmt& next = i + 1 < loops.size() ? tir::Stmt(loops[i + 1]) : tir::Stmt();
    if (next && loops[i]->body != next) return false;  // a chain: one child per loop
  }
  return true;
}

bool hasAnnotation(const tir::BlockNode* block, const std::string& key) {
  return block->annotations.has(key);
}

int64_t iterExtent(const tir::BlockNode* block, bool reduce) {
  int64_t product = 1;
  for (const tir::IterVar& iv : block->iterVars) {
    const bool isReduce = iv.type == tir::IterVarType::kCommReduce;
    if (isReduce != reduce) continue;
    const int64_t* e = tir::asConstInt(iv.dom.extent);
    product *= e ? *e : 1;
  }
  return product;
}

bool needsMultiLevelTiling(const tir::Schedule& sch, const tir::BlockRV& block) {
  const tir::BlockNode* b = sch.get(block);
  if (hasAnnotation(b, kTilingStructure) || b->writes.size() != 1 || b->reads.empty()) return false;
  if (!tir::isReductionBlock(b) || !hasTrivialBinding(sch, block)) return false;
  for (size_t i = 0; i < b->reads.size(); ++i) {
    for (size_t j = 0; j < i; ++j)
      if (b->reads[i].buffer == b->reads[j].buffer) return false;  // duplicated reads
    for (const tir::Range& r : b->reads[i].region)
      if (!tir::asConstInt(r.extent)) return false;
  }
  // Reuse: a spatial iter var of more than one iteration that some read does not depend on.
  for (const tir::IterVar& iv : b->iterVars) {
    const int64_t* e = tir::asConstInt(iv.dom.extent);
    if (iv.type != tir::IterVarType::kDataPar || !e || *e <= 1) continue;
    for (const tir::BufferRegion& read : b->reads) {
      bool uses = false;
      for (const tir::Range& r : read.region)
        uses = uses || tir::varsOf(r.min).count(iv.var.get()) > 0;
      if (!uses) return true;
    }
  }
  return false;
}

bool hasConsumers(const tir::Schedule& sch, const tir::BlockRV& block) {
  const tir::StmtPath path = pathOf(sch, block);
  if (path.scopeIndex() < 0) return false;
  const tir::BlockNode* self = path.stmt()->as<tir::BlockNode>();
  const auto* scope = path.chain[path.scopeIndex()]->as<tir::BlockNode>();
  bool found = false;
  tir::preOrderVisit(scope->body, [&](const tir::Stmt& st) {
    const auto* b = st->as<tir::BlockNode>();
    if (!b) return !found;
    if (b->id != self->id)
      for (const tir::BufferRegion& w : self->writes)
        found = found || tir::readsBuffer(b, w.buffer.get());
    return false;  // blocks of an inner scope are not consumers in this one
  });
  return found;
}

std::optional<int64_t> constExtent(const tir::For& loop) {
  const int64_t* e = tir::asConstInt(loop->extent);
  if (!e) return std::nullopt;
  return *e;
}

}  // namespace tessera::tune::rules
