// rfactor (specs/tir_relax.md §3.6): factorise a reduction over one of its reduction loops into
// an rf-block computing partial results in `<buf>_rf` (the loop becomes a spatial iter var
// indexing a new axis) and a write-back block reducing that axis into the original buffer.
#include <algorithm>
#include <cmath>

#include "tir/functor.h"
#include "tir/schedule/block_analysis.h"
#include "tir/schedule/instruction_kind_util.h"
#include "tir/schedule/primitive/block_primitives.h"
#include "tir/schedule/primitive/block_scope.h"
#include "tir/schedule/schedule_state.h"

namespace tessera::tir {

// The names of the instructions this file records and replays, written once.
namespace {
constexpr char kRFactorInst[] = "RFactor";
}  // namespace

namespace {

constexpr const char* kRFactor = "rfactor";

// The reduction `C[idx] = op(C[idx], rhs)` with init `C[idx] = identity`.
struct Reduction {
  BinaryOp op;
  bool accumulatorFirst;  ///< op(C, rhs) rather than op(rhs, C)
  PrimExpr rhs;
  PrimExpr identity;
  const BufferStoreNode* store;
};

bool isIdentity(BinaryOp op, const PrimExpr& e) {
  const auto* f = e->as<FloatImmNode>();
  switch (op) {
    case BinaryOp::kAdd:
      return isZero(e) || (f && f->value == 0.0);
    case BinaryOp::kMul:
      return isOne(e) || (f && f->value == 1.0);
    case BinaryOp::kMax:
      return deepEqual(e, minValue(e->dtype)) || (f && std::isinf(f->value) && f->value < 0);
    case BinaryOp::kMin:
      return deepEqual(e, maxValue(e->dtype)) || (f && std::isinf(f->value) && f->value > 0);
    default:
      return false;
  }
}

Reduction matchReduction(const BlockNode* block) {
  const auto* store = block->body->as<BufferStoreNode>();
  const auto* init = block->init ? block->init->as<BufferStoreNode>() : nullptr;
  const auto* value = store ? store->value->as<BinaryNode>() : nullptr;
  auto isAccumulator = [&](const PrimExpr& e) {
    const auto* l = e->as<BufferLoadNode>();
    if (!l || l->buffer != store->buffer) return false;
    for (size_t i = 0; i < l->indices.size(); ++i)
      if (!deepEqual(l->indices[i], store->indices[i])) return false;
    return true;
  };
  if (value && init && init->buffer == store->buffer &&
      (value->op == BinaryOp::kAdd || value->op == BinaryOp::kMul || value->op == BinaryOp::kMax ||
       value->op == BinaryOp::kMin) &&
      isIdentity(value->op, init->value)) {
    if (isAccumulator(value->a)) return {value->op, true, value->b, init->value, store};
    if (isAccumulator(value->b)) return {value->op, false, value->a, init->value, store};
  }
  throwScheduleError(kRFactor, "the reduction block '" + block->name +
                                   "' does not match a known reducer (add, multiply, min, max "
                                   "with its identity as init)");
}

PrimExpr combine(const Reduction& r, PrimExpr acc, PrimExpr rhs) {
  return r.accumulatorFirst ? binary(r.op, std::move(acc), std::move(rhs))
                            : binary(r.op, std::move(rhs), std::move(acc));
}

std::vector<PrimExpr> insertAxis(std::vector<PrimExpr> v, int axis, PrimExpr e) {
  v.insert(v.begin() + axis, std::move(e));
  return v;
}

std::vector<Range> pointRegion(const std::vector<PrimExpr>& indices) {
  std::vector<Range> out;
  for (const PrimExpr& i : indices) out.push_back({i, intImm(1, i->dtype)});
  return out;
}

}  // namespace

PrimFuncWithBlock rfactor(const PrimFunc& f, const VarNode* loopVar, int factorAxis) {
  StmtPath lpath = requireLoopPath(f, loopVar, kRFactor);
  const auto* loop = lpath.stmt()->as<ForNode>();
  std::vector<const BlockRealizeNode*> under = realizesUnder(lpath.stmt());
  if (under.size() != 1)
    throwScheduleError(kRFactor, "the loop '" + loopVar->name +
                                     "' must have exactly one child block, found " +
                                     std::to_string(under.size()));
  const BlockRealizeNode* realize = under[0];
  const BlockNode* block = realize->block.get();
  if (!isReductionBlock(block))
    throwScheduleError(kRFactor, "the block '" + block->name + "' is not a reduction block");
  if (loop->forKind != ForKind::kSerial || !loop->threadTag.empty())
    throwScheduleError(kRFactor, "the loop '" + loopVar->name + "' must be a serial loop");
  if (!isZero(loop->min))
    throwScheduleError(kRFactor, "the loop '" + loopVar->name + "' must start at 0");
  if (bindsVarAs(realize, loopVar, IterVarType::kDataPar) ||
      !bindsVarAs(realize, loopVar, IterVarType::kCommReduce))
    throwScheduleError(
        kRFactor, "the loop '" + loopVar->name + "' must be bound to reduction iter vars only");
  if (block->writes.size() != 1)
    throwScheduleError(kRFactor, "the block '" + block->name + "' must write exactly one buffer");
  if (!isOne(realize->predicate))
    throwScheduleError(kRFactor, "the block '" + block->name + "' has a predicate");
  Reduction red = matchReduction(block);
  const Buffer& out = red.store->buffer;
  int ndim = out->ndim();
  if (factorAxis < -ndim - 1 || factorAxis > ndim)
    throwScheduleError(kRFactor, "factor_axis " + std::to_string(factorAxis) +
                                     " is out of range [" + std::to_string(-ndim - 1) + ", " +
                                     std::to_string(ndim) + "]");
  if (factorAxis < 0) factorAxis += ndim + 1;

  StmtPath bpath = *findBlockPath(f->body, block->id);
  // The write-back nest duplicates the perfectly nested loops directly above the block; loops
  // further out (with other children) are shared and must not take part in the reduction.
  std::vector<For> nest = bpath.loops();
  size_t perfectFrom = nest.size();
  while (perfectFrom > 0) {
    const Stmt& next = perfectFrom < nest.size() ? Stmt(nest[perfectFrom]) : bpath.parent();
    if (nest[perfectFrom - 1]->body != next) break;
    --perfectFrom;
  }
  for (size_t i = 0; i < perfectFrom; ++i)
    if (nest[i].get() == loop ||
        bindsVarAs(realize, nest[i]->loopVar.get(), IterVarType::kCommReduce))
      throwScheduleError(kRFactor, "the reduction loops above block '" + block->name +
                                       "' must be perfectly nested down to it");
  nest.erase(nest.begin(), nest.begin() + perfectFrom);
  // Classify the nest's loops: those in reduce bindings (other than `loop`) stay reductions.
  std::vector<For> reduceLoops;
  for (const For& l : nest) {
    bool inReduce = bindsVarAs(realize, l->loopVar.get(), IterVarType::kCommReduce);
    bool inSpatial = bindsVarAs(realize, l->loopVar.get(), IterVarType::kDataPar);
    if (inReduce && inSpatial)
      throwScheduleError(kRFactor, "the loop '" + l->loopVar->name +
                                       "' is bound to both spatial and reduction iter vars");
    if (inReduce && l.get() != loop) reduceLoops.push_back(l);
  }

  // --- the rf-block: [v<loop>] + spatial + one reduce iter var per remaining reduction loop ---
  PrimExpr n = loop->extent;
  std::vector<PrimExpr> rfShape = insertAxis(out->shape, factorAxis, n);
  Buffer rfBuf = makeBuffer(out->name + "_rf", rfShape, out->dtype);
  auto rf = std::make_shared<BlockNode>();
  rf->name = block->name + "_rf";
  std::vector<PrimExpr> rfBindings;
  Var vrf = makeVar("v" + loopVar->name, loopVar->dtype);
  rf->iterVars.push_back({{intImm(0, n->dtype), n}, vrf, IterVarType::kDataPar, ""});
  rfBindings.push_back(lpath.stmt()->as<ForNode>()->loopVar);
  VarMap loopToIter{{loopVar, vrf}};
  VarMap rfMap;
  for (size_t i = 0; i < block->iterVars.size(); ++i) {
    const IterVar& iv = block->iterVars[i];
    if (iv.type != IterVarType::kDataPar) continue;
    Var v = makeVar(iv.var->name, iv.var->dtype);
    rf->iterVars.push_back({iv.dom, v, IterVarType::kDataPar, ""});
    rfBindings.push_back(realize->iterValues[i]);
    rfMap[iv.var.get()] = v;
  }
  for (const For& l : reduceLoops) {
    Var v = makeVar("v" + l->loopVar->name, l->loopVar->dtype);
    rf->iterVars.push_back({{l->min, l->extent}, v, IterVarType::kCommReduce, ""});
    rfBindings.push_back(l->loopVar);
    loopToIter[l->loopVar.get()] = v;
  }
  for (size_t i = 0; i < block->iterVars.size(); ++i)
    if (block->iterVars[i].type == IterVarType::kCommReduce)
      rfMap[block->iterVars[i].var.get()] = substitute(realize->iterValues[i], loopToIter);
  std::vector<PrimExpr> outIdx;
  for (const PrimExpr& i : red.store->indices) outIdx.push_back(substitute(i, rfMap));
  std::vector<PrimExpr> rfIdx = insertAxis(outIdx, factorAxis, vrf);
  rf->init = bufferStore(rfBuf, red.identity, rfIdx);
  rf->body =
      bufferStore(rfBuf, combine(red, bufferLoad(rfBuf, rfIdx), substitute(red.rhs, rfMap)), rfIdx);
  rf->writes = {{rfBuf, pointRegion(rfIdx)}};
  rf->reads = recomputeReads(rf.get());
  PrimFuncWithBlock result;
  result.blockId = rf->id;

  // --- the write-back block keeps the original identity: [v<loop> (R)] + spatial ---
  auto wb = copyBlock(*block);
  wb->iterVars.clear();
  std::vector<PrimExpr> wbBindings;
  VarMap newLoops;
  std::vector<Var> wbLoopVars;
  std::vector<PrimExpr> wbExtents;
  for (const For& l : nest) {
    if (std::count(reduceLoops.begin(), reduceLoops.end(), l)) continue;
    Var nv = makeVar(l->loopVar->name, l->loopVar->dtype);
    newLoops[l->loopVar.get()] = nv;
    wbLoopVars.push_back(nv);
    wbExtents.push_back(l->extent);
  }
  Var vwb = makeVar("v" + loopVar->name, loopVar->dtype);
  wb->iterVars.push_back({{intImm(0, n->dtype), n}, vwb, IterVarType::kCommReduce, ""});
  wbBindings.push_back(newLoops[loopVar]);
  VarMap wbMap;
  for (size_t i = 0; i < block->iterVars.size(); ++i) {
    const IterVar& iv = block->iterVars[i];
    if (iv.type != IterVarType::kDataPar) continue;
    Var v = makeVar(iv.var->name, iv.var->dtype);
    wb->iterVars.push_back({iv.dom, v, IterVarType::kDataPar, ""});
    wbBindings.push_back(substitute(realize->iterValues[i], newLoops));
    wbMap[iv.var.get()] = v;
  }
  std::vector<PrimExpr> wbIdx;
  for (const PrimExpr& i : red.store->indices) wbIdx.push_back(substitute(i, wbMap));
  std::vector<PrimExpr> wbRfIdx = insertAxis(wbIdx, factorAxis, vwb);
  wb->init = bufferStore(out, red.identity, wbIdx);
  wb->body =
      bufferStore(out, combine(red, bufferLoad(out, wbIdx), bufferLoad(rfBuf, wbRfIdx)), wbIdx);
  wb->reads = {{rfBuf, pointRegion(wbRfIdx)}};
  wb->writes = {{out, pointRegion(wbIdx)}};
  // Loops keep their kinds and annotations except the ones dropped with their reductions.
  Stmt wbNest = blockRealize(wbBindings, boolImm(true), wb);
  for (size_t i = nest.size(), k = wbLoopVars.size(); i-- > 0;) {
    if (std::count(reduceLoops.begin(), reduceLoops.end(), nest[i])) continue;
    auto l = std::make_shared<ForNode>(*nest[i]);
    l->loopVar = wbLoopVars[--k];
    l->body = wbNest;
    wbNest = l;
  }

  StmtPath realizePath;
  realizePath.chain.assign(bpath.chain.begin(), bpath.chain.end() - 1);
  Stmt body =
      Schedule::Impl::replaceInBody(realizePath, blockRealize(rfBindings, boolImm(true), rf));
  StmtPath top = removalPath(*findBlockPath(body, rf->id));
  body = Schedule::Impl::replaceInBody(top, seq({top.stmt(), wbNest}));
  StmtPath scope = *findBlockPath(body, bpath.scopeBlock()->id);
  auto scopeBlock = copyBlock(*scope.stmt()->as<BlockNode>());
  scopeBlock->allocBuffers.push_back(rfBuf);
  result.func = withBody(f, Schedule::Impl::replaceInBody(scope, scopeBlock));
  return result;
}

// --- the Schedule method: resolve the RVs, run the primitive, commit, record ------------------

BlockRV Schedule::rfactor(const LoopRV& loop, int factorAxis) {
  Impl& s = *impl_;
  PrimFuncWithBlock r = tir::rfactor(s.func("rfactor"), loopVarOf(s, "rfactor", loop), factorAxis);
  s.commit(r.func);
  BlockRV out = s.newBlockRV(r.blockId);
  s.record({.kind = kRFactorInst,
            .inputs = {loop},
            .attrs = {AttrValue::integer(factorAxis)},
            .outputs = {out}});
  return out;
}

// --- how its instructions replay and print (listed in instruction_kinds.cc) -------------------

std::vector<InstructionKind> rfactorKinds() {
  using namespace kinds;
  return {
      {.name = kRFactorInst,
       .pythonName = "rfactor",
       .inputs = {1, 1},
       .attrs = {1, 1},
       .apply =
           [](Schedule& s, const Instruction& i) {
             return std::vector<InstOutput>{
                 s.rfactor(rvAt<LoopRV>(i, 0), static_cast<int>(intAttr(i, 0)))};
           },
       .print = [](const Instruction& i,
                   const Inputs& in) { return "loop=" + in[0] + ", factor_axis=" + pyAttr(i, 0); }},
  };
}

}  // namespace tessera::tir
