// reorder(loops): permutes loops of one chain into the given order at the positions they occupy;
// add_unit_loop: inserts an extent-1 loop above a block or loop.
#include <algorithm>
#include <set>

#include "tir/schedule/block_analysis.h"
#include "tir/schedule/instruction_kind_util.h"
#include "tir/schedule/schedule_state.h"

namespace tessera::tir {

// The names of the instructions this file records and replays, written once.
namespace {
constexpr char kAddUnitLoopInst[] = "AddUnitLoop";
constexpr char kReorderInst[] = "Reorder";
}  // namespace

namespace {

constexpr const char* kReorder = "reorder";

// A copy of `loop` with another body (keeps variable, kind, thread tag and annotations).
Stmt withBody(const ForNode* loop, Stmt body) {
  auto n = std::make_shared<ForNode>(*loop);
  n->body = std::move(body);
  return n;
}

}  // namespace

void Schedule::reorder(const std::vector<LoopRV>& loopRVs) {
  Impl& s = *impl_;
  std::vector<StmtPath> paths;
  std::set<const StmtNode*> listed;
  for (const LoopRV& rv : loopRVs) {
    paths.push_back(s.loopPath(kReorder, rv));
    if (!listed.insert(paths.back().stmt().get()).second) {
      throwScheduleError(kReorder, "loop '" + paths.back().stmt()->as<ForNode>()->loopVar->name +
                                       "' appears more than once");
    }
  }
  if (paths.empty()) return;
  // The deepest loop's chain must contain every listed loop (they lie on one chain).
  size_t deepest = 0;
  for (size_t i = 1; i < paths.size(); ++i) {
    if (paths[i].chain.size() > paths[deepest].chain.size()) deepest = i;
  }
  const StmtPath& chainPath = paths[deepest];
  std::vector<size_t> positions;
  for (size_t i = 0; i < chainPath.chain.size(); ++i) {
    if (listed.count(chainPath.chain[i].get())) positions.push_back(i);
  }
  if (positions.size() != listed.size()) {
    throwScheduleError(kReorder, "the loops do not lie on a single chain of nested loops");
  }
  size_t top = positions.front();
  size_t bottom = positions.back();
  for (size_t i = top; i < bottom; ++i) {
    const auto* f = chainPath.chain[i]->as<ForNode>();
    if (!f) throwScheduleError(kReorder, "the loops are separated by a block or another statement");
    if (f->body.get() != chainPath.chain[i + 1].get()) {
      throwScheduleError(kReorder, "loop '" + f->loopVar->name +
                                       "' between the reordered loops has more than one child");
    }
  }
  // The new order: listed positions take the loops in the given order; others stay.
  std::vector<const ForNode*> order;
  for (size_t i = top; i <= bottom; ++i) order.push_back(chainPath.chain[i]->as<ForNode>());
  size_t next = 0;
  for (size_t i = 0; i < order.size(); ++i) {
    if (listed.count(order[i])) order[i] = paths[next++].stmt()->as<ForNode>();
  }
  // No loop's range may use the variable of a loop that now lies inside it.
  for (size_t i = 0; i < order.size(); ++i) {
    for (size_t j = i; j < order.size(); ++j) {
      const VarNode* v = order[j]->loopVar.get();
      if (usesVar(order[i]->extent, v) || usesVar(order[i]->min, v)) {
        throwScheduleError(kReorder, "the extent of loop '" + order[i]->loopVar->name +
                                         "' would depend on the inner loop '" + v->name + "'");
      }
    }
  }
  // Blocks below must have affine bindings and only spatial/reduce iter vars.
  for (const BlockRealizeNode* r : realizesUnder(chainPath.chain[bottom])) {
    if (!hasAffineBindings(r) || !hasOnlySpatialAndReduce(r->block.get())) {
      throwScheduleError(
          kReorder,
          "block '" + r->block->name +
              "' under the loops needs affine bindings and only spatial/reduction iter vars");
    }
  }
  Stmt nest = chainPath.chain[bottom]->as<ForNode>()->body;
  for (size_t i = order.size(); i-- > 0;) nest = withBody(order[i], nest);
  StmtPath topPath{std::vector<Stmt>(chainPath.chain.begin(), chainPath.chain.begin() + top + 1)};
  s.commit(Impl::replaceInBody(topPath, nest));

  Instruction inst{.kind = kReorderInst};
  for (const LoopRV& rv : loopRVs) inst.inputs.push_back(rv);
  s.record(std::move(inst));
}

LoopRV Schedule::addUnitLoop(const BlockRV& block) {
  Impl& s = *impl_;
  StmtPath path = s.blockPath("add-unit-loop", block);
  if (path.chain.size() < 3)
    throwScheduleError("add-unit-loop", "cannot add a loop above the root block");
  path.chain.pop_back();  // replace the realize, not the block
  Var u = makeVar("u");
  s.commit(
      Impl::replaceInBody(path, forLoop(u, intImm(0), intImm(1), ForKind::kSerial, path.stmt())));
  LoopRV out = s.newLoopRV(u);
  s.record({.kind = kAddUnitLoopInst, .inputs = {block}, .outputs = {out}});
  return out;
}

LoopRV Schedule::addUnitLoop(const LoopRV& loop) {
  Impl& s = *impl_;
  StmtPath path = s.loopPath("add-unit-loop", loop);
  Var u = makeVar("u", path.stmt()->as<ForNode>()->loopVar->dtype);
  s.commit(Impl::replaceInBody(
      path, forLoop(u, intImm(0, u->dtype), intImm(1, u->dtype), ForKind::kSerial, path.stmt())));
  LoopRV out = s.newLoopRV(u);
  s.record({.kind = kAddUnitLoopInst, .inputs = {loop}, .outputs = {out}});
  return out;
}

// --- how its instructions replay and print (listed in instruction_kinds.cc) -------------------

std::vector<InstructionKind> reorderKinds() {
  using namespace kinds;
  return {
      {.name = kReorderInst,
       .pythonName = "reorder",
       .inputs = {1, Arity::kVariadic},
       .attrs = {0, 0},
       .apply =
           [](Schedule& s, const Instruction& i) {
             s.reorder(loopsFrom(i));
             return std::vector<InstOutput>{};
           },
       .print = [](const Instruction&, const Inputs& in) { return joined(in); }},
      {.name = kAddUnitLoopInst,
       .pythonName = "add_unit_loop",
       .inputs = {1, 1},
       .attrs = {0, 0},
       .apply =
           [](Schedule& s, const Instruction& i) {
             return std::vector<InstOutput>{isLoop(i, 0) ? s.addUnitLoop(rvAt<LoopRV>(i, 0))
                                                         : s.addUnitLoop(rvAt<BlockRV>(i, 0))};
           },
       .print = [](const Instruction&, const Inputs& in) { return "block_or_loop=" + in[0]; }},
  };
}

}  // namespace tessera::tir
