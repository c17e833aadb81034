// Query primitives: get_block, get_loops, get_child_blocks, get_producers, get_consumers. They
// change no IR; each records its (pure) instruction.
#include "tir/functor.h"
#include "tir/schedule/block_analysis.h"
#include "tir/schedule/instruction_kind_util.h"
#include "tir/schedule/schedule_state.h"

namespace tessera::tir {

// The names of the instructions this file records and replays, written once.
namespace {
constexpr char kGetBlockInst[] = "GetBlock";
constexpr char kGetChildBlocksInst[] = "GetChildBlocks";
constexpr char kGetConsumersInst[] = "GetConsumers";
constexpr char kGetLoopsInst[] = "GetLoops";
constexpr char kGetProducersInst[] = "GetProducers";
}  // namespace

namespace {

std::vector<InstOutput> asOutputs(const std::vector<BlockRV>& rvs) {
  return {rvs.begin(), rvs.end()};
}

// The blocks of `scope` (at any loop depth, not inside nested blocks) in program order.
std::vector<const BlockRealizeNode*> siblingsOf(const StmtPath& path) {
  int scope = path.scopeIndex();
  if (scope < 0) return {};  // the root block has no siblings
  return realizesUnder(path.chain[scope]);
}

}  // namespace

BlockRV Schedule::getBlock(const std::string& name, const std::string& funcName) {
  Impl& s = *impl_;
  // Naming a function selects it, as TVM's get_block(name, func_name) looks only there.
  if (!funcName.empty()) {
    if (!s.mod.find(funcName)) {
      throwScheduleError("get-block", "the module has no function named '" + funcName + "'");
    }
    s.funcName = funcName;
  }
  PrimFunc f = s.func("get-block");
  std::vector<uint64_t> ids;
  preOrderVisit(f->body, [&](const Stmt& st) {
    if (const auto* b = st->as<BlockNode>(); b && b->name == name) ids.push_back(b->id);
    return true;
  });
  if (ids.empty()) {
    throwScheduleError("get-block", "no block named '" + name + "' in function '" + f->name + "'");
  }
  if (ids.size() > 1) {
    throwScheduleError("get-block", std::to_string(ids.size()) + " blocks are named '" + name +
                                        "' in function '" + f->name + "'; the name must be unique");
  }
  BlockRV rv = s.newBlockRV(ids[0]);
  s.record({.kind = kGetBlockInst,
            .attrs = {AttrValue::string(name), AttrValue::string(f->name)},
            .outputs = {rv}});
  return rv;
}

std::vector<LoopRV> Schedule::getLoops(const BlockRV& block) {
  Impl& s = *impl_;
  StmtPath path = s.blockPath("get-loops", block);
  std::vector<LoopRV> out;
  std::vector<InstOutput> outs;
  for (const For& f : path.loops()) {
    out.push_back(s.newLoopRV(f->loopVar));
    outs.push_back(out.back());
  }
  s.record({.kind = kGetLoopsInst, .inputs = {block}, .outputs = std::move(outs)});
  return out;
}

std::vector<BlockRV> Schedule::getChildBlocks(const BlockRV& block) {
  Impl& s = *impl_;
  StmtPath path = s.blockPath("get-child-blocks", block);
  std::vector<BlockRV> out;
  for (const Block& b : childBlocks(path.stmt())) out.push_back(s.newBlockRV(b->id));
  s.record({.kind = kGetChildBlocksInst, .inputs = {block}, .outputs = asOutputs(out)});
  return out;
}

std::vector<BlockRV> Schedule::getChildBlocks(const LoopRV& loop) {
  Impl& s = *impl_;
  StmtPath path = s.loopPath("get-child-blocks", loop);
  std::vector<BlockRV> out;
  for (const Block& b : childBlocks(path.stmt()->as<ForNode>()->body)) {
    out.push_back(s.newBlockRV(b->id));
  }
  s.record({.kind = kGetChildBlocksInst, .inputs = {loop}, .outputs = asOutputs(out)});
  return out;
}

std::vector<BlockRV> Schedule::getProducers(const BlockRV& block) {
  Impl& s = *impl_;
  StmtPath path = s.blockPath("get-producers", block);
  const auto* self = path.stmt()->as<BlockNode>();
  std::vector<BlockRV> out;
  // A producer comes earlier in the scope and writes a buffer this block reads (read-after-write).
  for (const BlockRealizeNode* r : siblingsOf(path)) {
    if (r->block->id == self->id) break;
    for (const BufferRegion& w : r->block->writes) {
      if (readsBuffer(self, w.buffer.get())) {
        out.push_back(s.newBlockRV(r->block->id));
        break;
      }
    }
  }
  s.record({.kind = kGetProducersInst, .inputs = {block}, .outputs = asOutputs(out)});
  return out;
}

std::vector<BlockRV> Schedule::getConsumers(const BlockRV& block) {
  Impl& s = *impl_;
  StmtPath path = s.blockPath("get-consumers", block);
  const auto* self = path.stmt()->as<BlockNode>();
  std::vector<BlockRV> out;
  bool after = false;
  for (const BlockRealizeNode* r : siblingsOf(path)) {
    if (r->block->id == self->id) {
      after = true;
      continue;
    }
    if (!after) continue;
    for (const BufferRegion& w : self->writes) {
      if (readsBuffer(r->block.get(), w.buffer.get())) {
        out.push_back(s.newBlockRV(r->block->id));
        break;
      }
    }
  }
  s.record({.kind = kGetConsumersInst, .inputs = {block}, .outputs = asOutputs(out)});
  return out;
}

// --- how its instructions replay and print (listed in instruction_kinds.cc) -------------------

namespace {

// Queries of one block that return a list of RVs (loops, producers, consumers).
template <typename RV>
InstructionKind blockQueryRow(const char* name, const char* py,
                              std::vector<RV> (Schedule::*fn)(const BlockRV&)) {
  using namespace kinds;
  return {.name = name,
          .pythonName = py,
          .pure = true,
          .inputs = {1, 1},
          .attrs = {0, 0},
          .listOutput = true,
          .apply = [fn](Schedule& s,
                        const Instruction& i) { return outs((s.*fn)(rvAt<BlockRV>(i, 0))); },
          .print = [](const Instruction&, const Inputs& in) { return "block=" + in[0]; }};
}

}  // namespace

std::vector<InstructionKind> blockLoopQueryKinds() {
  using namespace kinds;
  return {
      {.name = kGetBlockInst,
       .pythonName = "get_block",
       .pure = true,
       .inputs = {0, 0},
       .attrs = {2, 2},
       .apply =
           [](Schedule& s, const Instruction& i) {
             return std::vector<InstOutput>{s.getBlock(strAttr(i, 0), strAttr(i, 1))};
           },
       .print =
           [](const Instruction& i, const Inputs&) {
             return "name=" + pyAttr(i, 0) + ", func_name=" + pyAttr(i, 1);
           }},
      blockQueryRow(kGetLoopsInst, "get_loops", &Schedule::getLoops),
      {.name = kGetChildBlocksInst,
       .pythonName = "get_child_blocks",
       .pure = true,
       .inputs = {1, 1},
       .attrs = {0, 0},
       .listOutput = true,
       .apply =
           [](Schedule& s, const Instruction& i) {
             return isLoop(i, 0) ? outs(s.getChildBlocks(rvAt<LoopRV>(i, 0)))
                                 : outs(s.getChildBlocks(rvAt<BlockRV>(i, 0)));
           },
       .print = [](const Instruction&, const Inputs& in) { return in[0]; }},
      blockQueryRow(kGetProducersInst, "get_producers", &Schedule::getProducers),
      blockQueryRow(kGetConsumersInst, "get_consumers", &Schedule::getConsumers),
  };
}

}  // namespace tessera::tir
