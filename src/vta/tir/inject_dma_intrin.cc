// InjectDMAIntrin (spec vta.md §6.2): a loop nest marked `pragma_dma_copy` that copies between a
// DRAM tensor and an SRAM stage becomes one VTALoadBuffer2D or VTAStoreBuffer2D call in its
// queue's `coproc_scope` (loads of INP/WGT: 1, of ACC: 2, stores: 3).
//
// The nest (unit loops dropped, as TE never emits them) must be a perfect nest around one store
// `dst[f] = v` with v = src[g], a cast of it, or `if_then_else(cond, src[g], 0)`. f and g are
// affine in the loop variables; the SRAM side must be compact. The condition gives the zero
// padding: per loop variable `lo <= v + c` and `v + c < hi` bounds (c may involve outer loops, so
// pads can be run-time expressions). The DRAM side is then reduced to VTA's 2-D pattern: entries of
// B scalars (B = the scope's scalars per entry), folded into (y, x, stride) when there is no
// padding.
#include "support/diagnostic.h"
#include "tir/arith/analyzer.h"
#include "tir/functor.h"
#include "tir/printer/printer.h"
#include "tir/transform/pass_util.h"
#include "vta/rt/isa.h"
#include "vta/tir/dma_pattern.h"
#include "vta/tir/passes.h"
#include "vta/tir/perfect_nest.h"

namespace tessera::vta {

namespace {

using namespace tir;

[[noreturn]] void fail(const std::string& message) {
  throwDiagnostic("vta_dma", message);
}

using Loop = NestLoop;

// `e` = base + Σ coef_i · v_i over the nest's variables, or an error.
AffineIndex affineIn(const PrimExpr& e, const std::vector<Loop>& loops, arith::Analyzer& analyzer,
                     const char* what) {
  std::optional<AffineIndex> a = affineIndex(e, loops, analyzer);
  if (!a)
    fail(std::string("the ") + what +
         " index of a dma_copy is not affine in its loops: " + toString(e));
  return *a;
}

// Per-loop valid range [lo, hi] from a conjunction of bounds on `v + c`; null bounds mean the
// whole extent.
struct Clip {
  std::vector<PrimExpr> lo, hi;
};

void addBound(const PrimExpr& cond, const std::vector<Loop>& loops, Clip& clip,
              arith::Analyzer& analyzer) {
  if (const auto* b = cond->as<BinaryNode>(); b && b->op == BinaryOp::kAnd) {
    addBound(b->a, loops, clip, analyzer);
    addBound(b->b, loops, clip, analyzer);
    return;
  }
  const auto* cmp = cond->as<BinaryNode>();
  if (!cmp) fail("cannot read the padding condition of a dma_copy: " + toString(cond));
  // Normalise to `x >= lo` or `x < hi` with x = lhs - rhs... written as e >= 0 / e < 0 forms.
  PrimExpr lhs = cmp->a, rhs = cmp->b;
  BinaryOp op = cmp->op;
  if (op == BinaryOp::kGT || op == BinaryOp::kGE) {
    std::swap(lhs, rhs);
    op = op == BinaryOp::kGT ? BinaryOp::kLT : BinaryOp::kLE;
  }
  if (op != BinaryOp::kLT && op != BinaryOp::kLE)
    fail("cannot read the padding condition of a dma_copy: " + toString(cond));
  // lhs < rhs (or <=): exactly one side holds one loop variable with coefficient 1.
  for (size_t i = 0; i < loops.size(); ++i) {
    const Var& v = loops[i].var;
    const bool inL = usesVar(lhs, v.get()), inR = usesVar(rhs, v.get());
    if (!inL && !inR) continue;
    const PrimExpr side = inL ? lhs : rhs, other = inL ? rhs : lhs;
    const PrimExpr rest = analyzer.simplify(side - v);
    if (usesVar(rest, v.get()))
      fail("a dma_copy padding bound must be on a loop variable plus an offset: " + toString(cond));
    // v + rest < other  =>  v < other - rest  (hi = other - rest - 1);  other < v + rest  =>  lo.
    const PrimExpr bound = analyzer.simplify(other - rest);
    const bool strict = op == BinaryOp::kLT;
    if (inL) {
      PrimExpr hi = strict ? analyzer.simplify(bound - 1) : bound;
      clip.hi[i] = clip.hi[i] ? analyzer.simplify(min(clip.hi[i], hi)) : hi;
    } else {
      PrimExpr lo = strict ? analyzer.simplify(bound + 1) : bound;
      clip.lo[i] = clip.lo[i] ? analyzer.simplify(max(clip.lo[i], lo)) : lo;
    }
    return;
  }
  fail("a dma_copy padding condition names no loop of the copy: " + toString(cond));
}

class DmaInjector : public IRMutator {
 public:
  DmaInjector(const Stmt& body, const Config& config) : config_(config) {
    preOrderVisit(body, [&](const Stmt& s) {
      if (const auto* a = s->as<AllocateNode>()) scope_[a->bufferVar.get()] = a->scope;
      return true;
    });
  }

