// tensorize (specs/tir_relax.md §3.9): the block's body must be structurally the description of
// a registered tensor intrinsic (same loop extents, iter-var kinds and expression tree; buffers
// matched by access position, each access offset by an amount that depends only on the block's
// own iter vars). The body is then replaced by a fresh copy of the implementation whose buffers
// are match_buffer views of the matched regions.
#include <unordered_set>

#include "support/diagnostic.h"
#include "tir/functor.h"
#include "tir/printer/printer.h"
#include "tir/schedule/block_analysis.h"
#include "tir/schedule/instruction_kind_util.h"
#include "tir/schedule/primitive/block_primitives.h"
#include "tir/schedule/primitive/block_scope.h"
#include "tir/schedule/primitive/tensor_intrin.h"
#include "tir/schedule/schedule_state.h"

namespace tessera::tir {

// The names of the instructions this file records and replays, written once.
namespace {
constexpr char kTensorizeInst[] = "Tensorize";
}  // namespace

namespace {

constexpr const char* kTensorize = "tensorize";

// The computation inside a description/implementation function: the root block's body.
Stmt intrinBody(const PrimFunc& f) {
  if (const auto* r = f->body->as<BlockRealizeNode>())
    if (r->block->iterVars.empty()) return r->block->body;
  return f->body;
}

// Structural comparison of a description (d) against the target (t). Records the first mismatch.
class IntrinMatcher {
 public:
  struct Access {
    Buffer target;
    std::vector<PrimExpr> offsets;  ///< per target dimension
  };
  std::unordered_map<const BufferNode*, Access> buffers;
  std::string mismatch;

  bool stmt(const Stmt& d, const Stmt& t) {
    if (!d || !t) return d == t || fail("a statement is missing");
    if (d->kind != t->kind) return fail("statement kinds differ at '" + toString(t) + "'");
    switch (d->kind) {
      case StmtKind::kFor: {
        const auto *a = d->as<ForNode>(), *b = t->as<ForNode>();
        if (!sameConst(a->extent, b->extent) || !sameConst(a->min, b->min))
          return fail("loop '" + b->loopVar->name + "' has extent " + toString(b->extent) +
                      ", the description has " + toString(a->extent));
        vars_[a->loopVar.get()] = b->loopVar;
        inner_.insert(b->loopVar.get());
        return stmt(a->body, b->body);
      }
      case StmtKind::kSeqStmt: {
        const auto &a = d->as<SeqStmtNode>()->seq, &b = t->as<SeqStmtNode>()->seq;
        if (a.size() != b.size()) return fail("sequences differ in length");
        for (size_t i = 0; i < a.size(); ++i)
          if (!stmt(a[i], b[i])) return false;
        return true;
      }
      case StmtKind::kBlockRealize:
        return realize(d->as<BlockRealizeNode>(), t->as<BlockRealizeNode>());
      case StmtKind::kBufferStore: {
        const auto *a = d->as<BufferStoreNode>(), *b = t->as<BufferStoreNode>();
        return access(a->buffer, a->indices, b->buffer, b->indices) && expr(a->value, b->value);
      }
      case StmtKind::kEvaluate:
        return expr(d->as<EvaluateNode>()->value, t->as<EvaluateNode>()->value);
      default:
        return fail("unsupported statement '" + toString(t) + "'");
    }
  }

