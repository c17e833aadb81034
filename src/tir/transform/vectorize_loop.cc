// VectorizeLoop: a `vectorized` loop of constant extent L runs its body once on L lanes. The loop
// variable becomes Ramp(min, 1, L); affine index arithmetic keeps ramps as ramps (so contiguous
// accesses stay vector loads/stores), other vector values are element-wise nodes with scalars
// broadcast; a per-lane condition selects between a contiguous load and a constant (a masked
// load), and a per-lane condition around a contiguous store stores only its lanes (a masked
// store, its value's loads masked the same way). Anything that has no vector meaning here
// (another condition that differs per lane, a store of a vector to one address, a gather, an
// allocation, an extern call) makes the loop serial.
#include <set>
#include <string>

#include "tir/functor.h"
#include "tir/transform/pass_util.h"
#include "tir/transform/transform.h"

namespace tessera::tir::transform {

namespace {

// Element-wise intrinsics whose vector form is the same call on vectors.
bool isElementwiseCall(const std::string& op) {
  static const std::set<std::string> kOps = {
      "tir.exp",        "tir.exp2",        "tir.tanh",        "tir.erf",        "tir.sigmoid",
      "tir.sqrt",       "tir.rsqrt",       "tir.log",         "tir.log2",       "tir.log10",
      "tir.fabs",       "tir.abs",         "tir.pow",         "tir.floor",      "tir.ceil",
      "tir.round",      "tir.fma",         "tir.nearbyint",   "tir.trunc",      "tir.sin",
      "tir.cos",        "tir.asin",        "tir.acos",        "tir.atan",       "tir.isnan",
      "tir.shift_left", "tir.shift_right", "tir.bitwise_and", "tir.bitwise_or", "tir.bitwise_xor",
      "tir.bitwise_not"};
  return kOps.count(op) > 0;
}

// A vector load of non-bool elements: what codegen can read under a mask (emitMaskedLoad).
bool isMaskableLoad(const PrimExpr& e) {
  const auto* load = e->as<BufferLoadNode>();
  return load && e->dtype.lanes() > 1 && !load->buffer->dtype.isBool() &&
         load->buffer->dtype.lanes() == 1;
}

bool readsMemory(const PrimExpr& e) {
  bool reads = false;
  postOrderVisitExpr(e, [&](const PrimExpr& x) {
    reads = reads || x->as<BufferLoadNode>() != nullptr ||
            (x->as<CallNode>() && !isElementwiseCall(x->as<CallNode>()->op));
  });
  return reads;
}

PrimExpr zeroOf(DataType dtype) {
  return dtype.isFloat() ? floatImm(0, dtype) : intImm(0, dtype);
}

// Thrown from deep inside the rewrite when some node has no vector form; the loop is then kept
// as a serial loop, which is always correct.
struct NotVectorizable {};

class Vectorizer {
 public:
  Vectorizer(const ForNode* loop, int lanes) : loop_(loop), lanes_(lanes) {}

  Stmt run() { return stmt(loop_->body); }

 private:
  bool isVec(const PrimExpr& e) const { return e->dtype.lanes() > 1; }
  PrimExpr widen(const PrimExpr& e) const { return isVec(e) ? e : broadcast(e, lanes_); }

  // The scalar a Broadcast repeats (so ramp arithmetic can treat it as a scalar).
  static PrimExpr scalarOf(const PrimExpr& e) {
    if (e->dtype.lanes() == 1) return e;
    const auto* b = e->as<BroadcastNode>();
    return b ? b->value : nullptr;
  }

