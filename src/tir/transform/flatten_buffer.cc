// FlattenBuffer: code generators address memory with one offset, so every multi-dimensional
// access `A[i, k]` becomes `A_1[i * 64 + k]` on a 1-D view `A_1` that shares A's data pointer
// (explicit strides and elem_offset are folded into the offset). Allocations take the flat size.
#include <unordered_map>

#include "support/check.h"
#include "tir/functor.h"
#include "tir/transform/pass_util.h"
#include "tir/transform/transform.h"

namespace tessera::tir::transform {

namespace {

// The strides of `b`: explicit ones, or row-major of its shape.
std::vector<PrimExpr> stridesOf(const BufferNode& b) {
  if (!b.strides.empty()) return b.strides;
  std::vector<PrimExpr> strides(b.shape.size());
  PrimExpr stride;
  for (int d = b.ndim() - 1; d >= 0; --d) {
    strides[d] = stride ? stride : intImm(1, b.shape[d]->dtype);
    stride = stride ? mul(stride, b.shape[d]) : b.shape[d];
  }
  return strides;
}

// Elements a flat view needs: the extent of the outermost dimension times its stride.
PrimExpr flatExtent(const BufferNode& b) {
  if (b.shape.empty()) return intImm(1);
  std::vector<PrimExpr> strides = stridesOf(b);
  return arith::simplify(mul(strides[0], b.shape[0]));
}

bool needsFlattening(const BufferNode& b) {
  return b.ndim() != 1 || !b.strides.empty() || (b.elemOffset && !isZero(b.elemOffset));
}

class Flattener : public IRMutator {
 protected:
  Buffer visitBuffer(const Buffer& b) override { return flat(b); }

  PrimExpr visitBufferLoad(const BufferLoadNode* op, const PrimExpr& self) override {
    bool changed = false;
    std::vector<PrimExpr> indices = visitExprs(op->indices, &changed);
    if (!needsFlattening(*op->buffer)) return changed ? bufferLoad(op->buffer, indices) : self;
    return bufferLoad(flat(op->buffer), {offset(*op->buffer, indices)});
  }

  Stmt visitBufferStore(const BufferStoreNode* op, const Stmt& self) override {
    bool changed = false;
    PrimExpr value = visitExpr(op->value);
    std::vector<PrimExpr> indices = visitExprs(op->indices, &changed);
    if (!needsFlattening(*op->buffer)) {
      if (!changed && value == op->value) return self;
      return bufferStore(op->buffer, value, indices);
    }
    return bufferStore(flat(op->buffer), value, {offset(*op->buffer, indices)});
  }

  Stmt visitOtherStmt(const Stmt& s) override {
    // An allocation declares the flat size; its DeclBuffer (visited through visitBuffer) the view.
    if (const auto* op = s->as<AllocateNode>()) {
      Stmt body = visitStmt(op->body);
      PrimExpr size = intImm(1, op->extents.empty() ? DataType::int32() : op->extents[0]->dtype);
      for (const PrimExpr& e : op->extents) size = mul(size, e);
      // A DeclBuffer right inside knows the strides, which may pad the allocation.
      if (const auto* decl = op->body->as<DeclBufferNode>();
          decl && decl->buffer->data == op->bufferVar)
        size = flatExtent(*decl->buffer);
      return allocate(op->bufferVar, op->dtype, {arith::simplify(size)}, op->scope, body);
    }
    return IRMutator::visitOtherStmt(s);
  }

 private:
  Buffer flat(const Buffer& b) {
    if (!needsFlattening(*b)) return b;
    auto it = views_.find(b.get());
    if (it != views_.end()) return it->second;
    auto n = std::make_shared<BufferNode>(*b);
    n->shape = {flatExtent(*b)};
    n->strides.clear();
    n->elemOffset = nullptr;
    views_[b.get()] = n;
    return n;
  }

  PrimExpr offset(const BufferNode& b, const std::vector<PrimExpr>& indices) {
    TS_CHECK(indices.size() == b.shape.size())
        << "FlattenBuffer: " << indices.size() << " indices for the " << b.shape.size()
        << "-d buffer " << b.name;
    std::vector<PrimExpr> strides = stridesOf(b);
    PrimExpr result;
    for (size_t d = 0; d < indices.size(); ++d) {
      PrimExpr term = isOne(strides[d]) ? indices[d] : widenedBinary(mul, indices[d], strides[d]);
      result = result ? widenedBinary(add, result, term) : term;
    }
    if (!result) result = intImm(0);
    if (b.elemOffset && !isZero(b.elemOffset)) result = widenedBinary(add, result, b.elemOffset);
    return result;
  }

  // int32 loop variables may meet int64 shapes; compute in the wider type (NarrowDataType
  // narrows again where the values fit).
  static PrimExpr widenedBinary(PrimExpr (*op)(PrimExpr, PrimExpr), PrimExpr a, PrimExpr b) {
    // Each operand keeps its lanes (a vector view index plus a scalar origin); op broadcasts.
    DataType t = (a->dtype.bits() >= b->dtype.bits() ? a->dtype : b->dtype).element();
    const DataType ta = t.withLanes(a->dtype.lanes()), tb = t.withLanes(b->dtype.lanes());
    a = cast(ta, a);
    b = cast(tb, b);
    if (a->dtype.lanes() > 1 && b->dtype.lanes() == 1) std::swap(a, b);  // + and * commute
    if (a->dtype.lanes() == 1 && b->dtype.lanes() > 1) {
      // A scalar offset or stride folds into a Ramp, which stays a contiguous access.
      if (const auto* r = b->as<RampNode>()) {
        if (op == &add) return ramp(add(a, r->base), r->stride, r->lanes);
        if (op == &mul) return ramp(mul(a, r->base), mul(a, r->stride), r->lanes);
      }
      if (const auto* v = b->as<BroadcastNode>()) return broadcast(op(a, v->value), v->lanes);
    }
    return op(std::move(a), std::move(b));
  }

  std::unordered_map<const BufferNode*, Buffer> views_;
};

}  // namespace

PrimFunc flattenBuffer(const PrimFunc& func) {
  Flattener flattener;
  return withBody(func, flattener.visitStmt(func->body));
}

}  // namespace tessera::tir::transform
