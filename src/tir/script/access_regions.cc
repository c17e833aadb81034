// Access-region inference for blocks written without T.reads/T.writes.
#include "tir/script/access_regions.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "tir/functor.h"

namespace tessera::tir::script {

namespace {

class Collector {
 public:
  explicit Collector(const BlockNode& block) {
    for (const Buffer& b : block.allocBuffers) local_.insert(b.get());
    for (const MatchBufferRegion& m : block.matchBuffers) local_.insert(m.buffer.get());
  }

  void collect(const Stmt& s) {
    // Variables bound inside the block: their uses make an index range over a domain.
    preOrderVisit(s, [&](const Stmt& st) {
      if (const auto* f = st->as<ForNode>())
        innerLoops_[f->loopVar.get()] = Range{f->min, f->extent};
      if (const auto* l = st->as<LetStmtNode>()) inner_.insert(l->var.get());
      if (const auto* r = st->as<BlockRealizeNode>()) {
        for (const IterVar& iv : r->block->iterVars) inner_.insert(iv.var.get());
        for (const BufferRegion& w : r->block->writes) wholeWrite(w.buffer);
        for (const BufferRegion& rd : r->block->reads) wholeRead(rd.buffer);
        for (const Buffer& a : r->block->allocBuffers) local_.insert(a.get());
      }
      if (const auto* a = st->as<AllocateNode>()) inner_.insert(a->bufferVar.get());
      if (const auto* d = st->as<DeclBufferNode>()) local_.insert(d->buffer.get());
      return true;
    });
    for (const auto& [v, dom] : innerLoops_) inner_.insert(v);
    preOrderVisit(s, [&](const Stmt& st) {
      if (const auto* store = st->as<BufferStoreNode>())
        access(writes_, store->buffer, store->indices);
      return true;
    });
    postOrderVisitExprs(s, [&](const PrimExpr& e) {
      if (const auto* load = e->as<BufferLoadNode>()) access(reads_, load->buffer, load->indices);
    });
  }

  AccessRegions result(bool reduction) const {
    AccessRegions out;
    std::unordered_set<const BufferNode*> written;
    for (const Access& w : writes_.list) {
      written.insert(w.buffer.get());
      out.writes.push_back(regionOf(w));
    }
    for (const Access& r : reads_.list) {
      if (reduction && written.count(r.buffer.get())) continue;
      out.reads.push_back(regionOf(r));
    }
    return out;
  }

 private:
  struct Access {
    Buffer buffer;
    std::vector<std::vector<PrimExpr>> indices;  ///< per dimension, every index seen
    bool whole = false;
  };
  struct Accesses {
    std::vector<Access> list;
    std::unordered_map<const BufferNode*, size_t> index;
    Access& of(const Buffer& b) {
      auto [it, added] = index.emplace(b.get(), list.size());
      if (added) list.push_back(Access{b, std::vector<std::vector<PrimExpr>>(b->ndim()), false});
      return list[it->second];
    }
  };

  void access(Accesses& into, const Buffer& b, const std::vector<PrimExpr>& idx) {
    if (local_.count(b.get())) return;
    Access& a = into.of(b);
    if (idx.size() != a.indices.size()) {
      a.whole = true;
      return;
    }
    for (size_t d = 0; d < idx.size(); ++d) a.indices[d].push_back(idx[d]);
  }
  void wholeWrite(const Buffer& b) {
    if (!local_.count(b.get())) writes_.of(b).whole = true;
  }
  void wholeRead(const Buffer& b) {
    if (!local_.count(b.get())) reads_.of(b).whole = true;
  }

  bool usesInner(const PrimExpr& e) const {
    bool uses = false;
    postOrderVisitExpr(e, [&](const PrimExpr& x) {
      if (const auto* v = x->as<VarNode>()) uses = uses || inner_.count(v) > 0;
    });
    return uses;
  }

  // The range one index covers, or nullopt when it is not known without analysis.
  std::optional<Range> rangeOf(const PrimExpr& e) const {
    if (const auto* v = e->as<VarNode>()) {
      auto it = innerLoops_.find(v);
      if (it != innerLoops_.end()) return it->second;
    }
    if (usesInner(e)) return std::nullopt;
    return Range{e, intImm(1, e->dtype)};
  }

  BufferRegion regionOf(const Access& a) const {
    BufferRegion full = fullRegion(a.buffer);
    if (a.whole) return full;
    BufferRegion r{a.buffer, {}};
    for (size_t d = 0; d < a.indices.size(); ++d) {
      const std::vector<PrimExpr>& seen = a.indices[d];
      std::optional<Range> first = seen.empty() ? std::nullopt : rangeOf(seen[0]);
      bool same = first.has_value();
      for (size_t k = 1; same && k < seen.size(); ++k) {
        std::optional<Range> other = rangeOf(seen[k]);
        same =
            other && deepEqual(other->min, first->min) && deepEqual(other->extent, first->extent);
      }
      if (same) {
        r.region.push_back(*first);
        continue;
      }
      // Constant indices: their hull.
      bool constant = !seen.empty();
      int64_t lo = 0, hi = 0;
      for (size_t k = 0; constant && k < seen.size(); ++k) {
        const int64_t* v = asConstInt(seen[k]);
        constant = v != nullptr;
        if (!constant) break;
        lo = k == 0 ? *v : std::min(lo, *v);
        hi = k == 0 ? *v : std::max(hi, *v);
      }
      if (constant) {
        r.region.push_back(Range{intImm(lo, seen[0]->dtype), intImm(hi - lo + 1, seen[0]->dtype)});
        continue;
      }
      r.region.push_back(full.region[d]);
    }
    return r;
  }

  std::unordered_set<const BufferNode*> local_;
  std::unordered_set<const VarNode*> inner_;
  std::unordered_map<const VarNode*, Range> innerLoops_;
  Accesses reads_;
  Accesses writes_;
};

}  // namespace

AccessRegions inferAccessRegions(const BlockNode& block) {
  Collector c(block);
  if (block.init) c.collect(block.init);
  c.collect(block.body);
  return c.result(block.init != nullptr);
}

}  // namespace tessera::tir::script
