// fuse(loops): a chain of perfectly nested loops becomes one loop over the product of their
// extents; each old variable is recovered by floordiv/floormod of the fused one.
#include "tir/functor.h"
#include "tir/schedule/block_analysis.h"
#include "tir/schedule/instruction_kind_util.h"
#include "tir/schedule/loop_rewrite.h"
#include "tir/schedule/schedule_state.h"

namespace tessera::tir {

// The names of the instructions this file records and replays, written once.
namespace {
constexpr char kFuseInst[] = "Fuse";
}  // namespace

namespace {

constexpr const char* kFuse = "fuse";

void checkFusable(const ForNode* loop) {
  const std::string& name = loop->loopVar->name;
  if (!loop->annotations.empty()) throwScheduleError(kFuse, "loop '" + name + "' has annotations");
  if (loop->forKind == ForKind::kThreadBinding)
    throwScheduleError(kFuse, "loop '" + name + "' is bound to a thread axis");
  if (!isZero(loop->min)) throwScheduleError(kFuse, "loop '" + name + "' does not start at 0");
}

}  // namespace

LoopRV Schedule::fuse(const std::vector<LoopRV>& loopRVs, bool preserveUnitIters) {
  Impl& s = *impl_;
  if (loopRVs.empty()) throwScheduleError(kFuse, "at least one loop is required");
  std::vector<StmtPath> paths;
  std::vector<const ForNode*> loops;
  for (const LoopRV& rv : loopRVs) {
    paths.push_back(s.loopPath(kFuse, rv));
    loops.push_back(paths.back().stmt()->as<ForNode>());
    checkFusable(loops.back());
  }
  // Each loop must be the only child of the previous one.
  for (size_t i = 1; i < loops.size(); ++i) {
    if (loops[i - 1]->body.get() != loops[i]) {
      throwScheduleError(kFuse, "loop '" + loops[i]->loopVar->name +
                                    "' is not the only child of loop '" +
                                    loops[i - 1]->loopVar->name + "'");
    }
  }
  // No extent may depend on another fused variable.
  for (const ForNode* a : loops) {
    for (const ForNode* b : loops) {
      if (usesVar(a->extent, b->loopVar.get())) {
        throwScheduleError(kFuse, "the extent of loop '" + a->loopVar->name +
                                      "' depends on fused loop '" + b->loopVar->name + "'");
      }
    }
  }

  // Name and dtype: `i_j_fused`, the widest loop dtype.
  std::string name;
  DataType dtype = loops[0]->loopVar->dtype;
  for (const ForNode* l : loops) {
    name += l->loopVar->name + "_";
    if (l->loopVar->dtype.bits() > dtype.bits()) dtype = l->loopVar->dtype;
  }
  Var fused = makeVar(name + "fused", dtype);

  // Innermost variable = fused % e_n; each outer one divides by the inner extents.
  VarMap map;
  PrimExpr inner = intImm(1, dtype);
  PrimExpr total = intImm(1, dtype);
  for (size_t i = loops.size(); i-- > 0;) {
    PrimExpr extent = cast(dtype, loops[i]->extent);
    PrimExpr value = isOne(inner) ? PrimExpr(fused) : floordiv(fused, inner);
    if (i > 0) value = floormod(value, extent);
    if (!preserveUnitIters && isOne(extent)) value = intImm(0, dtype);
    map[loops[i]->loopVar.get()] = cast(loops[i]->loopVar->dtype, value);
    inner = arith::simplify(inner * extent);
    total = inner;
  }
  Stmt body = substitute(loops.back()->body, map);

  arith::Analyzer analyzer;
  std::vector<For> outer = paths[0].loops();
  bindLoopDomains(analyzer, outer, preserveUnitIters);
  analyzer.bind(fused, Range{intImm(0, dtype), total});
  body = simplifyBindings(body, analyzer, preserveUnitIters);
  s.commit(Impl::replaceInBody(paths[0],
                               forLoop(fused, intImm(0, dtype), total, ForKind::kSerial, body)));

  LoopRV out = s.newLoopRV(fused);
  Instruction inst{.kind = kFuseInst};
  for (const LoopRV& rv : loopRVs) inst.inputs.push_back(rv);
  inst.attrs = {traceBool(preserveUnitIters)};
  inst.outputs = {out};
  s.record(std::move(inst));
  return out;
}

// --- how its instructions replay and print (listed in instruction_kinds.cc) -------------------

std::vector<InstructionKind> fuseKinds() {
  using namespace kinds;
  return {
      {.name = kFuseInst,
       .pythonName = "fuse",
       .inputs = {1, Arity::kVariadic},
       .attrs = {1, 1},
       .apply =
           [](Schedule& s, const Instruction& i) {
             return std::vector<InstOutput>{s.fuse(loopsFrom(i), boolAttr(i, 0))};
           },
       .print =
           [](const Instruction& i, const Inputs& in) {
             return joined(in) + ", preserve_unit_iters=" + pyBool(i, 0);
           }},
  };
}

}  // namespace tessera::tir
