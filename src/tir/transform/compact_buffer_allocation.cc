// CompactBufferAllocation: a buffer allocated in a block only needs the box its accesses inside
// that block touch, for one iteration of the loops around the block. The buffer shrinks to that box
// and every index is rebased on the box origin (`C[i - i, j_0*8 + ax0 - j_0*8]`, which Simplify
// turns into `C[0, ax0]`). `buffer_dim_align` annotations pad the strides of the compacted buffer.
#include <unordered_map>

#include "support/check.h"
#include "tir/functor.h"
#include "tir/transform/pass_util.h"
#include "tir/transform/transform.h"

namespace tessera::tir::transform {

namespace {

struct DimAlign {
  int64_t axis;
  int64_t factor;
  int64_t offset;
};
using AlignMap = std::unordered_map<const BufferNode*, std::vector<DimAlign>>;

// storage_align records `buffer_dim_align = [[write_index, axis, factor, offset], ...]` on the
// block that writes the buffer, which is usually not the block that allocates it.
AlignMap collectAlignments(const Stmt& body) {
  AlignMap aligns;
  preOrderVisit(body, [&](const Stmt& s) {
    const auto* block = s->as<BlockNode>();
    if (!block) return true;
    const AttrValue* attr = block->annotations.find("buffer_dim_align");
    if (!attr || attr->kind() != AttrValue::Kind::kArray) return true;
    for (const AttrValue& entry : attr->asArray()) {
      const auto& items = entry.asArray();
      if (entry.kind() != AttrValue::Kind::kArray || items.size() != 4) continue;
      int64_t index = items[0].asInt();
      if (index < 0 || index >= static_cast<int64_t>(block->writes.size())) continue;
      aligns[block->writes[index].buffer.get()].push_back(
          {items[1].asInt(), items[2].asInt(), items[3].asInt()});
    }
    return true;
  });
  return aligns;
}

// Row-major strides of `shape` with each aligned axis's stride rounded up to `offset` mod
// `factor`; empty when nothing is aligned or a dimension is not constant.
std::vector<PrimExpr> alignedStrides(const std::vector<PrimExpr>& shape,
                                     const std::vector<DimAlign>& aligns) {
  if (aligns.empty()) return {};
  std::vector<PrimExpr> strides(shape.size());
  int64_t stride = 1;
  for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
    for (const DimAlign& a : aligns)
      if (a.axis == d && a.factor > 0)
        stride += (a.factor + a.offset - stride % a.factor) % a.factor;
    strides[d] = intImm(stride, shape[d]->dtype);
    const int64_t* extent = asConstInt(shape[d]);
    if (!extent) return {};
    stride *= *extent;
  }
  return strides;
}

struct Compacted {
  Buffer buffer;
  std::vector<PrimExpr> origin;
};

class Compactor : public IRMutator {
 public:
  explicit Compactor(AlignMap aligns) : aligns_(std::move(aligns)) {}

 protected:
  Stmt visitFor(const ForNode* op, const Stmt& self) override {
    analyzer_.bind(op->loopVar, Range{op->min, op->extent});
    return IRMutator::visitFor(op, self);
  }

  // The regions are computed before the children are rewritten, on the block's original body,
  // with the loops around the block bound in the analyzer.
  Stmt visitBlock(const BlockNode* op, const Stmt& self) override {
    if (!op->allocBuffers.empty()) {
      std::vector<BufferRegion> regions = accessedRegions(op->body, analyzer_);
      for (const Buffer& b : op->allocBuffers) {
        for (const BufferRegion& r : regions)
          if (r.buffer == b) compact(b, r);
      }
    }
    return IRMutator::visitBlock(op, self);
  }

  Buffer visitBuffer(const Buffer& b) override {
    auto it = compacted_.find(b.get());
    return it == compacted_.end() ? b : it->second.buffer;
  }

  PrimExpr visitBufferLoad(const BufferLoadNode* op, const PrimExpr& self) override {
    PrimExpr visited = IRMutator::visitBufferLoad(op, self);
    auto it = compacted_.find(op->buffer.get());
    if (it == compacted_.end()) return visited;
    const auto* load = visited->as<BufferLoadNode>();
    return bufferLoad(load->buffer, rebase(load->indices, it->second.origin));
  }