  bool expr(const PrimExpr& d, const PrimExpr& t) {
    if (d->kind != t->kind || d->dtype != t->dtype)
      return fail("expression '" + toString(t) + "' differs from '" + toString(d) + "'");
    switch (d->kind) {
      case ExprKind::kVar: {
        auto it = vars_.find(d->as<VarNode>());
        if (it != vars_.end() && it->second == t) return true;
        return fail("variable '" + toString(t) + "' does not correspond to '" + toString(d) + "'");
      }
      case ExprKind::kIntImm:
      case ExprKind::kFloatImm:
      case ExprKind::kStringImm:
        return deepEqual(d, t) ||
               fail("constant '" + toString(t) + "' differs from '" + toString(d) + "'");
      case ExprKind::kCast:
        return expr(d->as<CastNode>()->value, t->as<CastNode>()->value);
      case ExprKind::kBinary: {
        const auto *a = d->as<BinaryNode>(), *b = t->as<BinaryNode>();
        if (a->op != b->op) return fail("operator differs at '" + toString(t) + "'");
        return expr(a->a, b->a) && expr(a->b, b->b);
      }
      case ExprKind::kNot:
        return expr(d->as<NotNode>()->a, t->as<NotNode>()->a);
      case ExprKind::kSelect: {
        const auto *a = d->as<SelectNode>(), *b = t->as<SelectNode>();
        return expr(a->cond, b->cond) && expr(a->t, b->t) && expr(a->f, b->f);
      }
      case ExprKind::kBufferLoad: {
        const auto *a = d->as<BufferLoadNode>(), *b = t->as<BufferLoadNode>();
        return access(a->buffer, a->indices, b->buffer, b->indices);
      }
      case ExprKind::kCall: {
        const auto *a = d->as<CallNode>(), *b = t->as<CallNode>();
        if (a->op != b->op || a->args.size() != b->args.size())
          return fail("call '" + toString(t) + "' differs");
        for (size_t i = 0; i < a->args.size(); ++i)
          if (!expr(a->args[i], b->args[i])) return false;
        return true;
      }
      default:
        return fail("unsupported expression '" + toString(t) + "'");
    }
  }

 private:
  bool fail(const std::string& why) {
    if (mismatch.empty()) mismatch = why;
    return false;
  }
  static bool sameConst(const PrimExpr& a, const PrimExpr& b) {
    const int64_t *x = asConstInt(a), *y = asConstInt(b);
    return x && y && *x == *y;
  }
  bool realize(const BlockRealizeNode* d, const BlockRealizeNode* t) {
    const BlockNode *a = d->block.get(), *b = t->block.get();
    if (a->iterVars.size() != b->iterVars.size())
      return fail("block '" + b->name + "' has a different number of iter vars");
    if ((a->init == nullptr) != (b->init == nullptr))
      return fail("block '" + b->name + "' differs in having an init");
    for (size_t i = 0; i < a->iterVars.size(); ++i) {
      if (a->iterVars[i].type != b->iterVars[i].type ||
          !sameConst(a->iterVars[i].dom.extent, b->iterVars[i].dom.extent))
        return fail("iter var '" + b->iterVars[i].var->name + "' of block '" + b->name +
                    "' differs in kind or domain");
      if (!expr(d->iterValues[i], t->iterValues[i])) return false;
      vars_[a->iterVars[i].var.get()] = b->iterVars[i].var;
      inner_.insert(b->iterVars[i].var.get());
    }
    if (a->init && !stmt(a->init, b->init)) return false;
    return stmt(a->body, b->body);
  }
  // An access of desc buffer `db` at `di` against `tb` at `ti`: the offset of each trailing
  // dimension (and the index of each leading one) must not depend on the matched loops/iters.
  bool access(const Buffer& db, const std::vector<PrimExpr>& di, const Buffer& tb,
              const std::vector<PrimExpr>& ti) {
    if (db->dtype != tb->dtype || tb->ndim() < db->ndim())
      return fail("buffer '" + tb->name + "' does not fit description buffer '" + db->name + "'");
    size_t lead = tb->ndim() - db->ndim();
    std::vector<PrimExpr> offsets;
    for (size_t k = 0; k < ti.size(); ++k) {
      PrimExpr off = k < lead ? ti[k] : analyzer_.simplify(ti[k] - substitute(di[k - lead], vars_));
      for (const VarNode* v : varsOf(off))
        if (inner_.count(v))
          return fail("access '" + tb->name + "' index " + toString(ti[k]) +
                      " does not follow the description");
      offsets.push_back(off);
    }
    auto it = buffers.find(db.get());
    if (it == buffers.end()) {
      buffers[db.get()] = {tb, offsets};
      return true;
    }
    if (it->second.target != tb)
      return fail("description buffer '" + db->name + "' maps to two buffers");
    for (size_t k = 0; k < offsets.size(); ++k)
      if (!analyzer_.canProveEqual(offsets[k], it->second.offsets[k]))
        return fail("buffer '" + tb->name + "' is accessed at inconsistent offsets");
    return true;
  }