  // Affine arithmetic on ramps stays a ramp (base and stride combine), which keeps an index such
  // as `i * 64 + j` with `j` vectorized a contiguous access. Null when the result is no ramp.
  PrimExpr rampArith(BinaryOp op, const PrimExpr& a, const PrimExpr& b) {
    const auto* ra = a->as<RampNode>();
    const auto* rb = b->as<RampNode>();
    PrimExpr sa = scalarOf(a), sb = scalarOf(b);
    auto plus = [](const PrimExpr& x, const PrimExpr& y) {
      return isZero(x) ? y : isZero(y) ? x : add(x, y);
    };
    if (op == BinaryOp::kAdd) {
      if (ra && rb) return ramp(plus(ra->base, rb->base), add(ra->stride, rb->stride), lanes_);
      if (ra && sb) return ramp(plus(ra->base, sb), ra->stride, lanes_);
      if (rb && sa) return ramp(plus(sa, rb->base), rb->stride, lanes_);
    }
    if (op == BinaryOp::kSub) {
      if (ra && rb) return ramp(sub(ra->base, rb->base), sub(ra->stride, rb->stride), lanes_);
      if (ra && sb) return ramp(sub(ra->base, sb), ra->stride, lanes_);
      if (rb && sa)
        return ramp(sub(sa, rb->base), sub(intImm(0, rb->stride->dtype), rb->stride), lanes_);
    }
    if (op == BinaryOp::kMul) {
      if (ra && sb) return ramp(mul(ra->base, sb), mul(ra->stride, sb), lanes_);
      if (rb && sa) return ramp(mul(sa, rb->base), mul(sa, rb->stride), lanes_);
    }
    return nullptr;
  }

  // The vector form of `e`: scalar (lanes 1) when `e` does not depend on the loop variable, else
  // a vector of `lanes_` lanes.
  PrimExpr expr(const PrimExpr& e) {
    switch (e->kind) {
      case ExprKind::kIntImm:
      case ExprKind::kFloatImm:
      case ExprKind::kStringImm:
        return e;
      case ExprKind::kVar:
        return e.get() == loop_->loopVar.get()
                   ? ramp(loop_->min, intImm(1, loop_->min->dtype), lanes_)
                   : e;
      case ExprKind::kCast: {
        PrimExpr v = expr(e->as<CastNode>()->value);
        if (!isVec(v)) return cast(e->dtype, v);
        return std::make_shared<CastNode>(e->dtype.withLanes(lanes_), v);
      }
      case ExprKind::kBinary: {
        const auto* b = e->as<BinaryNode>();
        PrimExpr x = expr(b->a), y = expr(b->b);
        if (!isVec(x) && !isVec(y)) return binary(b->op, x, y);
        PrimExpr sx = scalarOf(x), sy = scalarOf(y);
        if (sx && sy) return broadcast(binary(b->op, sx, sy), lanes_);
        if (PrimExpr r = rampArith(b->op, x, y)) return r;
        bool boolResult = isComparison(b->op) || b->op == BinaryOp::kAnd || b->op == BinaryOp::kOr;
        DataType t = boolResult ? DataType::boolType().withLanes(lanes_) : widen(x)->dtype;
        return std::make_shared<BinaryNode>(b->op, t, widen(x), widen(y));
      }
      case ExprKind::kNot: {
        PrimExpr a = expr(e->as<NotNode>()->a);
        return isVec(a) ? PrimExpr(std::make_shared<NotNode>(a)) : logicalNot(a);
      }
      case ExprKind::kSelect: {
        const auto* s = e->as<SelectNode>();
        PrimExpr c = expr(s->cond), t = expr(s->t), f = expr(s->f);
        if (!isVec(c) && !isVec(t) && !isVec(f)) return select(c, t, f);
        return std::make_shared<SelectNode>(widen(c), widen(t), widen(f));
      }
      case ExprKind::kBufferLoad:
        return load(e->as<BufferLoadNode>());
      case ExprKind::kLet: {
        const auto* l = e->as<LetNode>();
        PrimExpr v = expr(l->value);
        if (isVec(v)) throw NotVectorizable{};
        return let(l->var, v, expr(l->body));
      }
      case ExprKind::kCall:
        return callExpr(e->as<CallNode>());
      case ExprKind::kRamp:
      case ExprKind::kBroadcast:
      case ExprKind::kReduce:
        throw NotVectorizable{};
    }
    throw NotVectorizable{};
  }

