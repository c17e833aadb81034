// NarrowDataType: TE and create_prim_func may use int64 for shapes and loop variables; 64-bit
// index arithmetic is slower and blocks vectorisation, so loops and index expressions whose every
// intermediate value provably fits in `targetBits` are rewritten in that type. Expressions that
// must stay int64 (stored values, symbolic shapes) get a cast around a narrowed variable.
#include <limits>
#include <unordered_map>
#include <unordered_set>

#include "tir/functor.h"
#include "tir/transform/pass_util.h"
#include "tir/transform/transform.h"

namespace tessera::tir::transform {

namespace {

class Narrower : public IRMutator {
 public:
  Narrower(int bits, const std::vector<Buffer>& params)
      : target_(DataType::Code::kInt, bits),
        max_((int64_t{1} << (bits - 1)) - 1),
        min_(-(int64_t{1} << (bits - 1))) {
    for (const Buffer& b : params) params_.insert(b.get());
  }

  PrimExpr visitExpr(const PrimExpr& e) override {
    if (!e) return e;
    // Comparisons of wide operands become comparisons of narrow ones when both narrow.
    if (const auto* b = e->as<BinaryNode>(); b && isComparison(b->op) && isWide(b->a)) {
      PrimExpr na = tryNarrow(b->a), nb = tryNarrow(b->b);
      if (na && nb) return binary(b->op, na, nb);
    }
    // A conversion of a wide index to another type converts the narrow index instead.
    if (const auto* c = e->as<CastNode>(); c && isWide(c->value) && !isWide(e)) {
      if (PrimExpr n = tryNarrow(c->value)) return cast(e->dtype, n);
    }
    return IRMutator::visitExpr(e);
  }

 protected:
  PrimExpr visitVar(const VarNode* op, const PrimExpr& self) override {
    auto it = narrowed_.find(op);
    return it == narrowed_.end() ? self : cast(op->dtype, it->second);
  }

  // Views and allocations declared in the body (flat views of int64 parameters) get narrow
  // constant shapes too; the parameters' own buffers keep theirs, they describe the ABI.
  Buffer visitBuffer(const Buffer& b) override {
    if (params_.count(b.get())) return b;
    if (auto it = narrowedBuffers_.find(b.get()); it != narrowedBuffers_.end()) return it->second;
    bool changed = false;
    std::vector<PrimExpr> shape;
    for (const PrimExpr& d : b->shape) {
      const int64_t* c = asConstInt(d);
      bool narrow = c && isWide(d) && *c >= min_ && *c <= max_;
      shape.push_back(narrow ? intImm(*c, target_) : d);
      changed = changed || narrow;
    }
    if (!changed) return b;
    auto n = std::make_shared<BufferNode>(*b);
    n->shape = std::move(shape);
    narrowedBuffers_[b.get()] = n;
    return n;
  }

  PrimExpr visitBufferLoad(const BufferLoadNode* op, const PrimExpr& self) override {
    return bufferLoad(visitBuffer(op->buffer), indices(op->indices));
  }

  Stmt visitBufferStore(const BufferStoreNode* op, const Stmt& self) override {
    return bufferStore(visitBuffer(op->buffer), visitExpr(op->value), indices(op->indices));
  }

  // The loop variable is narrowed when its whole range fits; the original variable stays bound in
  // the analyzer so that bounds of not-yet-rewritten expressions remain known.
  Stmt visitFor(const ForNode* op, const Stmt& self) override {
    analyzer_.bind(op->loopVar, Range{op->min, op->extent});
    if (!isWide(op->loopVar)) return IRMutator::visitFor(op, self);
    PrimExpr min = tryNarrow(op->min), extent = tryNarrow(op->extent);
    if (!min || !extent || !fits(add(op->min, op->extent))) return IRMutator::visitFor(op, self);
    Var v = makeVar(op->loopVar->name, target_);
    narrowed_[op->loopVar.get()] = v;
    auto n = std::make_shared<ForNode>(*op);
    n->loopVar = v;
    n->min = min;
    n->extent = extent;
    n->body = visitStmt(op->body);
    return n;
  }

  Stmt visitOtherStmt(const Stmt& s) override {
    if (const auto* op = s->as<AllocateNode>()) {
      return allocate(op->bufferVar, op->dtype, indices(op->extents), op->scope,
                      visitStmt(op->body));
    }
    return IRMutator::visitOtherStmt(s);
  }

 private:
  bool isWide(const PrimExpr& e) const {
    return e->dtype.isInt() && e->dtype.lanes() == 1 && e->dtype.bits() > target_.bits();
  }

  bool fits(const PrimExpr& e) {
    arith::ConstIntBound b = analyzer_.constIntBound(e);
    return b.min >= min_ && b.max <= max_;
  }

  // Index positions accept the narrow type directly (codegen extends as needed).
  std::vector<PrimExpr> indices(const std::vector<PrimExpr>& es) {
    std::vector<PrimExpr> out;
    for (const PrimExpr& e : es) {
      PrimExpr n = isWide(e) ? tryNarrow(e) : nullptr;
      out.push_back(n ? n : visitExpr(e));
    }
    return out;
  }

  // `e` (wide) rewritten in the narrow type, or null when some value might not fit or a leaf
  // cannot be narrowed (a load of a wide buffer, a symbolic shape, a let variable).
  PrimExpr tryNarrow(const PrimExpr& e) {
    if (!fits(e)) return nullptr;
    switch (e->kind) {
      case ExprKind::kIntImm:
        return intImm(e->as<IntImmNode>()->value, target_);
      case ExprKind::kVar: {
        auto it = narrowed_.find(e->as<VarNode>());
        return it == narrowed_.end() ? nullptr : it->second;
      }
      case ExprKind::kCast: {
        const PrimExpr& v = e->as<CastNode>()->value;
        if (!v->dtype.isInteger() || v->dtype.lanes() != 1) return nullptr;
        if (isWide(v)) return tryNarrow(v);
        return cast(target_, visitExpr(v));
      }
      case ExprKind::kBinary: {
        const auto* b = e->as<BinaryNode>();
        if (isComparison(b->op) || b->op == BinaryOp::kAnd || b->op == BinaryOp::kOr)
          return nullptr;
        PrimExpr a = tryNarrow(b->a);
        PrimExpr c = a ? tryNarrow(b->b) : nullptr;
        return c ? binary(b->op, a, c) : nullptr;
      }
      case ExprKind::kSelect: {
        const auto* s = e->as<SelectNode>();
        PrimExpr t = tryNarrow(s->t);
        PrimExpr f = t ? tryNarrow(s->f) : nullptr;
        return f ? select(visitExpr(s->cond), t, f) : nullptr;
      }
      default:
        return nullptr;
    }
  }

  DataType target_;
  int64_t max_;
  int64_t min_;
  arith::Analyzer analyzer_;
  VarMap narrowed_;
  std::unordered_set<const BufferNode*> params_;
  std::unordered_map<const BufferNode*, Buffer> narrowedBuffers_;
};

}  // namespace

PrimFunc narrowDataType(const PrimFunc& func, int targetBits) {
  Narrower narrower(targetBits, func->paramBuffers());
  return withBody(func, narrower.visitStmt(func->body));
}

}  // namespace tessera::tir::transform