  VarMap vars_;
  std::unordered_set<const VarNode*> inner_;
  arith::Analyzer analyzer_;
};

// A copy of the implementation body with fresh loop vars, iter vars and block ids, and the
// parameter buffers (and their data/stride/offset vars) replaced.
class FreshCopier : public IRMutator {
 public:
  FreshCopier(std::unordered_map<const BufferNode*, Buffer> buffers, VarMap vars)
      : buffers_(std::move(buffers)), vars_(std::move(vars)) {}
  Buffer visitBuffer(const Buffer& b) override {
    auto it = buffers_.find(b.get());
    return it == buffers_.end() ? b : it->second;
  }

 protected:
  PrimExpr visitVar(const VarNode* op, const PrimExpr& self) override {
    auto it = vars_.find(op);
    return it == vars_.end() ? self : it->second;
  }
  Stmt visitFor(const ForNode* op, const Stmt& self) override {
    Var nv = makeVar(op->loopVar->name, op->loopVar->dtype);
    vars_[op->loopVar.get()] = nv;
    Stmt s = IRMutator::visitFor(op, self);
    auto n = std::make_shared<ForNode>(*s->as<ForNode>());
    n->loopVar = nv;
    return n;
  }
  Stmt visitBlock(const BlockNode* op, const Stmt& self) override {
    std::vector<Var> fresh;
    for (const IterVar& iv : op->iterVars) {
      fresh.push_back(makeVar(iv.var->name, iv.var->dtype));
      vars_[iv.var.get()] = fresh.back();
    }
    Stmt s = IRMutator::visitBlock(op, self);
    auto n = copyBlock(*s->as<BlockNode>());
    n->id = BlockNode::nextId();
    for (size_t i = 0; i < fresh.size(); ++i) n->iterVars[i].var = fresh[i];
    return n;
  }