  PrimExpr callExpr(const CallNode* c) {
    std::vector<PrimExpr> args;
    bool anyVec = false;
    for (const PrimExpr& a : c->args) {
      args.push_back(expr(a));
      anyVec = anyVec || isVec(args.back());
    }
    if (!anyVec) return call(c->dtype, c->op, args);
    if (c->op == "tir.likely") return args[0];
    if (c->op == "tir.if_then_else" && !isVec(args[0]))
      return call(c->dtype.withLanes(lanes_), c->op, {args[0], widen(args[1]), widen(args[2])});
    // Per-lane: codegen reads the load's lanes under the condition as a mask (a padding's edge
    // never reads outside its buffer), so only a vector load against a value without loads.
    if (c->op == "tir.if_then_else" && isMaskableLoad(args[1]) && !readsMemory(args[2]))
      return call(c->dtype.withLanes(lanes_), c->op, {args[0], args[1], widen(args[2])});
    // The same under a masked store, whose mask already guards the load.
    if (c->op == "tir.if_then_else" && !readsMemory(args[2]) && maskedLoadOf(args[1]))
      return call(
          c->dtype.withLanes(lanes_), c->op,
          {logicalAnd(widen(args[0]), mask_), args[1]->as<CallNode>()->args[1], widen(args[2])});
    if (!isElementwiseCall(c->op)) throw NotVectorizable{};
    for (PrimExpr& a : args) a = widen(a);
    return call(c->dtype.withLanes(lanes_), c->op, args);
  }

  // Vectorized indices: all scalar, or exactly one a Ramp (after FlattenBuffer there is one index).
  std::vector<PrimExpr> indices(const std::vector<PrimExpr>& in, int* vecDim) {
    std::vector<PrimExpr> out;
    *vecDim = -1;
    for (size_t d = 0; d < in.size(); ++d) {
      out.push_back(expr(in[d]));
      if (!isVec(out.back())) continue;
      if (*vecDim >= 0) throw NotVectorizable{};
      *vecDim = static_cast<int>(d);
    }
    return out;
  }

  // A broadcast index reads one element (loaded once, then broadcast); a ramp index is a vector
  // load; any other vector index would be a gather, which the lowered form does not have.
  PrimExpr load(const BufferLoadNode* op) {
    int vecDim = 0;
    std::vector<PrimExpr> idx = indices(op->indices, &vecDim);
    if (vecDim < 0) return bufferLoad(op->buffer, idx);
    if (const auto* b = idx[vecDim]->as<BroadcastNode>()) {
      idx[vecDim] = b->value;
      return broadcast(bufferLoad(op->buffer, idx), lanes_);
    }
    if (!idx[vecDim]->as<RampNode>() || idx.size() != 1) throw NotVectorizable{};
    PrimExpr loaded =
        std::make_shared<BufferLoadNode>(op->buffer->dtype.withLanes(lanes_), op->buffer, idx);
    // Under a masked store, the lanes it leaves alone may lie past the buffer: read only the rest.
    if (mask_)
      return call(loaded->dtype, "tir.if_then_else",
                  {mask_, loaded, broadcast(zeroOf(op->buffer->dtype), lanes_)});
    return loaded;
  }

  // Whether `e` is a load of a masked store's value as load() guards it: if_then_else(mask_, load,
  // 0).
  bool maskedLoadOf(const PrimExpr& e) const {
    const auto* c = e->as<CallNode>();
    return mask_ && c && c->op == "tir.if_then_else" && c->args[0] == mask_ &&
           isMaskableLoad(c->args[1]);
  }

  // `if (cond) buffer[i] = value` with a per-lane condition: a store of only the lanes where it
  // holds (the predicate a split leaves on a row's last, partial vector): tir::maskedStore. The
  // condition's lane-invariant conjuncts stay a branch.
  Stmt maskedStore(const PrimExpr& cond, const BufferStoreNode* op) {
    std::vector<PrimExpr> conjuncts, scalar, lanewise;
    conjunctsOf(cond, conjuncts);
    for (const PrimExpr& c : conjuncts) (isVec(expr(c)) ? lanewise : scalar).push_back(c);
    PrimExpr mask;
    for (const PrimExpr& c : lanewise) mask = mask ? logicalAnd(mask, c) : c;
    // mask_ guards the value's loads (and is cleared however the value's rewrite ends).
    struct MaskScope {
      PrimExpr& mask;
      ~MaskScope() { mask = nullptr; }
    } scope{mask_};
    mask_ = widen(expr(mask));
    int vecDim = 0;
    std::vector<PrimExpr> idx = indices(op->indices, &vecDim);
    PrimExpr value = widen(expr(op->value));
    mask_ = nullptr;
    if (vecDim < 0 || !idx[vecDim]->as<RampNode>() || idx.size() != 1 ||
        op->buffer->dtype.isBool() || op->buffer->dtype.lanes() != 1)
      throw NotVectorizable{};
    Stmt store = tir::maskedStore(op->buffer, widen(expr(mask)), value, idx);
    for (auto it = scalar.rbegin(); it != scalar.rend(); ++it)
      store = ifThenElse(expr(*it), store, nullptr);
    return store;
  }

