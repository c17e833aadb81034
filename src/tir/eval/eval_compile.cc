// Compiles a PrimFunc into the evaluator's slot form: every variable and buffer node gets a dense
// index, intrinsic names are resolved, and unsupported constructs are rejected up front.
#include <unordered_map>

#include "support/diagnostic.h"
#include "tir/eval/eval_program.h"

namespace tessera::tir::evalimpl {

namespace {

class Compiler {
 public:
  Program run(const PrimFuncNode& func) {
    for (const Var& p : func.params) {
      Buffer b = func.bufferOf(p);
      if (!b)
        throwDiagnostic("tir_eval", "function " + func.name + ": scalar parameter '" + p->name +
                                        "' is not supported by the evaluator");
      prog_.paramBuffers.push_back(bufferSlot(b));
    }
    prog_.root = func.body ? stmt(func.body) : addStmt(StmtCode{SOp::kNop});
    return std::move(prog_);
  }

 private:
  int varSlot(const VarNode* v) {
    auto [it, fresh] = varSlots_.emplace(v, static_cast<int>(prog_.slotNames.size()));
    if (fresh) {
      prog_.slotNames.push_back(v->name);
      prog_.slotTypes.push_back(v->dtype);
    }
    return it->second;
  }

  int bufferSlot(const Buffer& b) {
    auto it = bufferSlots_.find(b.get());
    if (it != bufferSlots_.end()) return it->second;
    int slot = static_cast<int>(prog_.buffers.size());
    bufferSlots_.emplace(b.get(), slot);
    prog_.buffers.emplace_back();
    BufferInfo info;
    info.buffer = b;
    info.dataSlot = varSlot(b->data.get());
    for (const PrimExpr& d : b->shape) info.shape.push_back(expr(d));
    for (const PrimExpr& s : b->strides) info.strides.push_back(expr(s));
    if (b->elemOffset) info.elemOffset = expr(b->elemOffset);
    prog_.buffers[slot] = std::move(info);
    return slot;
  }

  int addExpr(ExprCode code) {
    if (!code.kids.empty()) code.argType = prog_.exprs[code.kids[0]].dtype;
    prog_.exprs.push_back(std::move(code));
    return static_cast<int>(prog_.exprs.size()) - 1;
  }
  int addStmt(StmtCode code) {
    prog_.stmts.push_back(std::move(code));
    return static_cast<int>(prog_.stmts.size()) - 1;
  }

  ExprCode node(Op op, const PrimExpr& e) {
    ExprCode c{};
    c.op = op;
    c.dtype = e->dtype.element();
    c.lanes = e->dtype.lanes();
    return c;
  }

