// blockize (specs/tir_relax.md §3.9): wrap the subtree under a loop in a new outer block whose
// iter vars are the outer parts of the inner block's bindings (an iterator subspace division);
// a reduction's init moves to the outer block as a loop nest over the inner spatial iters.
#include <unordered_set>

#include "tir/functor.h"
#include "tir/schedule/block_analysis.h"
#include "tir/schedule/instruction_kind_util.h"
#include "tir/schedule/primitive/block_primitives.h"
#include "tir/schedule/primitive/block_scope.h"
#include "tir/schedule/schedule_state.h"

namespace tessera::tir {

// The names of the instructions this file records and replays, written once.
namespace {
constexpr char kBlockizeInst[] = "Blockize";
}  // namespace

namespace {

constexpr const char* kBlockize = "blockize";

std::vector<For> loopsOnPath(const StmtPath& p) {
  std::vector<For> out;
  for (const Stmt& s : p.chain)
    if (s->kind == StmtKind::kFor) out.push_back(std::static_pointer_cast<const ForNode>(s));
  return out;
}

// One iter var of the blockized block: outer var (binding over outer loops) and, when the
// binding has an inner part, an inner var of extent `innerExtent`.
struct DividedIter {
  IterVar outer;
  PrimExpr outerBinding;
  std::optional<IterVar> inner;
  PrimExpr innerBinding;
  PrimExpr original;  ///< the old iter var in terms of the new ones
};

DividedIter divideBinding(const IterVar& iv, const PrimExpr& binding,
                          const std::vector<For>& innerLoops, arith::Analyzer& analyzer) {
  VarMap innerAtMin;
  std::unordered_set<const VarNode*> innerVars;
  for (const For& l : innerLoops) {
    innerAtMin[l->loopVar.get()] = l->min;
    innerVars.insert(l->loopVar.get());
  }
  PrimExpr outerPart = analyzer.simplify(substitute(binding, innerAtMin));
  PrimExpr innerPart = analyzer.simplify(binding - outerPart);
  auto fail = [&](const std::string& why) {
    throwScheduleError(kBlockize, "the binding of iter var '" + iv.var->name +
                                      "' cannot be divided into outer and inner parts: " + why);
  };
  for (const VarNode* v : varsOf(innerPart))
    if (!innerVars.count(v)) fail("its inner part depends on an outer loop");
  DividedIter d;
  DataType t = iv.var->dtype;
  if (isZero(innerPart)) {
    d.outer = {iv.dom, makeVar(iv.var->name + "_o", t), iv.type, ""};
    d.outerBinding = outerPart;
    d.original = d.outer.var;
    return d;
  }
  arith::IntervalSet set = analyzer.evalSet(innerPart, loopDomains(innerLoops));
  const int64_t* lo = set.min ? asConstInt(analyzer.simplify(set.min)) : nullptr;
  const int64_t* hi = set.max ? asConstInt(analyzer.simplify(set.max)) : nullptr;
  const int64_t* ext = asConstInt(iv.dom.extent);
  if (!lo || !hi || *lo != 0) fail("its inner part does not start at 0");
  int64_t innerExtent = *hi + 1;
  if (!ext || !isZero(iv.dom.min) || *ext % innerExtent != 0)
    fail("the domain is not a multiple of the inner extent " + std::to_string(innerExtent));
  if (!analyzer.canProve(eq(floormod(outerPart, intImm(innerExtent, t)), intImm(0, t))))
    fail("the outer part is not a multiple of the inner extent " + std::to_string(innerExtent));
  d.outer = {
      {intImm(0, t), intImm(*ext / innerExtent, t)}, makeVar(iv.var->name + "_o", t), iv.type, ""};
  d.outerBinding = analyzer.simplify(floordiv(outerPart, intImm(innerExtent, t)));
  d.inner =
      IterVar{{intImm(0, t), intImm(innerExtent, t)}, makeVar(iv.var->name + "_i", t), iv.type, ""};
  d.innerBinding = innerPart;
  // An inner part that covers the whole domain leaves the outer iter var a unit one, always 0:
  // the original is the inner var alone (so that expressions of it, e.g. `ky % 2`, keep their
  // form for tensorize to compare).
  d.original = *ext == innerExtent ? PrimExpr(d.inner->var)
                                   : PrimExpr(d.outer.var) * innerExtent + PrimExpr(d.inner->var);
  return d;
}

std::vector<BufferRegion> substituteRegions(const std::vector<BufferRegion>& regions,
                                            const VarMap& map) {
  std::vector<BufferRegion> out;
  for (const BufferRegion& r : regions) {
    BufferRegion n{r.buffer, {}};
    for (const Range& rg : r.region)
      n.region.push_back({substitute(rg.min, map), substitute(rg.extent, map)});
    out.push_back(n);
  }
  return out;
}

// The outer block's init: the inner init under copies of the inner loops its spatial inner
// iter vars use (loop vars and iter vars suffixed `_init`).
Stmt initNest(const BlockNode* inner, const BlockRealizeNode* innerRealize, const Stmt& init,
              const std::vector<For>& innerLoops) {
  auto block = std::make_shared<BlockNode>();
  block->name = inner->name + "_init";
  VarMap loopMap, iterMap;
  std::vector<PrimExpr> bindings;
  std::vector<For> used;
  for (const For& l : innerLoops) {
    bool uses = false;
    for (size_t i = 0; i < inner->iterVars.size(); ++i)
      uses = uses || (inner->iterVars[i].type == IterVarType::kDataPar &&
                      usesVar(innerRealize->iterValues[i], l->loopVar.get()));
    if (!uses) continue;
    loopMap[l->loopVar.get()] = makeVar(l->loopVar->name + "_init", l->loopVar->dtype);
    used.push_back(l);
  }
  for (size_t i = 0; i < inner->iterVars.size(); ++i) {
    const IterVar& iv = inner->iterVars[i];
    if (iv.type != IterVarType::kDataPar) continue;
    Var v = makeVar(iv.var->name + "_init", iv.var->dtype);
    block->iterVars.push_back({iv.dom, v, iv.type, ""});
    bindings.push_back(substitute(innerRealize->iterValues[i], loopMap));
    iterMap[iv.var.get()] = v;
  }
  block->body = substitute(init, iterMap);
  block->writes = substituteRegions(inner->writes, iterMap);
  Stmt s = blockRealize(bindings, boolImm(true), block);
  for (size_t i = used.size(); i-- > 0;) {
    auto l = std::make_shared<ForNode>(*used[i]);
    l->loopVar = std::static_pointer_cast<const VarNode>(loopMap[used[i]->loopVar.get()]);
    l->body = s;
    s = l;
  }
  return s;
}

}  // namespace

PrimFuncWithBlock blockize(const PrimFunc& f, const VarNode* loopVar, bool preserveUnitIters) {
  (void)preserveUnitIters;  // unit outer iters are always kept; unit inner iters never created
  StmtPath lpath = requireLoopPath(f, loopVar, kBlockize);
  std::vector<const BlockRealizeNode*> under = realizesUnder(lpath.stmt());
  if (under.size() != 1)
    throwScheduleError(kBlockize, "the loop '" + loopVar->name +
                                      "' must contain exactly one block, found " +
                                      std::to_string(under.size()));
  const BlockRealizeNode* realize = under[0];
  const BlockNode* block = realize->block.get();
  StmtPath inner = *findBlockPath(lpath.stmt(), block->id);
  std::vector<For> innerLoops = loopsOnPath(inner);
  arith::Analyzer analyzer;
  for (const For& l : lpath.loops()) analyzer.bind(l->loopVar, {l->min, l->extent});
  for (const For& l : innerLoops) analyzer.bind(l->loopVar, {l->min, l->extent});

  auto outer = std::make_shared<BlockNode>();
  outer->name = block->name + "_o";
  auto newInner = copyBlock(*block);
  newInner->iterVars.clear();
  std::vector<PrimExpr> outerBindings, innerBindings;
  VarMap toNew;
  for (size_t i = 0; i < block->iterVars.size(); ++i) {
    DividedIter d = divideBinding(block->iterVars[i], realize->iterValues[i], innerLoops, analyzer);
    outer->iterVars.push_back(d.outer);
    outerBindings.push_back(d.outerBinding);
    if (d.inner) {
      newInner->iterVars.push_back(*d.inner);
      innerBindings.push_back(d.innerBinding);
    }
    toNew[block->iterVars[i].var.get()] = d.original;
  }
  newInner->body = substitute(block->body, toNew);
  newInner->init = nullptr;
  newInner->writes = substituteRegions(block->writes, toNew);
  newInner->reads = recomputeReads(newInner.get());
  auto innerRealize =
      std::make_shared<BlockRealizeNode>(innerBindings, realize->predicate, Block(newInner));
  if (block->init) {
    auto withInit = copyBlock(*block);
    withInit->iterVars = newInner->iterVars;
    withInit->writes = newInner->writes;
    outer->init =
        initNest(withInit.get(), innerRealize.get(), substitute(block->init, toNew), innerLoops);
  }
  StmtPath realizePath = inner;
  realizePath.chain.pop_back();
  outer->body = Schedule::Impl::replaceInBody(realizePath, innerRealize);
  // The outer regions are the inner ones relaxed over the inner iter vars' domains.
  arith::DomainMap innerIters;
  for (const IterVar& iv : newInner->iterVars) innerIters[iv.var.get()] = iv.dom;
  auto relaxAll = [&](const std::vector<BufferRegion>& regions) {
    std::vector<BufferRegion> out;
    for (const BufferRegion& r : regions) {
      if (outer->init && &regions == &newInner->reads &&
          writesBuffer(newInner.get(), r.buffer.get()))
        continue;
      std::vector<Range> rg;
      for (const Range& x : r.region) {
        arith::IntervalSet lo = analyzer.evalSet(x.min, innerIters);
        arith::IntervalSet hi = analyzer.evalSet(x.min + x.extent - 1, innerIters);
        PrimExpr min = analyzer.simplify(lo.min);
        rg.push_back({min, analyzer.simplify(hi.max - min + 1)});
      }
      out.push_back({r.buffer, rg});
    }
    return out;
  };
  outer->reads = relaxAll(newInner->reads);
  outer->writes = relaxAll(newInner->writes);
  PrimFuncWithBlock result;
  result.blockId = outer->id;
  result.func = withBody(
      f, Schedule::Impl::replaceInBody(lpath, blockRealize(outerBindings, boolImm(true), outer)));
  return result;
}

// --- the Schedule method: resolve the RVs, run the primitive, commit, record ------------------

BlockRV Schedule::blockize(const LoopRV& loop, bool preserveUnitIters) {
  Impl& s = *impl_;
  PrimFuncWithBlock r =
      tir::blockize(s.func("blockize"), loopVarOf(s, "blockize", loop), preserveUnitIters);
  s.commit(r.func);
  BlockRV out = s.newBlockRV(r.blockId);
  s.record({.kind = kBlockizeInst,
            .inputs = {loop},
            .attrs = {traceBool(preserveUnitIters)},
            .outputs = {out}});
  return out;
}

// --- how its instructions replay and print (listed in instruction_kinds.cc) -------------------

std::vector<InstructionKind> blockizeKinds() {
  using namespace kinds;
  return {
      {.name = kBlockizeInst,
       .pythonName = "blockize",
       .inputs = {1, 1},
       .attrs = {1, 1},
       .apply =
           [](Schedule& s, const Instruction& i) {
             return std::vector<InstOutput>{s.blockize(rvAt<LoopRV>(i, 0), boolAttr(i, 0))};
           },
       .print =
           [](const Instruction& i, const Inputs& in) {
             return "target=" + in[0] + ", preserve_unit_iters=" + pyBool(i, 0);
           }},
  };
}

}  // namespace tessera::tir
