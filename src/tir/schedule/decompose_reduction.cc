// decompose_reduction(block, loop): moves a reduction block's init into its own block `<name>_init`
// under copies of the loops it needs, placed right before `loop`; the original block becomes
// `<name>_update` without init (specs/tir_relax.md §3.6).
#include <set>

#include "tir/functor.h"
#include "tir/schedule/block_analysis.h"
#include "tir/schedule/instruction_kind_util.h"
#include "tir/schedule/schedule_state.h"

namespace tessera::tir {

// The names of the instructions this file records and replays, written once.
namespace {
constexpr char kDecomposeReductionInst[] = "DecomposeReduction";
}  // namespace

namespace {

constexpr const char* kDecompose = "decompose-reduction";

void splitConjuncts(const PrimExpr& e, std::vector<PrimExpr>& out) {
  if (const auto* b = e->as<BinaryNode>(); b && b->op == BinaryOp::kAnd) {
    splitConjuncts(b->a, out);
    splitConjuncts(b->b, out);
    return;
  }
  if (!isOne(e)) out.push_back(e);
}

BufferRegion substituteRegion(const BufferRegion& r, const VarMap& map) {
  BufferRegion out{r.buffer, {}};
  for (const Range& range : r.region) {
    out.region.push_back({substitute(range.min, map), substitute(range.extent, map)});
  }
  return out;
}

bool sameRegion(const BufferRegion& a, const BufferRegion& b) {
  if (a.buffer != b.buffer || a.region.size() != b.region.size()) return false;
  for (size_t i = 0; i < a.region.size(); ++i) {
    if (!deepEqual(a.region[i].min, b.region[i].min) ||
        !deepEqual(a.region[i].extent, b.region[i].extent))
      return false;
  }
  return true;
}

}  // namespace

BlockRV Schedule::decomposeReduction(const BlockRV& blockRV, const LoopRV& loopRV) {
  Impl& s = *impl_;
  StmtPath blockPath = s.blockPath(kDecompose, blockRV);
  const auto* block = blockPath.stmt()->as<BlockNode>();
  const BlockRealizeNode* realize = Impl::realizeOf(blockPath);
  const ForNode* loop = s.loop(kDecompose, loopRV);
  if (!isReductionBlock(block)) {
    throwScheduleError(
        kDecompose,
        "block '" + block->name +
            "' is not a reduction block (it needs an init statement, only spatial/reduction iter "
            "vars, and reduction vars may not index its outputs)");
  }
  std::vector<For> loops = blockPath.loops();
  size_t at = loops.size();
  for (size_t i = 0; i < loops.size(); ++i) {
    if (loops[i].get() == loop) at = i;
  }
  if (at == loops.size()) {
    throwScheduleError(kDecompose, "loop '" + loop->loopVar->name +
                                       "' is not an ancestor of block '" + block->name +
                                       "' in its scope");
  }
  for (size_t i = 0; i < at; ++i) {
    if (bindsVarAs(realize, loops[i]->loopVar.get(), IterVarType::kCommReduce)) {
      throwScheduleError(kDecompose, "loop '" + loop->loopVar->name +
                                         "' is below the reduction loop '" +
                                         loops[i]->loopVar->name +
                                         "'; decompose at or above the outermost reduction loop");
    }
  }

  // The init block: fresh copies of the spatial iter vars with their bindings.
  auto init = std::make_shared<BlockNode>();
  init->name = block->name + "_init";
  VarMap ivMap;
  std::vector<PrimExpr> initBindings;
  std::set<const VarNode*> usedLoops;
  for (size_t i = 0; i < block->iterVars.size(); ++i) {
    const IterVar& iv = block->iterVars[i];
    if (iv.type != IterVarType::kDataPar) continue;
    IterVar copy = iv;
    copy.var = makeVar(iv.var->name, iv.var->dtype);
    ivMap[iv.var.get()] = copy.var;
    init->iterVars.push_back(copy);
    initBindings.push_back(realize->iterValues[i]);
    for (size_t l = at; l < loops.size(); ++l) {
      if (usesVar(realize->iterValues[i], loops[l]->loopVar.get()))
        usedLoops.insert(loops[l]->loopVar.get());
    }
  }
  for (const BufferRegion& w : block->writes) init->writes.push_back(substituteRegion(w, ivMap));
  init->body = substitute(block->init, ivMap);

  // Copies of the needed loops from `loop` down, renamed `<var>_init`.
  VarMap loopMap;
  std::vector<std::pair<const ForNode*, Var>> copies;
  for (size_t l = at; l < loops.size(); ++l) {
    const Var& v = loops[l]->loopVar;
    if (!usedLoops.count(v.get())) continue;
    Var nv = makeVar(v->name + "_init", v->dtype);
    loopMap[v.get()] = nv;
    copies.push_back({loops[l].get(), nv});
  }
  for (PrimExpr& b : initBindings) b = substitute(b, loopMap);
  // Keep the predicate's conjuncts that mention no dropped loop.
  std::vector<PrimExpr> conjuncts;
  splitConjuncts(realize->predicate, conjuncts);
  PrimExpr predicate = boolImm(true);
  for (const PrimExpr& c : conjuncts) {
    bool keep = true;
    for (size_t l = at; l < loops.size(); ++l) {
      const VarNode* v = loops[l]->loopVar.get();
      if (usesVar(c, v) && !usedLoops.count(v)) keep = false;
    }
    if (keep)
      predicate =
          isOne(predicate) ? substitute(c, loopMap) : logicalAnd(predicate, substitute(c, loopMap));
  }
  Stmt initNest = blockRealize(std::move(initBindings), predicate, init);
  for (size_t i = copies.size(); i-- > 0;) {
    auto f = std::make_shared<ForNode>(*copies[i].first);
    f->loopVar = copies[i].second;
    f->annotations = {};
    f->body = initNest;
    initNest = f;
  }

  // The update block: no init, renamed, its written regions read too.
  auto update = copyBlock(*block);
  update->init = nullptr;
  update->name = block->name + "_update";
  std::vector<BufferRegion> reads = block->writes;
  for (const BufferRegion& r : block->reads) {
    bool dup = false;
    for (const BufferRegion& w : block->writes) dup = dup || sameRegion(r, w);
    if (!dup) reads.push_back(r);
  }
  update->reads = std::move(reads);

  // Rebuild the subtree at `loop` with the updated block, then put the init nest before it.
  size_t loopIndex = 0;
  while (blockPath.chain[loopIndex].get() != loop) ++loopIndex;
  StmtPath sub{std::vector<Stmt>(blockPath.chain.begin() + loopIndex, blockPath.chain.end())};
  Stmt newLoop = Impl::replaceInBody(sub, update);
  StmtPath loopPath{
      std::vector<Stmt>(blockPath.chain.begin(), blockPath.chain.begin() + loopIndex + 1)};
  s.commit(Impl::replaceInBody(loopPath, seq({initNest, newLoop})));

  BlockRV out = s.newBlockRV(init->id);
  s.record({.kind = kDecomposeReductionInst, .inputs = {blockRV, loopRV}, .outputs = {out}});
  return out;
}

// --- how its instructions replay and print (listed in instruction_kinds.cc) -------------------

std::vector<InstructionKind> decomposeReductionKinds() {
  using namespace kinds;
  return {
      {.name = kDecomposeReductionInst,
       .pythonName = "decompose_reduction",
       .inputs = {2, 2},
       .attrs = {0, 0},
       .apply =
           [](Schedule& s, const Instruction& i) {
             return std::vector<InstOutput>{
                 s.decomposeReduction(rvAt<BlockRV>(i, 0), rvAt<LoopRV>(i, 1))};
           },
       .print = [](const Instruction&,
                   const Inputs& in) { return "block=" + in[0] + ", loop=" + in[1]; }},
  };
}

}  // namespace tessera::tir