  int expr(const PrimExpr& e) {
    switch (e->kind) {
      case ExprKind::kIntImm: {
        ExprCode c = node(Op::kConst, e);
        c.imm.i = e->as<IntImmNode>()->value;
        return addExpr(std::move(c));
      }
      case ExprKind::kFloatImm: {
        ExprCode c = node(Op::kConst, e);
        double v = e->as<FloatImmNode>()->value;
        c.imm.f = e->dtype.bits() == 32 ? static_cast<double>(static_cast<float>(v)) : v;
        return addExpr(std::move(c));
      }
      case ExprKind::kStringImm:
        throwDiagnostic("tir_eval", "string constant \"" + e->as<StringImmNode>()->value +
                                        "\" used as a value");
      case ExprKind::kVar: {
        ExprCode c = node(Op::kVar, e);
        c.slot = varSlot(e->as<VarNode>());
        return addExpr(std::move(c));
      }
      case ExprKind::kCast: {
        ExprCode c = node(Op::kCast, e);
        c.kids = {expr(e->as<CastNode>()->value)};
        return addExpr(std::move(c));
      }
      case ExprKind::kBinary: {
        const auto* op = e->as<BinaryNode>();
        ExprCode c = node(Op::kBinary, e);
        c.binop = op->op;
        c.kids = {expr(op->a), expr(op->b)};
        return addExpr(std::move(c));
      }
      case ExprKind::kNot: {
        ExprCode c = node(Op::kNot, e);
        c.kids = {expr(e->as<NotNode>()->a)};
        return addExpr(std::move(c));
      }
      case ExprKind::kSelect: {
        const auto* op = e->as<SelectNode>();
        ExprCode c = node(Op::kSelect, e);
        c.kids = {expr(op->cond), expr(op->t), expr(op->f)};
        return addExpr(std::move(c));
      }
      case ExprKind::kBufferLoad: {
        const auto* op = e->as<BufferLoadNode>();
        ExprCode c = node(Op::kLoad, e);
        c.slot = bufferSlot(op->buffer);
        for (const PrimExpr& i : op->indices) c.kids.push_back(expr(i));
        return addExpr(std::move(c));
      }
      case ExprKind::kRamp: {
        const auto* op = e->as<RampNode>();
        ExprCode c = node(Op::kRamp, e);
        c.kids = {expr(op->base), expr(op->stride)};
        return addExpr(std::move(c));
      }
      case ExprKind::kBroadcast: {
        ExprCode c = node(Op::kBroadcast, e);
        c.kids = {expr(e->as<BroadcastNode>()->value)};
        return addExpr(std::move(c));
      }
      case ExprKind::kLet: {
        const auto* op = e->as<LetNode>();
        ExprCode c = node(Op::kLet, e);
        c.slot = varSlot(op->var.get());
        c.kids = {expr(op->value), expr(op->body)};
        return addExpr(std::move(c));
      }
      case ExprKind::kCall: {
        const auto* op = e->as<CallNode>();
        ExprCode c = node(Op::kCall, e);
        if (!lookupIntrinsic(op->op, &c.intrinsic))
          throwDiagnostic("tir_eval", "call to '" + op->op + "' cannot be evaluated");
        for (const PrimExpr& a : op->args) c.kids.push_back(expr(a));
        return addExpr(std::move(c));
      }
      case ExprKind::kReduce:
        throwDiagnostic("tir_eval",
                        "a TE reduction cannot be evaluated; lower it with create_prim_func first");
    }
    throwDiagnostic("tir_eval", "unknown expression kind");
  }

  int stmt(const Stmt& s) {
    switch (s->kind) {
      case StmtKind::kBufferStore: {
        const auto* op = s->as<BufferStoreNode>();
        StmtCode c{SOp::kStore};
        c.buffer = bufferSlot(op->buffer);
        // A masked store writes (and reads) only the lanes of its mask.
        const MaskedStoreParts masked = maskedStoreParts(*op);
        if (masked.mask) c.predicate = expr(masked.mask);
        c.exprs.push_back(expr(masked.mask ? masked.value : op->value));
        for (const PrimExpr& i : op->indices) c.exprs.push_back(expr(i));
        return addStmt(std::move(c));
      }
      case StmtKind::kEvaluate: {
        StmtCode c{SOp::kEvaluate};
        c.exprs = {expr(s->as<EvaluateNode>()->value)};
        return addStmt(std::move(c));
      }
      case StmtKind::kLetStmt: {
        const auto* op = s->as<LetStmtNode>();
        StmtCode c{SOp::kLet};
        c.slot = varSlot(op->var.get());
        c.exprs = {expr(op->value)};
        c.kids = {stmt(op->body)};
        return addStmt(std::move(c));
      }
      case StmtKind::kAttrStmt:
        // Attributes are hints (pragmas, thread extents, scopes); they do not change values.
        return stmt(s->as<AttrStmtNode>()->body);
      case StmtKind::kAssertStmt: {
        const auto* op = s->as<AssertStmtNode>();
        StmtCode c{SOp::kAssert};
        c.exprs = {expr(op->condition)};
        c.text = op->message;
        if (op->body) c.kids = {stmt(op->body)};
        return addStmt(std::move(c));
      }
      case StmtKind::kIfThenElse: {
        const auto* op = s->as<IfThenElseNode>();
        StmtCode c{SOp::kIf};
        c.exprs = {expr(op->condition)};
        c.kids = {stmt(op->thenCase)};
        if (op->elseCase) c.kids.push_back(stmt(op->elseCase));
        return addStmt(std::move(c));
      }
      case StmtKind::kFor: {
        const auto* op = s->as<ForNode>();
        StmtCode c{SOp::kFor};
        c.slot = varSlot(op->loopVar.get());
        c.exprs = {expr(op->min), expr(op->extent)};
        c.kids = {stmt(op->body)};
        return addStmt(std::move(c));
      }
      case StmtKind::kSeqStmt: {
        StmtCode c{SOp::kSeq};
        for (const Stmt& x : s->as<SeqStmtNode>()->seq) c.kids.push_back(stmt(x));
        return addStmt(std::move(c));
      }
      case StmtKind::kBlock:
        return block(s->as<BlockNode>(), nullptr);
      case StmtKind::kBlockRealize: {
        const auto* op = s->as<BlockRealizeNode>();
        return block(op->block.get(), op);
      }
      case StmtKind::kAllocate: {
        const auto* op = s->as<AllocateNode>();
        StmtCode c{SOp::kAllocate};
        c.slot = varSlot(op->bufferVar.get());
        c.dtype = op->dtype;
        for (const PrimExpr& e : op->extents) c.exprs.push_back(expr(e));
        c.kids = {stmt(op->body)};
        return addStmt(std::move(c));
      }
      case StmtKind::kDeclBuffer: {
        const auto* op = s->as<DeclBufferNode>();
        StmtCode c{SOp::kDeclBuffer};
        c.buffer = bufferSlot(op->buffer);
        c.kids = {stmt(op->body)};
        return addStmt(std::move(c));
      }
    }
    throwDiagnostic("tir_eval", "unknown statement kind");
  }

