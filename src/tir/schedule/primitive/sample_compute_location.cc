// The candidate locations of sample_compute_location (specs/tir_relax.md §3.10): inline (-2) when
// compute_inline would succeed, root (-1), then the first consumer's loops from the outermost down
// to the loop enclosing every consumer, skipping unit loops and stopping where computing the
// block there would interleave it with a reduction.
#include <random>

#include "support/diagnostic.h"
#include "tir/schedule/block_analysis.h"
#include "tir/schedule/instruction_kind_util.h"
#include "tir/schedule/primitive/block_primitives.h"
#include "tir/schedule/primitive/block_scope.h"
#include "tir/schedule/schedule_state.h"

namespace tessera::tir {

// The names of the instructions this file records and replays, written once.
namespace {
constexpr char kSampleComputeLocationInst[] = "SampleComputeLocation";
}  // namespace

namespace {

bool canInline(const PrimFunc& f, uint64_t blockId) {
  try {
    computeInline(f, blockId);
    return true;
  } catch (const DiagnosticError&) {
    return false;
  }
}

// Whether `loop` binds only spatial iter vars of `realize` (or none).
bool isSpatialFor(const BlockRealizeNode* realize, const VarNode* loop) {
  return !bindsVarAs(realize, loop, IterVarType::kCommReduce) &&
         !bindsVarAs(realize, loop, IterVarType::kOrdered) &&
         !bindsVarAs(realize, loop, IterVarType::kOpaque);
}

}  // namespace

ComputeLocations collectComputeLocations(const PrimFunc& f, uint64_t blockId) {
  StmtPath path = requireBlockPath(f, blockId, "sample-compute-location");
  ComputeLocations out;
  if (canInline(f, blockId)) out.candidates.push_back(-2);
  out.candidates.push_back(-1);
  if (path.scopeIndex() < 0) return out;
  const Stmt& scope = path.chain[path.scopeIndex()];
  std::vector<const BlockRealizeNode*> consumers = consumersIn(scope, path.stmt()->as<BlockNode>());
  if (consumers.empty()) return out;
  // The deepest loop enclosing every consumer bounds the candidates.
  std::vector<std::vector<Stmt>> chains;
  for (const BlockRealizeNode* c : consumers)
    chains.push_back(findBlockPath(scope, c->block->id)->chain);
  size_t common = chains[0].size() - 2;  // exclude the realize and the block
  for (const auto& chain : chains) {
    size_t k = 0;
    while (k < common && k < chain.size() - 2 && chain[k] == chains[0][k]) ++k;
    common = k;
  }
  std::vector<For> loops;
  int lcaLoop = -1;
  for (size_t i = 1; i + 2 < chains[0].size(); ++i) {
    if (chains[0][i]->kind != StmtKind::kFor) continue;
    loops.push_back(std::static_pointer_cast<const ForNode>(chains[0][i]));
    if (i < common) lcaLoop = static_cast<int>(loops.size()) - 1;
  }
  for (const For& l : loops) out.loops.push_back(l->loopVar);
  const BlockRealizeNode* first = consumers[0];
  bool sawReduce = false;
  int lastSpatial = -1;
  std::vector<int64_t> picked;
  for (int i = 0; i <= lcaLoop; ++i) {
    if (isOne(loops[i]->extent)) continue;
    bool spatial = isSpatialFor(first, loops[i]->loopVar.get());
    if (spatial && sawReduce) break;
    if (spatial) lastSpatial = i;
    sawReduce = sawReduce || !spatial;
    picked.push_back(i);
  }
  for (int64_t i : picked)
    if (i <= lastSpatial) out.candidates.push_back(i);
  return out;
}

// --- the Schedule method: resolve the RVs, run the primitive, commit, record ------------------

LoopRV Schedule::sampleComputeLocation(const BlockRV& block, std::optional<int64_t> decision) {
  Impl& s = *impl_;
  const char* p = "sample-compute-location";
  ComputeLocations locs = collectComputeLocations(s.func(p), blockIdOf(s, p, block));
  const std::vector<int64_t>& c = locs.candidates;
  int64_t chosen = -1;
  if (decision) {
    // Replay: keep a decision that is still a candidate, else the largest one below it.
    for (int64_t x : c)
      if (x <= *decision) chosen = x;
  } else {
    chosen = c[std::uniform_int_distribution<size_t>(0, c.size() - 1)(s.rng)];
  }
  LoopRV out = chosen == -2   ? s.newLoopRV(Impl::inlineMark())
               : chosen == -1 ? s.newLoopRV(Impl::rootMark())
                              : s.newLoopRV(locs.loops[chosen]);
  s.record({.kind = kSampleComputeLocationInst,
            .inputs = {block},
            .outputs = {out},
            .decision = AttrValue::integer(chosen, DataType::int64())});
  return out;
}

// --- how its instructions replay and print (listed in instruction_kinds.cc) -------------------

std::vector<InstructionKind> sampleComputeLocationKinds() {
  using namespace kinds;
  return {
      {.name = kSampleComputeLocationInst,
       .pythonName = "sample_compute_location",
       .pure = true,
       .inputs = {1, 1},
       .attrs = {0, 0},
       .apply =
           [](Schedule& s, const Instruction& i) {
             std::optional<int64_t> decision;
             if (i.decision) decision = i.decision->asInt();
             return std::vector<InstOutput>{s.sampleComputeLocation(rvAt<BlockRV>(i, 0), decision)};
           },
       .print = [](const Instruction&, const Inputs& in) { return "block=" + in[0]; }},
  };
}

}  // namespace tessera::tir