 private:
  std::unordered_map<const BufferNode*, Buffer> buffers_;
  VarMap vars_;
};

// A fresh view buffer for implementation parameter `ib` named after the target buffer.
Buffer viewBuffer(const Buffer& ib, const Buffer& target, VarMap* vars) {
  auto n = std::make_shared<BufferNode>(*ib);
  n->name = target->name;
  n->data = makeVar(target->name, DataType::handle());
  n->scope = target->scope;
  (*vars)[ib->data.get()] = n->data;
  auto freshIfVar = [&](PrimExpr& e) {
    if (!e || !e->as<VarNode>()) return;
    Var v = makeVar(e->as<VarNode>()->name, e->dtype);
    (*vars)[e->as<VarNode>()] = v;
    e = v;
  };
  for (PrimExpr& s : n->strides) freshIfVar(s);
  freshIfVar(n->elemOffset);
  return n;
}

}  // namespace

PrimFunc tensorize(const PrimFunc& f, uint64_t blockId, const std::string& intrinName) {
  StmtPath path = requireBlockPath(f, blockId, kTensorize);
  const auto* block = path.stmt()->as<BlockNode>();
  const TensorIntrin* intrin = nullptr;
  try {
    intrin = &getTensorIntrin(intrinName);
  } catch (const DiagnosticError&) {
    throwScheduleError(kTensorize, "no tensor intrinsic named '" + intrinName + "' is registered");
  }
  if (block->init)
    throwScheduleError(kTensorize,
                       "block '" + block->name + "' has an init; decompose the reduction first");
  IntrinMatcher matcher;
  if (!matcher.stmt(intrinBody(intrin->desc), block->body))
    throwScheduleError(kTensorize, "block '" + block->name +
                                       "' does not match the description of intrinsic '" +
                                       intrinName + "': " + matcher.mismatch);
  std::vector<Buffer> descParams = intrin->desc->paramBuffers();
  std::vector<Buffer> implParams = intrin->impl->paramBuffers();
  std::unordered_map<const BufferNode*, Buffer> bufferMap;
  VarMap varMap;
  std::vector<MatchBufferRegion> views;
  for (size_t p = 0; p < descParams.size(); ++p) {
    auto it = matcher.buffers.find(descParams[p].get());
    if (it == matcher.buffers.end())
      throwScheduleError(kTensorize, "the description's buffer '" + descParams[p]->name +
                                         "' is not accessed by block '" + block->name + "'");
    const IntrinMatcher::Access& acc = it->second;
    size_t lead = acc.target->ndim() - descParams[p]->ndim();
    BufferRegion region{acc.target, {}};
    for (size_t k = 0; k < acc.offsets.size(); ++k) {
      PrimExpr ext = k < lead ? intImm(1, acc.offsets[k]->dtype) : descParams[p]->shape[k - lead];
      region.region.push_back({acc.offsets[k], ext});
    }
    Buffer view = viewBuffer(implParams[p], acc.target, &varMap);
    bufferMap[implParams[p].get()] = view;
    views.push_back({view, region});
  }
  FreshCopier copier(bufferMap, varMap);
  auto n = copyBlock(*block);
  n->body = copier.visitStmt(intrinBody(intrin->impl));
  n->matchBuffers.insert(n->matchBuffers.end(), views.begin(), views.end());
  return withBody(f, Schedule::Impl::replaceInBody(path, n));
}

// --- the Schedule method: resolve the RVs, run the primitive, commit, record ------------------

void Schedule::tensorize(const LoopRV& loop, const std::string& intrinName,
                         bool preserveUnitIters) {
  Impl& s = *impl_;
  // Blockize and tensorize as one step, so a mismatch leaves the loop as it was.
  PrimFuncWithBlock b =
      tir::blockize(s.func("tensorize"), loopVarOf(s, "tensorize", loop), preserveUnitIters);
  s.commit(tir::tensorize(b.func, b.blockId, intrinName));
  s.record({.kind = kTensorizeInst,
            .inputs = {loop},
            .attrs = {AttrValue::string(intrinName), traceBool(preserveUnitIters)}});
}

void Schedule::tensorize(const BlockRV& block, const std::string& intrinName,
                         bool preserveUnitIters) {
  Impl& s = *impl_;
  s.commit(tir::tensorize(s.func("tensorize"), blockIdOf(s, "tensorize", block), intrinName));
  s.record({.kind = kTensorizeInst,
            .inputs = {block},
            .attrs = {AttrValue::string(intrinName), traceBool(preserveUnitIters)}});
}

// --- how its instructions replay and print (listed in instruction_kinds.cc) -------------------

std::vector<InstructionKind> tensorizeKinds() {
  using namespace kinds;
  return {
      {.name = kTensorizeInst,
       .pythonName = "tensorize",
       .inputs = {1, 1},
       .attrs = {2, 2},
       .apply =
           [](Schedule& s, const Instruction& i) {
             if (isLoop(i, 0))
               s.tensorize(rvAt<LoopRV>(i, 0), strAttr(i, 0), boolAttr(i, 1));
             else
               s.tensorize(rvAt<BlockRV>(i, 0), strAttr(i, 0), boolAttr(i, 1));
             return std::vector<InstOutput>{};
           },
       .print =
           [](const Instruction& i, const Inputs& in) {
             return "block_or_loop=" + in[0] + ", tensor_intrin=" + pyAttr(i, 0) +
                    ", preserve_unit_iters=" + pyBool(i, 1);
           }},
  };
}

}  // namespace tessera::tir