  int block(const BlockNode* b, const BlockRealizeNode* realize) {
    StmtCode c{SOp::kBlock};
    c.text = b->name;
    if (realize && realize->iterValues.size() != b->iterVars.size())
      throwDiagnostic("tir_eval",
                      "block " + b->name + ": " + std::to_string(realize->iterValues.size()) +
                          " bindings for " + std::to_string(b->iterVars.size()) + " iter vars");
    if (!realize && !b->iterVars.empty())
      throwDiagnostic("tir_eval", "block " + b->name + " has iter vars but no realize");
    for (size_t i = 0; i < b->iterVars.size(); ++i) {
      const IterVar& iv = b->iterVars[i];
      IterCode code{varSlot(iv.var.get()), expr(realize->iterValues[i]), expr(iv.dom.min),
                    expr(iv.dom.extent), iv.type == IterVarType::kCommReduce};
      const int64_t* lo = asConstInt(iv.dom.min);
      const int64_t* extent = asConstInt(iv.dom.extent);
      if (lo && extent) {
        code.constDomain = true;
        code.lo = *lo;
        code.hi = *lo + *extent;
      }
      c.iters.push_back(code);
    }
    if (realize && realize->predicate && !isConstInt(realize->predicate, 1))
      c.predicate = expr(realize->predicate);
    for (const Buffer& a : b->allocBuffers) c.allocBuffers.push_back(bufferSlot(a));
    for (const MatchBufferRegion& m : b->matchBuffers) {
      MatchCode mc;
      mc.viewBuffer = bufferSlot(m.buffer);
      mc.sourceBuffer = bufferSlot(m.source.buffer);
      for (const Range& r : m.source.region) mc.regionMins.push_back(expr(r.min));
      for (const PrimExpr& st : m.buffer->strides)
        mc.strideSlots.push_back(st->as<VarNode>() ? varSlot(st->as<VarNode>()) : -1);
      if (m.buffer->elemOffset && m.buffer->elemOffset->as<VarNode>())
        mc.elemOffsetSlot = varSlot(m.buffer->elemOffset->as<VarNode>());
      c.matches.push_back(std::move(mc));
    }
    if (b->init) c.init = stmt(b->init);
    c.kids = {stmt(b->body)};
    return addStmt(std::move(c));
  }

  Program prog_;
  std::unordered_map<const VarNode*, int> varSlots_;
  std::unordered_map<const BufferNode*, int> bufferSlots_;
};

}  // namespace

Program compile(const PrimFuncNode& func) {
  return Compiler().run(func);
}

}  // namespace tessera::tir::evalimpl
