// LowerMatchBuffer: a block-level `T.match_buffer(region)` declares a view of a region of another
// buffer (tensorize uses it). Accesses to the view become accesses to the source at the region's
// origin plus the view index; when the view has fewer dimensions than the source, the view's
// dimensions are the source's trailing ones and the leading ones sit at the region's minimum.
#include <unordered_map>

#include "support/diagnostic.h"
#include "tir/functor.h"
#include "tir/transform/pass_util.h"
#include "tir/transform/transform.h"

namespace tessera::tir::transform {

namespace {

class MatchBufferLowerer : public IRMutator {
 protected:
  Stmt visitBlock(const BlockNode* op, const Stmt& self) override {
    for (const MatchBufferRegion& m : op->matchBuffers) {
      const BufferRegion& src = m.source;
      if (m.buffer->ndim() > static_cast<int>(src.region.size()))
        throwDiagnostic("match_buffer",
                        "block '" + op->name + "': match_buffer '" + m.buffer->name + "' has " +
                            std::to_string(m.buffer->ndim()) +
                            " dimensions but its source region '" + src.buffer->name + "' has " +
                            std::to_string(src.region.size()));
      if (m.buffer->dtype != src.buffer->dtype)
        throwDiagnostic("match_buffer", "block '" + op->name + "': match_buffer '" +
                                            m.buffer->name + "' has dtype " +
                                            m.buffer->dtype.name() + " but its source '" +
                                            src.buffer->name + "' has " + src.buffer->dtype.name());
      // The view's data pointer is the source's (e.g. in an extern call's argument).
      views_[m.buffer.get()] = {visitRegion(src)};
      dataMap_[m.buffer->data.get()] = views_[m.buffer.get()].source.buffer->data;
      // A view declared with a variable elem_offset (a tensor intrinsic that passes addresses,
      // as VTA's micro-ops do) gets the element offset of the region's origin in the source.
      if (m.buffer->elemOffset)
        if (const auto* v = m.buffer->elemOffset->as<VarNode>())
          dataMap_[v] = originOffset(views_[m.buffer.get()].source);
    }
    Stmt visited = IRMutator::visitBlock(op, self);
    if (op->matchBuffers.empty()) return visited;
    auto n = copyBlock(*visited->as<BlockNode>());
    n->matchBuffers.clear();
    return n;
  }

  PrimExpr visitVar(const VarNode* op, const PrimExpr& self) override {
    auto it = dataMap_.find(op);
    return it == dataMap_.end() ? self : it->second;
  }

  PrimExpr visitBufferLoad(const BufferLoadNode* op, const PrimExpr& self) override {
    PrimExpr visited = IRMutator::visitBufferLoad(op, self);
    auto it = views_.find(op->buffer.get());
    if (it == views_.end()) return visited;
    const auto* load = visited->as<BufferLoadNode>();
    return bufferLoad(it->second.source.buffer, sourceIndices(it->second, load->indices));
  }

  Stmt visitBufferStore(const BufferStoreNode* op, const Stmt& self) override {
    Stmt visited = IRMutator::visitBufferStore(op, self);
    auto it = views_.find(op->buffer.get());
    if (it == views_.end()) return visited;
    const auto* store = visited->as<BufferStoreNode>();
    return bufferStore(it->second.source.buffer, store->value,
                       sourceIndices(it->second, store->indices));
  }

  Stmt visitBlockRealize(const BlockRealizeNode* op, const Stmt& self) override {
    Stmt visited = IRMutator::visitBlockRealize(op, self);
    const auto* realize = visited->as<BlockRealizeNode>();
    // Regions of inner blocks that name a view name the source region instead.
    auto n = copyBlock(*realize->block);
    bool changed = false;
    for (auto* regions : {&n->reads, &n->writes}) {
      for (BufferRegion& r : *regions) {
        auto it = views_.find(r.buffer.get());
        if (it == views_.end()) continue;
        r = it->second.source;
        changed = true;
      }
    }
    return changed ? blockRealize(realize->iterValues, realize->predicate, n) : visited;
  }

 private:
  struct View {
    BufferRegion source;
  };

  // Source index of a view index: the region's minimum plus the view index, right-aligned.
  std::vector<PrimExpr> sourceIndices(const View& view, const std::vector<PrimExpr>& indices) {
    const auto& region = view.source.region;
    size_t lead = region.size() - indices.size();
    std::vector<PrimExpr> out;
    for (size_t d = 0; d < region.size(); ++d)
      out.push_back(d < lead ? region[d].min : offsetIndex(region[d].min, indices[d - lead]));
    return out;
  }

  // Row-major element offset of the region's minimum (plus the source's own elem_offset).
  static PrimExpr originOffset(const BufferRegion& region) {
    const Buffer& b = region.buffer;
    PrimExpr offset = b->elemOffset ? b->elemOffset : intImm(0);
    PrimExpr stride = intImm(1);
    for (size_t d = region.region.size(); d-- > 0;) {
      const PrimExpr step = b->strides.empty() ? stride : b->strides[d];
      offset = offset + region.region[d].min * step;
      stride = stride * b->shape[d];
    }
    return offset;
  }

  // origin + index, keeping a vector index a Ramp (a contiguous access for codegen).
  static PrimExpr offsetIndex(const PrimExpr& origin, const PrimExpr& index) {
    if (const auto* r = index->as<RampNode>()) return ramp(origin + r->base, r->stride, r->lanes);
    if (const auto* b = index->as<BroadcastNode>()) return broadcast(origin + b->value, b->lanes);
    return origin + index;
  }

  std::unordered_map<const BufferNode*, View> views_;
  VarMap dataMap_;
};

}  // namespace

PrimFunc lowerMatchBuffer(const PrimFunc& func) {
  MatchBufferLowerer lowerer;
  return withBody(func, lowerer.visitStmt(func->body));
}

}  // namespace tessera::tir::transform
