#include "tir/transform/pass_util.h"

#include <unordered_map>

#include "tir/functor.h"

namespace tessera::tir::transform {

PrimFunc withBody(const PrimFunc& func, Stmt body) {
  auto n = std::make_shared<PrimFuncNode>(*func);
  n->body = std::move(body);
  return n;
}

// Only scalar annotation values have an expression form; arrays and nested attributes (such as
// buffer_dim_align) are consumed by the passes that understand them.
PrimExpr attrToExpr(const AttrValue& value) {
  switch (value.kind()) {
    case AttrValue::Kind::kInt:
      return intImm(value.asInt(), value.numberType());
    case AttrValue::Kind::kBool:
      return boolImm(value.asBool());
    case AttrValue::Kind::kFloat:
      return floatImm(value.asFloat(), value.numberType());
    case AttrValue::Kind::kString:
      return stringImm(value.asString());
    case AttrValue::Kind::kNone:
    case AttrValue::Kind::kArray:
    case AttrValue::Kind::kAttrs:
      return nullptr;
  }
  return nullptr;
}

bool isConstTrue(const PrimExpr& e) {
  const auto* i = e ? e->as<IntImmNode>() : nullptr;
  return i && i->value != 0;
}

bool isConstFalse(const PrimExpr& e) {
  const auto* i = e ? e->as<IntImmNode>() : nullptr;
  return i && i->value == 0;
}

namespace {

// Walks a statement keeping the domains of the loops entered so far and the bindings of the block
// iter vars, so that each access can be relaxed over everything bound inside the statement.
class RegionCollector : public IRVisitor {
 public:
  RegionCollector(arith::Analyzer& analyzer, AccessKind kind) : analyzer_(analyzer), kind_(kind) {}

  std::vector<BufferRegion> regions;

 protected:
  // Loops inside the statement are relaxed: their bounds are taken with the block bindings
  // known so far, since a loop under a block may have an extent written in its iter vars.
  void visitFor(const ForNode* op) override {
    dom_[op->loopVar.get()] =
        Range{substitute(op->min, bindings_), substitute(op->extent, bindings_)};
    IRVisitor::visitFor(op);
  }
  void visitBlockRealize(const BlockRealizeNode* op) override {
    for (size_t i = 0; i < op->iterValues.size() && i < op->block->iterVars.size(); ++i)
      bindings_[op->block->iterVars[i].var.get()] = substitute(op->iterValues[i], bindings_);
    for (const MatchBufferRegion& m : op->block->matchBuffers) views_[m.buffer.get()] = m.source;
    // Only the body and init access memory; the declared regions are not accesses.
    visitStmt(op->block->init);
    visitStmt(op->block->body);
  }
  void visitBufferLoad(const BufferLoadNode* op) override {
    if (kind_ != AccessKind::kWrite) access(op->buffer, op->indices);
    IRVisitor::visitBufferLoad(op);
  }
  void visitBufferStore(const BufferStoreNode* op) override {
    if (kind_ != AccessKind::kRead) access(op->buffer, op->indices);
    IRVisitor::visitBufferStore(op);
  }

 private:
  // An access of a match_buffer view (a tensorized block's body) accesses its whole source
  // region: the view's own indices may be vectors spanning it.
  void access(const Buffer& buffer, const std::vector<PrimExpr>& indices) {
    auto view = views_.find(buffer.get());
    if (view == views_.end()) return record(buffer, indices);
    std::vector<PrimExpr> first, last;
    for (const Range& r : view->second.region) {
      first.push_back(r.min);
      last.push_back(r.min + r.extent - 1);
    }
    record(view->second.buffer, first);
    record(view->second.buffer, last);
  }

  // Widens the buffer's box by the interval each index covers. The union of two boxes is the
  // min of the mins and the max of the maxes, simplified while the analyzer can order them.
  void record(const Buffer& buffer, const std::vector<PrimExpr>& indices) {
    std::vector<std::pair<PrimExpr, PrimExpr>> box;  // per dimension [min, max]
    for (size_t d = 0; d < indices.size(); ++d) {
      // Simplified first: a fused index read back as (p // w) * w + p % w bounds as p.
      PrimExpr idx = analyzer_.simplify(substitute(indices[d], bindings_));
      arith::IntervalSet set = analyzer_.evalSet(idx, dom_);
      if (!set.bounded() && d < buffer->shape.size()) {
        // Unknown range: assume the whole dimension.
        PrimExpr zero = intImm(0, buffer->shape[d]->dtype);
        set = {zero, analyzer_.simplify(buffer->shape[d] - 1)};
      }
      box.emplace_back(set.min, set.max);
    }
    auto it = index_.find(buffer.get());
    if (it == index_.end()) {
      index_[buffer.get()] = boxes_.size();
      boxes_.push_back(box);
      buffers_.push_back(buffer);
      return;
    }
    auto& old = boxes_[it->second];
    for (size_t d = 0; d < old.size() && d < box.size(); ++d) {
      old[d].first = analyzer_.simplify(tir::min(old[d].first, box[d].first));
      old[d].second = analyzer_.simplify(tir::max(old[d].second, box[d].second));
    }
  }

 public:
  // Turns the [min, max] boxes into regions (min, extent = max - min + 1).
  void finish() {
    for (size_t i = 0; i < buffers_.size(); ++i) {
      BufferRegion r{buffers_[i], {}};
      for (auto& [lo, hi] : boxes_[i])
        r.region.push_back(Range{lo, analyzer_.simplify(hi - lo + 1)});
      regions.push_back(std::move(r));
    }
  }

 private:
  arith::Analyzer& analyzer_;
  AccessKind kind_;
  arith::DomainMap dom_;
  VarMap bindings_;
  std::unordered_map<const BufferNode*, BufferRegion> views_;  ///< match_buffer -> its source
  std::unordered_map<const BufferNode*, size_t> index_;
  std::vector<std::vector<std::pair<PrimExpr, PrimExpr>>> boxes_;
  std::vector<Buffer> buffers_;
};

}  // namespace

std::vector<BufferRegion> accessedRegions(const Stmt& body, arith::Analyzer& analyzer,
                                          AccessKind kind) {
  RegionCollector collector(analyzer, kind);
  collector.visitStmt(body);
  collector.finish();
  return std::move(collector.regions);
}

PrimExpr unwrapLikely(const PrimExpr& e) {
  const auto* c = e->as<CallNode>();
  return c && c->op == "tir.likely" && c->args.size() == 1 ? c->args[0] : e;
}

void conjunctsOf(const PrimExpr& cond, std::vector<PrimExpr>& out) {
  std::vector<PrimExpr> stack{cond};  // right operands first out: conjuncts in source order
  while (!stack.empty()) {
    PrimExpr e = stack.back();
    stack.pop_back();
    const auto* b = e->as<BinaryNode>();
    if (!b || b->op != BinaryOp::kAnd) {
      out.push_back(e);
      continue;
    }
    stack.push_back(b->b);
    stack.push_back(b->a);
  }
}

}  // namespace tessera::tir::transform
