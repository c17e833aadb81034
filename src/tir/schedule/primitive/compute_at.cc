// compute_at and reverse_compute_at (specs/tir_relax.md §3.4): move a block under a loop of its
// consumer (resp. producer) and regenerate loops `ax0, ax1, ...` covering exactly the region
// that the blocks under that loop need (resp. provide) in one iteration of it.
#include <optional>

#include "tir/functor.h"
#include "tir/schedule/block_analysis.h"
#include "tir/schedule/instruction_kind_util.h"
#include "tir/schedule/primitive/block_primitives.h"
#include "tir/schedule/primitive/block_scope.h"
#include "tir/schedule/schedule_state.h"

namespace tessera::tir {

// The names of the instructions this file records and replays, written once.
namespace {
constexpr char kComputeAtInst[] = "ComputeAt";
constexpr char kReverseComputeAtInst[] = "ReverseComputeAt";
}  // namespace

namespace {

struct MoveSpec {
  const char* primitive;
  bool reverse;  ///< reverse_compute_at: the block follows its producers
};

std::string blockNames(const std::vector<const BlockRealizeNode*>& realizes) {
  std::string out;
  for (const BlockRealizeNode* r : realizes) out += (out.empty() ? "" : ", ") + r->block->name;
  return out;
}

// The region of each buffer that the `partners` under `loop` access (reads for compute_at,
// writes for reverse_compute_at), relaxed over the loops inside `loop`.
std::vector<BufferRegion> neededRegions(const StmtPath& loopPath, const BlockNode* block,
                                        const std::vector<const BlockRealizeNode*>& partners,
                                        bool reverse, arith::Analyzer& analyzer) {
  const std::vector<BufferRegion>& ours = reverse ? block->reads : block->writes;
  std::vector<BufferRegion> out;
  for (const BlockRealizeNode* r : partners) {
    StmtPath inner = *findBlockPath(loopPath.stmt(), r->block->id);
    std::vector<For> loops;
    for (size_t i = 1; i < inner.chain.size(); ++i)
      if (inner.chain[i]->kind == StmtKind::kFor)
        loops.push_back(std::static_pointer_cast<const ForNode>(inner.chain[i]));
    arith::DomainMap relax = loopDomains(loops);
    const std::vector<BufferRegion>& theirs = reverse ? r->block->writes : r->block->reads;
    for (const BufferRegion& t : theirs) {
      bool relevant = false;
      for (const BufferRegion& o : ours) relevant = relevant || o.buffer == t.buffer;
      if (!relevant) continue;
      std::vector<Range> region = relaxRegion(t.region, r, relax, analyzer);
      bool merged = false;
      for (BufferRegion& e : out) {
        if (e.buffer != t.buffer) continue;
        e.region = unionRegion(e.region, region, analyzer);
        merged = true;
      }
      if (!merged) out.push_back({t.buffer, region});
    }
  }
  return out;
}

// Maps the needed buffer regions onto the block's iter vars through its own access regions,
// which must index each dimension by one iter var. Unconstrained iter vars keep their domain.
std::vector<Range> iterRanges(const BlockNode* block, const std::vector<BufferRegion>& needed,
                              bool reverse, const char* primitive, arith::Analyzer& analyzer) {
  std::vector<std::optional<Range>> ranges(block->iterVars.size());
  const std::vector<BufferRegion>& ours = reverse ? block->reads : block->writes;
  for (const BufferRegion& n : needed) {
    for (const BufferRegion& o : ours) {
      if (o.buffer != n.buffer) continue;
      for (size_t d = 0; d < o.region.size(); ++d) {
        if (asConstInt(o.region[d].min) && isOne(o.region[d].extent)) continue;
        const auto* v = o.region[d].min->as<VarNode>();
        size_t k = 0;
        while (k < block->iterVars.size() && block->iterVars[k].var.get() != v) ++k;
        if (!v || !isOne(o.region[d].extent) || k == block->iterVars.size())
          throwScheduleError(primitive, "the block '" + block->name + "' accesses '" +
                                            o.buffer->name +
                                            "' with an index that is not a single iter var");
        ranges[k] = ranges[k] ? unionRegion({*ranges[k]}, {n.region[d]}, analyzer)[0] : n.region[d];
      }
    }
  }
  std::vector<Range> out;
  for (size_t k = 0; k < ranges.size(); ++k)
    out.push_back(ranges[k] && block->iterVars[k].type == IterVarType::kDataPar
                      ? *ranges[k]
                      : block->iterVars[k].dom);
  return out;
}

// The realize of `block` under fresh loops `ax0, ...` iterating `ranges`; a predicate keeps the
// bindings inside the iter var domains where that cannot be proven.
Stmt regenerateNest(const BlockRealizeNode* realize, const std::vector<Range>& ranges,
                    bool preserveUnitLoops, arith::Analyzer& analyzer) {
  const BlockNode* block = realize->block.get();
  std::vector<Var> loopVars;
  std::vector<PrimExpr> extents, bindings;
  PrimExpr predicate = boolImm(true);
  for (size_t k = 0; k < ranges.size(); ++k) {
    const IterVar& iv = block->iterVars[k];
    PrimExpr binding = ranges[k].min;
    if (!isOne(ranges[k].extent) || preserveUnitLoops) {
      Var ax = freshVar("ax" + std::to_string(loopVars.size()), iv.var->dtype);
      loopVars.push_back(ax);
      extents.push_back(ranges[k].extent);
      analyzer.bind(ax, {intImm(0, ax->dtype), ranges[k].extent});
      binding = analyzer.simplify(ranges[k].min + PrimExpr(ax));
    }
    bindings.push_back(binding);
    if (!analyzer.canProve(ge(binding, iv.dom.min)))
      predicate = logicalAnd(predicate, ge(binding, iv.dom.min));
    if (!analyzer.canProve(lt(binding, iv.dom.min + iv.dom.extent)))
      predicate = logicalAnd(predicate, lt(binding, iv.dom.min + iv.dom.extent));
  }
  predicate = analyzer.simplify(predicate);
  return loopNest(loopVars, extents, blockRealize(bindings, predicate, realize->block));
}

// Valid insertion positions under the loop: after every child holding a producer of the block
// and before every child holding a consumer.
int insertionIndex(const std::vector<Stmt>& items, const Stmt& scope, const BlockNode* block,
                   int index, const char* primitive) {
  std::vector<const BlockRealizeNode*> producers = producersIn(scope, block);
  std::vector<const BlockRealizeNode*> consumers = consumersIn(scope, block);
  int first = 0, last = static_cast<int>(items.size());
  for (int i = 0; i < static_cast<int>(items.size()); ++i)
    if (containsAnyRealize(items[i], producers)) first = i + 1;
  for (int i = static_cast<int>(items.size()) - 1; i >= 0; --i)
    if (containsAnyRealize(items[i], consumers)) last = i;
  if (first > last)
    throwScheduleError(primitive,
                       "no position under the loop comes after the producers and "
                       "before the consumers of block '" +
                           block->name + "'");
  if (index == -1) return last;
  if (index == -2) return first;
  if (index < first || index > last)
    throwScheduleError(primitive, "the insertion index " + std::to_string(index) +
                                      " is outside the valid range [" + std::to_string(first) +
                                      ", " + std::to_string(last) + "]");
  return index;
}

PrimFunc moveBlock(const PrimFunc& f, uint64_t blockId, const VarNode* loopVar,
                   bool preserveUnitLoops, int index, const MoveSpec& spec) {
  const char* prim = spec.primitive;
  StmtPath bpath = requireBlockPath(f, blockId, prim);
  StmtPath lpath = requireLoopPath(f, loopVar, prim);
  const auto* block = bpath.stmt()->as<BlockNode>();
  if (bpath.scopeIndex() < 0) throwScheduleError(prim, "the root block cannot be moved");
  if (lpath.scopeBlock() != bpath.scopeBlock())
    throwScheduleError(prim, "the block '" + block->name + "' and the loop '" + loopVar->name +
                                 "' are not in the same scope");
  if (pathContains(bpath, lpath.stmt().get()))
    throwScheduleError(
        prim, "the loop '" + loopVar->name + "' is an ancestor of block '" + block->name + "'");
  if (!isCompleteBlock(block) && !isReductionBlock(block))
    throwScheduleError(
        prim, "the block '" + block->name + "' is neither a complete block nor a reduction block");
  const Stmt& scope = bpath.chain[bpath.scopeIndex()];
  if (!spec.reverse) {
    for (const BufferRegion& w : block->writes)
      if (!allocatingBlock(bpath, w.buffer.get()))
        throwScheduleError(prim, "the block '" + block->name + "' is an output block (it writes '" +
                                     w.buffer->name + "')");
  }
  std::vector<const BlockRealizeNode*> partners =
      spec.reverse ? producersIn(scope, block) : consumersIn(scope, block);
  const char* role = spec.reverse ? "producer" : "consumer";
  if (partners.empty()) throwScheduleError(prim, "the block '" + block->name + "' has no " + role);
  std::vector<const BlockRealizeNode*> outside;
  for (const BlockRealizeNode* r : partners)
    if (!containsAnyRealize(lpath.stmt(), {r})) outside.push_back(r);
  if (!outside.empty())
    throwScheduleError(prim, std::string("The primitive requires all the ") + role +
                                 "(s) of the given block to be present under the target loop. "
                                 "However, there are " +
                                 std::to_string(outside.size()) + " " + role +
                                 "(s) not satisfying the constraint. List of the " + role +
                                 "(s): " + blockNames(outside));
  if (spec.reverse) {
    // Inside a producer's reduction loop the consumer would read partial results.
    std::vector<For> enclosing = lpath.loops();
    enclosing.push_back(std::static_pointer_cast<const ForNode>(lpath.stmt()));
    for (const BlockRealizeNode* r : partners)
      for (const For& l : enclosing)
        if (bindsVarAs(r, l->loopVar.get(), IterVarType::kCommReduce))
          throwScheduleError(prim, "the loop '" + l->loopVar->name +
                                       "' is a reduction loop of producer '" + r->block->name +
                                       "'; the block would read partial results");
  }
  arith::Analyzer analyzer;
  for (const For& l : lpath.loops()) analyzer.bind(l->loopVar, {l->min, l->extent});
  const auto* target = lpath.stmt()->as<ForNode>();
  analyzer.bind(target->loopVar, {target->min, target->extent});
  std::vector<BufferRegion> needed = neededRegions(lpath, block, partners, spec.reverse, analyzer);
  std::vector<Range> ranges = iterRanges(block, needed, spec.reverse, prim, analyzer);
  Stmt nest = regenerateNest(realizeAt(bpath), ranges, preserveUnitLoops, analyzer);

  Stmt body = Schedule::Impl::replaceInBody(removalPath(bpath), nullptr);
  StmtPath newLoopPath = *findLoopPath(body, loopVar);
  const auto* loop = newLoopPath.stmt()->as<ForNode>();
  std::vector<Stmt> items = bodyItems(loop->body);
  StmtPath newBlockScope = *findBlockPath(body, bpath.scopeBlock()->id);
  int pos = insertionIndex(items, newBlockScope.stmt(), block, index, prim);
  items.insert(items.begin() + pos, nest);
  auto newLoop = std::make_shared<ForNode>(*loop);
  newLoop->body = seq(std::move(items));
  return withBody(f, Schedule::Impl::replaceInBody(newLoopPath, newLoop));
}

}  // namespace

PrimFunc computeAt(const PrimFunc& f, uint64_t blockId, const VarNode* loop, bool preserveUnitLoops,
                   int index) {
  return moveBlock(f, blockId, loop, preserveUnitLoops, index, {"compute-at", false});
}

PrimFunc reverseComputeAt(const PrimFunc& f, uint64_t blockId, const VarNode* loop,
                          bool preserveUnitLoops, int index) {
  return moveBlock(f, blockId, loop, preserveUnitLoops, index, {"reverse-compute-at", true});
}

// --- the Schedule method: resolve the RVs, run the primitive, commit, record ------------------

void Schedule::computeAt(const BlockRV& block, const LoopRV& loop, bool preserveUnitLoops,
                         int index) {
  Impl& s = *impl_;
  // sample_compute_location's marks: root leaves the block, inline inlines it.
  if (const Var* mark = markOf(s, loop)) {
    if (*mark == Impl::inlineMark()) {
      Impl::NoRecordScope quiet(s);
      computeInline(block);
    } else {
      s.block("compute-at", block);
    }
  } else {
    s.commit(tir::computeAt(s.func("compute-at"), blockIdOf(s, "compute-at", block),
                            loopVarOf(s, "compute-at", loop), preserveUnitLoops, index));
  }
  s.record({.kind = kComputeAtInst,
            .inputs = {block, loop},
            .attrs = {traceBool(preserveUnitLoops), AttrValue::integer(index)}});
}

void Schedule::reverseComputeAt(const BlockRV& block, const LoopRV& loop, bool preserveUnitLoops,
                                int index) {
  Impl& s = *impl_;
  const char* p = "reverse-compute-at";
  s.commit(tir::reverseComputeAt(s.func(p), blockIdOf(s, p, block), loopVarOf(s, p, loop),
                                 preserveUnitLoops, index));
  s.record({.kind = kReverseComputeAtInst,
            .inputs = {block, loop},
            .attrs = {traceBool(preserveUnitLoops), AttrValue::integer(index)}});
}

// --- how its instructions replay and print (listed in instruction_kinds.cc) -------------------

namespace {

// compute_at and reverse_compute_at record the same fields.
InstructionKind moveRow(const char* name, const char* py,
                        void (Schedule::*fn)(const BlockRV&, const LoopRV&, bool, int)) {
  using namespace kinds;
  return {.name = name,
          .pythonName = py,
          .inputs = {2, 2},
          .attrs = {2, 2},
          .apply =
              [fn](Schedule& s, const Instruction& i) {
                (s.*fn)(rvAt<BlockRV>(i, 0), rvAt<LoopRV>(i, 1), boolAttr(i, 0),
                        static_cast<int>(intAttr(i, 1)));
                return std::vector<InstOutput>{};
              },
          .print =
              [](const Instruction& i, const Inputs& in) {
                return "block=" + in[0] + ", loop=" + in[1] +
                       ", preserve_unit_loops=" + pyBool(i, 0) + ", index=" + pyAttr(i, 1);
              }};
}

}  // namespace

std::vector<InstructionKind> computeAtKinds() {
  return {moveRow(kComputeAtInst, "compute_at", &Schedule::computeAt),
          moveRow(kReverseComputeAtInst, "reverse_compute_at", &Schedule::reverseComputeAt)};
}

}  // namespace tessera::tir