 protected:
  Stmt visitFor(const ForNode* op, const Stmt& self) override {
    const auto* attr = op->body->as<AttrStmtNode>();
    if (attr && attr->key == "pragma_dma_copy" && attr->node.get() == op->loopVar.get()) {
      auto nest = std::make_shared<ForNode>(*op);
      nest->body = attr->body;
      return inject(nest);
    }
    return IRMutator::visitFor(op, self);
  }
  Stmt visitOtherStmt(const Stmt& self) override {
    if (const auto* attr = self->as<AttrStmtNode>(); attr && attr->key == "pragma_dma_copy")
      return inject(attr->body);
    return IRMutator::visitOtherStmt(self);
  }

 private:
  std::string scopeOf(const Var& data) const {
    auto it = scope_.find(data.get());
    return it == scope_.end() ? "global" : it->second;
  }
  int64_t entryScalars(const std::string& scope) const {
    if (scope == "local.inp_buffer") return int64_t{config_.batch()} * config_.blockIn();
    if (scope == "local.wgt_buffer") return int64_t{config_.blockOut()} * config_.blockIn();
    if (scope == "local.acc_buffer") return int64_t{config_.batch()} * config_.blockOut();
    return 0;
  }

  Stmt inject(const Stmt& nest);

  const Config& config_;
  std::unordered_map<const VarNode*, std::string> scope_;
  arith::Analyzer analyzer_;
};

Stmt DmaInjector::inject(const Stmt& nest) {
  // The perfect nest, unit loops substituted away, declarations and lets looked through.
  const PerfectNest nestInfo = perfectNest(nest, "vta_dma");
  const std::vector<Loop>& loops = nestInfo.loops;
  const VarMap& unit = nestInfo.unit;
  const Stmt& s = nestInfo.leaf;
  const auto* store = s->as<BufferStoreNode>();
  if (!store || store->indices.size() != 1)
    fail("cannot match copy pattern: a dma_copy nest must end in one flat store, found " +
         std::string(s ? "another statement" : "nothing"));
  PrimExpr value = substitute(store->value, unit);
  PrimExpr cond;
  if (const auto* c = value->as<CallNode>(); c && c->op == "tir.if_then_else") {
    cond = c->args[0];
    if (!analyzer_.canProveEqual(c->args[2], intImm(0, c->args[2]->dtype)))
      fail("a dma_copy pads with " + toString(c->args[2]) + "; VTA pads with zeros only");
    value = c->args[1];
  } else if (const auto* sel = value->as<SelectNode>()) {
    cond = sel->cond;
    if (!analyzer_.canProveEqual(sel->f, intImm(0, sel->f->dtype)))
      fail("a dma_copy pads with " + toString(sel->f) + "; VTA pads with zeros only");
    value = sel->t;
  }
  if (const auto* c = value->as<CastNode>()) value = c->value;
  const auto* load = value->as<BufferLoadNode>();
  if (!load || load->indices.size() != 1)
    fail("cannot match copy pattern: the copied value is " + toString(value));
  const AffineIndex dst =
      affineIn(substitute(store->indices[0], unit), loops, analyzer_, "destination");
  const AffineIndex src = affineIn(substitute(load->indices[0], unit), loops, analyzer_, "source");
  const std::string dstScope = scopeOf(store->buffer->data), srcScope = scopeOf(load->buffer->data);
  const bool isLoad = srcScope == "global";
  if (isLoad == (dstScope == "global"))
    fail("a dma_copy must move between DRAM and a VTA SRAM scope, found " + srcScope + " -> " +
         dstScope);
  const std::string& sram = isLoad ? dstScope : srcScope;
  const int64_t block = entryScalars(sram);
  if (!block || (!isLoad && sram != "local.acc_buffer"))
    fail("a dma_copy cannot " + std::string(isLoad ? "load into " : "store from ") + sram);
  // The SRAM side must be compact: row-major strides of the extents.
  const AffineIndex& onChip = isLoad ? dst : src;
  for (size_t i = loops.size(), stride = 1; i-- > 0; stride *= loops[i].extent)
    if (onChip.coef[i] != static_cast<int64_t>(stride))
      fail("the SRAM side of a dma_copy into " + sram + " is not compact");
  // Padding (loads only) from the condition's bounds.
  std::vector<PrimExpr> padBefore(loops.size(), intImm(0)), padAfter(loops.size(), intImm(0));
  bool padded = false;
  if (cond) {
    if (!isLoad) fail("a dma_copy store cannot pad");
    Clip clip{std::vector<PrimExpr>(loops.size()), std::vector<PrimExpr>(loops.size())};
    addBound(substitute(cond, unit), loops, clip, analyzer_);
    for (size_t i = 0; i < loops.size(); ++i) {
      if (clip.lo[i]) padBefore[i] = analyzer_.simplify(max(clip.lo[i], intImm(0)));
      if (clip.hi[i])
        padAfter[i] = analyzer_.simplify(max(intImm(loops[i].extent - 1) - clip.hi[i], intImm(0)));
      padded = padded || clip.lo[i] || clip.hi[i];
    }
  }
  // The DRAM side: shape minus padding, origin moved past the leading pads.
  std::vector<DmaDim> dram;
  PrimExpr dramOffset = isLoad ? src.base : dst.base;
  const AffineIndex& offChip = isLoad ? src : dst;
  for (size_t i = 0; i < loops.size(); ++i) {
    dram.push_back({analyzer_.simplify(intImm(loops[i].extent) - padBefore[i] - padAfter[i]),
                    offChip.coef[i]});
    dramOffset = dramOffset + padBefore[i] * intImm(offChip.coef[i]);
  }
  dramOffset = analyzer_.simplify(dramOffset);
  if (!analyzer_.canProve(eq(floormod(dramOffset, intImm(block)), intImm(0))))
    fail("the DRAM offset of a dma_copy is not a whole entry of " + std::to_string(block) +
         " scalars: " + toString(dramOffset));
  const Pattern2D p = pattern2D(dram, block, /*allowFold=*/!padded, analyzer_);
  const PrimExpr entryOffset = analyzer_.simplify(floordiv(dramOffset, intImm(block)));
  int64_t tile = 1;
  for (const Loop& l : loops) tile *= l.extent;
  const Var vta = makeVar("vta");
  const PrimExpr cmd = call(DataType::handle(), "vta.command_handle", {});
  const DataType i32 = DataType::int32();
  if (!isLoad) {
    const PrimExpr sramIndex = call(DataType::handle(), "tir.tvm_access_ptr",
                                    {load->buffer->data, src.base, intImm(tile), intImm(1)});
    return attrStmt(vta, "coproc_scope", intImm(3),
                    evaluate(call(i32, "tir.call_extern",
                                  {stringImm("VTAStoreBuffer2D"), cmd, sramIndex,
                                   intImm(static_cast<int>(MemType::kOut)), store->buffer->data,
                                   entryOffset, p.x, p.y, p.stride})));
  }
  // Pads: 3-4 dimensions pad rows and columns on dims 0 and 1, 5 dimensions on dims 1 and 2; any
  // other padded dimension is an error.
  size_t yDim = 0, xDim = 1;
  if (padded) {
    if (loops.size() < 3 || loops.size() > 5)
      fail("a padded dma_copy needs a nest of 3 to 5 loops, found " + std::to_string(loops.size()));
    if (loops.size() == 5) yDim = 1, xDim = 2;
    for (size_t i = 0; i < loops.size(); ++i)
      if (i != yDim && i != xDim &&
          !(analyzer_.canProveEqual(padBefore[i], intImm(0)) &&
            analyzer_.canProveEqual(padAfter[i], intImm(0))))
        fail("a dma_copy pads an inner dimension (" + std::to_string(i) + ")");
  }
  const PrimExpr zero = intImm(0);
  MemType type = sram == "local.inp_buffer"   ? MemType::kInp
                 : sram == "local.wgt_buffer" ? MemType::kWgt
                                              : MemType::kAcc;
  if (type == MemType::kAcc && load->buffer->dtype.bits() < store->buffer->dtype.bits())
    type = MemType::kAcc8Bit;
  const PrimExpr sramIndex = call(DataType::handle(), "tir.tvm_access_ptr",
                                  {store->buffer->data, dst.base, intImm(tile), intImm(2)});
  return attrStmt(
      vta, "coproc_scope", intImm(type == MemType::kAcc || type == MemType::kAcc8Bit ? 2 : 1),
      evaluate(call(i32, "tir.call_extern",
                    {stringImm("VTALoadBuffer2D"), cmd, load->buffer->data, entryOffset, p.x, p.y,
                     p.stride, padded ? padBefore[xDim] : zero, padded ? padBefore[yDim] : zero,
                     padded ? padAfter[xDim] : zero, padded ? padAfter[yDim] : zero, sramIndex,
                     intImm(static_cast<int>(type))})));
}

}  // namespace

PrimFunc injectDmaIntrin(const PrimFunc& func, const Config& config) {
  DmaInjector injector(func->body, config);
  return tir::transform::withBody(func, injector.visitStmt(func->body));
}

}  // namespace tessera::vta