  Stmt visitBufferStore(const BufferStoreNode* op, const Stmt& self) override {
    Stmt visited = IRMutator::visitBufferStore(op, self);
    auto it = compacted_.find(op->buffer.get());
    if (it == compacted_.end()) return visited;
    const auto* store = visited->as<BufferStoreNode>();
    return bufferStore(store->buffer, store->value, rebase(store->indices, it->second.origin));
  }

  Stmt visitBlockRealize(const BlockRealizeNode* op, const Stmt& self) override {
    Stmt visited = IRMutator::visitBlockRealize(op, self);
    // The block's declared regions are in the old coordinates too.
    const auto* realize = visited->as<BlockRealizeNode>();
    auto n = copyBlock(*realize->block);
    bool changed = false;
    for (auto* regions : {&n->reads, &n->writes}) {
      for (BufferRegion& r : *regions) {
        // visitBuffer already replaced the buffer; the entry is also keyed by the new one.
        auto it = compacted_.find(r.buffer.get());
        if (it == compacted_.end() || r.region.size() != it->second.origin.size()) continue;
        for (size_t d = 0; d < r.region.size(); ++d)
          r.region[d].min = r.region[d].min - it->second.origin[d];
        changed = true;
      }
    }
    // So are the source regions of its match_buffer views (a tensorized block's operands).
    for (MatchBufferRegion& m : n->matchBuffers) {
      BufferRegion& r = m.source;
      auto it = compacted_.find(r.buffer.get());
      if (it == compacted_.end() || r.region.size() != it->second.origin.size()) continue;
      r.buffer = it->second.buffer;
      for (size_t d = 0; d < r.region.size(); ++d)
        r.region[d].min = r.region[d].min - it->second.origin[d];
      changed = true;
    }
    if (!changed) return visited;
    return blockRealize(realize->iterValues, realize->predicate, n);
  }

 private:
  // Computes the compacted buffer and the box origin. A symbolic box extent is replaced by its
  // constant upper bound when there is one (the box may then be larger than needed, never
  // smaller).
  void compact(const Buffer& buffer, const BufferRegion& region) {
    std::vector<PrimExpr> shape, origin;
    for (size_t d = 0; d < buffer->shape.size(); ++d) {
      const Range& r = region.region[d];
      PrimExpr extent = analyzer_.simplify(r.extent);
      const int64_t* oldExtent = asConstInt(buffer->shape[d]);
      // A bound stands in for a symbolic box only against a constant dimension: against a
      // symbolic one (a kernel's `?` extent) it is a bound of the variables' type, not of the box.
      if (!asConstInt(extent) && oldExtent) {
        arith::ConstIntBound bound = analyzer_.constIntBound(extent);
        if (bound.max != arith::ConstIntBound::kPosInf) extent = intImm(bound.max, extent->dtype);
      }
      const int64_t* newExtent = asConstInt(extent);
      // Keep the dimension when the box is not smaller or not known to be.
      bool keep = !newExtent || (oldExtent && *newExtent >= *oldExtent);
      if (keep) {
        shape.push_back(buffer->shape[d]);
        origin.push_back(intImm(0, buffer->shape[d]->dtype));
      } else {
        shape.push_back(cast(buffer->shape[d]->dtype, extent));
        origin.push_back(analyzer_.simplify(r.min));
      }
    }
    auto n = std::make_shared<BufferNode>(*buffer);
    n->shape = shape;
    auto it = aligns_.find(buffer.get());
    n->strides = it == aligns_.end() ? std::vector<PrimExpr>{} : alignedStrides(shape, it->second);
    compacted_[buffer.get()] = {n, origin};
    compacted_[n.get()] = {n, origin};
  }

  std::vector<PrimExpr> rebase(const std::vector<PrimExpr>& indices,
                               const std::vector<PrimExpr>& origin) {
    TS_CHECK(indices.size() == origin.size()) << "CompactBufferAllocation: index count mismatch";
    std::vector<PrimExpr> out;
    for (size_t d = 0; d < indices.size(); ++d)
      out.push_back(isZero(origin[d]) ? indices[d] : indices[d] - origin[d]);
    return out;
  }

  AlignMap aligns_;
  arith::Analyzer analyzer_;
  std::unordered_map<const BufferNode*, Compacted> compacted_;
};

}  // namespace

PrimFunc compactBufferAllocation(const PrimFunc& func) {
  Compactor compactor(collectAlignments(func->body));
  return withBody(func, compactor.visitStmt(func->body));
}

}  // namespace tessera::tir::transform
