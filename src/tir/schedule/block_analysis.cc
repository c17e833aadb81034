// Block property checks shared by the primitives.
#include "tir/schedule/block_analysis.h"

#include <unordered_map>

#include "tir/functor.h"
#include "tir/schedule/schedule.h"

namespace tessera::tir {

std::unordered_set<const VarNode*> varsOf(const PrimExpr& e) {
  std::unordered_set<const VarNode*> out;
  postOrderVisitExpr(e, [&](const PrimExpr& x) {
    if (const auto* v = x->as<VarNode>()) out.insert(v);
  });
  return out;
}

bool bindsVarAs(const BlockRealizeNode* realize, const VarNode* v, IterVarType type) {
  const auto& ivs = realize->block->iterVars;
  for (size_t i = 0; i < ivs.size(); ++i) {
    if (ivs[i].type == type && usesVar(realize->iterValues[i], v)) return true;
  }
  return false;
}

bool hasOnlySpatialAndReduce(const BlockNode* block) {
  for (const IterVar& iv : block->iterVars) {
    if (iv.type != IterVarType::kDataPar && iv.type != IterVarType::kCommReduce) return false;
  }
  return true;
}

namespace {

bool isQuasiAffine(const PrimExpr& e) {
  if (e->as<IntImmNode>() || e->as<VarNode>()) return true;
  if (const auto* c = e->as<CastNode>()) return isQuasiAffine(c->value);
  const auto* b = e->as<BinaryNode>();
  if (!b) return false;
  switch (b->op) {
    case BinaryOp::kAdd:
    case BinaryOp::kSub:
      return isQuasiAffine(b->a) && isQuasiAffine(b->b);
    case BinaryOp::kMul:
      return isQuasiAffine(b->a) && isQuasiAffine(b->b) && (asConstInt(b->a) || asConstInt(b->b));
    case BinaryOp::kFloorDiv:
    case BinaryOp::kFloorMod: {
      const int64_t* d = asConstInt(b->b);
      return d && *d > 0 && isQuasiAffine(b->a);
    }
    default:
      return false;
  }
}

}  // namespace

bool hasAffineBindings(const BlockRealizeNode* realize) {
  for (const PrimExpr& v : realize->iterValues) {
    if (!isQuasiAffine(v)) return false;
  }
  return true;
}

bool readsBuffer(const BlockNode* block, const BufferNode* buffer) {
  for (const BufferRegion& r : block->reads) {
    if (r.buffer.get() == buffer) return true;
  }
  return false;
}

bool writesBuffer(const BlockNode* block, const BufferNode* buffer) {
  for (const BufferRegion& r : block->writes) {
    if (r.buffer.get() == buffer) return true;
  }
  return false;
}

namespace {

// The direct operands of an expression (its field list: operands, indices, arguments).
class DirectChildren : public IRVisitor {
 public:
  std::vector<PrimExpr> of(const PrimExprNode& e) {
    out_.clear();
    visitChildren(e);
    return std::move(out_);
  }
  void visitExpr(const PrimExpr& e) override {
    if (e) out_.push_back(e);
  }

 private:
  std::vector<PrimExpr> out_;
};

// Tree sizes of expressions (memoized per node, so a shared subexpression costs one visit), with
// loads of the producer's buffer counted as the producer's value they would become.
class InlinedTreeSize {
 public:
  explicit InlinedTreeSize(const BufferStoreNode* producer) : producer_(producer) {
    if (producer_ == nullptr) return;
    postOrderVisitExpr(producer_->value, [&](const PrimExpr& x) {
      ++valueSize_;
      if (const auto* v = x->as<VarNode>()) ++uses_[v];
    });
  }
  int64_t of(const PrimExpr& e) {
    if (const auto it = size_.find(e.get()); it != size_.end()) return it->second;
    int64_t n = 1;
    const auto* load = e->as<BufferLoadNode>();
    if (producer_ != nullptr && load != nullptr && load->buffer == producer_->buffer &&
        load->indices.size() == producer_->indices.size()) {
      n = valueSize_;
      for (size_t i = 0; i < load->indices.size(); ++i) {
        const auto* var = producer_->indices[i]->as<VarNode>();
        const auto it = var ? uses_.find(var) : uses_.end();
        if (it != uses_.end()) n += it->second * (of(load->indices[i]) - 1);
      }
    } else {
      for (const PrimExpr& c : DirectChildren().of(*e)) n += of(c);
    }
    size_[e.get()] = n;
    return n;
  }

 private:
  const BufferStoreNode* producer_;
  int64_t valueSize_ = 0;
  std::unordered_map<const VarNode*, int64_t> uses_;
  std::unordered_map<const PrimExprNode*, int64_t> size_;
};

}  // namespace

int64_t inlinedValueSize(const BlockNode* producer, const BlockNode* consumer) {
  const auto* pstore = producer->body ? producer->body->as<BufferStoreNode>() : nullptr;
  const auto* cstore = consumer->body ? consumer->body->as<BufferStoreNode>() : nullptr;
  if (cstore == nullptr) return 0;
  return InlinedTreeSize(pstore).of(cstore->value);
}

bool inliningStaysSmall(Schedule& sch, const BlockRV& producer) {
  for (const BlockRV& c : sch.getConsumers(producer))
    if (inlinedValueSize(sch.get(producer), sch.get(c)) > kMaxInlinedValueSize) return false;
  return true;
}

bool isCompleteBlock(const BlockNode* block) {
  // A block with an init is a reduction even without reduce iter vars (a reduction over no axes,
  // e.g. mean of a rank-0 tensor): its update reads the output, which `reads` does not list.
  if (block->init) return false;
  for (const IterVar& iv : block->iterVars) {
    if (iv.type != IterVarType::kDataPar) return false;
  }
  for (const BufferRegion& w : block->writes) {
    if (readsBuffer(block, w.buffer.get())) return false;
  }
  return true;
}

bool isReductionBlock(const BlockNode* block) {
  if (!block->init || !hasOnlySpatialAndReduce(block)) return false;
  for (const IterVar& iv : block->iterVars) {
    if (iv.type != IterVarType::kCommReduce) continue;
    for (const BufferRegion& w : block->writes) {
      for (const Range& r : w.region) {
        if (usesVar(r.min, iv.var.get())) return false;
      }
    }
  }
  return true;
}

std::vector<const BlockRealizeNode*> realizesUnder(const Stmt& root) {
  std::vector<const BlockRealizeNode*> out;
  Stmt start = root;
  if (const auto* b = root->as<BlockNode>()) start = b->body;
  preOrderVisit(start, [&](const Stmt& s) {
    if (const auto* r = s->as<BlockRealizeNode>()) {
      out.push_back(r);
      return false;
    }
    return true;
  });
  return out;
}

}  // namespace tessera::tir