  // Statements keep their structure; only their expressions become vectors. Control flow must be
  // the same for every lane, so conditions and loop bounds have to stay scalar.
  Stmt stmt(const Stmt& s) {
    switch (s->kind) {
      case StmtKind::kBufferStore: {
        const auto* op = s->as<BufferStoreNode>();
        PrimExpr value = expr(op->value);
        int vecDim = 0;
        std::vector<PrimExpr> idx = indices(op->indices, &vecDim);
        if (vecDim < 0) {
          // Every lane would write the same address; only a lane-invariant value is harmless.
          if (isVec(value)) throw NotVectorizable{};
          return bufferStore(op->buffer, value, idx);
        }
        if (!idx[vecDim]->as<RampNode>() || idx.size() != 1) throw NotVectorizable{};
        return bufferStore(op->buffer, widen(value), idx);
      }
      case StmtKind::kSeqStmt: {
        std::vector<Stmt> out;
        for (const Stmt& x : s->as<SeqStmtNode>()->seq) out.push_back(stmt(x));
        return seq(std::move(out));
      }
      case StmtKind::kFor: {
        const auto* op = s->as<ForNode>();
        if (isVec(expr(op->min)) || isVec(expr(op->extent))) throw NotVectorizable{};
        auto n = std::make_shared<ForNode>(*op);
        n->body = stmt(op->body);
        return n;
      }
      case StmtKind::kIfThenElse: {
        const auto* op = s->as<IfThenElseNode>();
        PrimExpr c = expr(op->condition);
        if (isVec(c) && !op->elseCase && op->thenCase->as<BufferStoreNode>())
          return maskedStore(unwrapLikely(op->condition), op->thenCase->as<BufferStoreNode>());
        if (isVec(c)) throw NotVectorizable{};
        return ifThenElse(c, stmt(op->thenCase), op->elseCase ? stmt(op->elseCase) : nullptr);
      }
      case StmtKind::kLetStmt: {
        const auto* op = s->as<LetStmtNode>();
        PrimExpr v = expr(op->value);
        if (isVec(v)) throw NotVectorizable{};
        return letStmt(op->var, v, stmt(op->body));
      }
      case StmtKind::kAttrStmt: {
        const auto* op = s->as<AttrStmtNode>();
        if (isVec(expr(op->value))) throw NotVectorizable{};
        return attrStmt(op->node, op->key, op->value, stmt(op->body));
      }
      case StmtKind::kEvaluate: {
        PrimExpr v = expr(s->as<EvaluateNode>()->value);
        if (isVec(v)) throw NotVectorizable{};
        return evaluate(v);
      }
      case StmtKind::kAssertStmt:
      case StmtKind::kBlock:
      case StmtKind::kBlockRealize:
      case StmtKind::kAllocate:
      case StmtKind::kDeclBuffer:
        throw NotVectorizable{};
    }
    throw NotVectorizable{};
  }

  const ForNode* loop_;
  int lanes_;
  PrimExpr mask_;  ///< while vectorizing a masked store's value: its lane mask
};

class LoopVectorizer : public IRMutator {
 public:
  explicit LoopVectorizer(bool disable) : disable_(disable) {}

 protected:
  Stmt visitFor(const ForNode* op, const Stmt& self) override {
    Stmt visited = IRMutator::visitFor(op, self);  // inner loops first
    if (op->forKind != ForKind::kVectorized) return visited;
    const auto* loop = visited->as<ForNode>();
    const int64_t* extent = asConstInt(loop->extent);
    if (!disable_ && extent && *extent > 1) {
      try {
        return Vectorizer(loop, static_cast<int>(*extent)).run();
      } catch (const NotVectorizable&) {
        // Fall through to the serial loop: same semantics, scalar code.
      }
    }
    auto n = std::make_shared<ForNode>(*loop);
    n->forKind = ForKind::kSerial;
    return n;
  }

 private:
  bool disable_;
};

}  // namespace

PrimFunc vectorizeLoop(const PrimFunc& func, bool disable) {
  LoopVectorizer vectorizer(disable);
  return withBody(func, vectorizer.visitStmt(func->body));
}

}  // namespace tessera::tir::transform
