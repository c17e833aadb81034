// Schedule methods of the block primitives: resolve the RVs, run the free function from
// primitive/ (which checks every precondition before building anything), commit the result and
// record the instruction in the form instruction_kinds.cc replays.
#include <random>

#include "tir/schedule/primitive/block_primitives.h"
#include "tir/schedule/schedule_state.h"

namespace tessera::tir {

namespace {

uint64_t blockIdOf(const Schedule::Impl& s, const char* primitive, const BlockRV& rv) {
  return s.block(primitive, rv)->id;
}

const VarNode* loopVarOf(const Schedule::Impl& s, const char* primitive, const LoopRV& rv) {
  return s.loop(primitive, rv)->loopVar.get();
}

// The loop variable an RV names when it may be a compute-location mark.
const Var* markOf(const Schedule::Impl& s, const LoopRV& rv) {
  auto it = s.loopRVs.find(rv.id);
  if (it == s.loopRVs.end()) return nullptr;
  if (it->second == Schedule::Impl::rootMark() || it->second == Schedule::Impl::inlineMark())
    return &it->second;
  return nullptr;
}

std::vector<uint64_t> blockIds(const Schedule::Impl& s, const char* primitive,
                               const std::vector<BlockRV>& rvs) {
  std::vector<uint64_t> out;
  for (const BlockRV& rv : rvs) out.push_back(blockIdOf(s, primitive, rv));
  return out;
}

std::vector<InstInput> blockAndConsumers(const BlockRV& block,
                                         const std::vector<BlockRV>& consumers) {
  std::vector<InstInput> in{block};
  for (const BlockRV& c : consumers) in.push_back(c);
  return in;
}

}  // namespace

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
  s.record({.kind = "ComputeAt",
            .inputs = {block, loop},
            .attrs = {traceBool(preserveUnitLoops), AttrValue::integer(index)}});
}

void Schedule::reverseComputeAt(const BlockRV& block, const LoopRV& loop, bool preserveUnitLoops,
                                int index) {
  Impl& s = *impl_;
  const char* p = "reverse-compute-at";
  s.commit(tir::reverseComputeAt(s.func(p), blockIdOf(s, p, block), loopVarOf(s, p, loop),
                                 preserveUnitLoops, index));
  s.record({.kind = "ReverseComputeAt",
            .inputs = {block, loop},
            .attrs = {traceBool(preserveUnitLoops), AttrValue::integer(index)}});
}

void Schedule::computeInline(const BlockRV& block) {
  Impl& s = *impl_;
  s.commit(tir::computeInline(s.func("compute-inline"), blockIdOf(s, "compute-inline", block)));
  s.record({.kind = "ComputeInline", .inputs = {block}});
}

void Schedule::reverseComputeInline(const BlockRV& block) {
  Impl& s = *impl_;
  const char* p = "reverse-compute-inline";
  s.commit(tir::reverseComputeInline(s.func(p), blockIdOf(s, p, block)));
  s.record({.kind = "ReverseComputeInline", .inputs = {block}});
}

BlockRV Schedule::cacheRead(const BlockRV& block, int readBufferIndex,
                            const std::string& storageScope,
                            const std::vector<BlockRV>& consumerBlocks) {
  Impl& s = *impl_;
  const char* p = "cache-read";
  PrimFuncWithBlock r = tir::cacheRead(s.func(p), blockIdOf(s, p, block), readBufferIndex,
                                       storageScope, blockIds(s, p, consumerBlocks));
  s.commit(r.func);
  BlockRV out = s.newBlockRV(r.blockId);
  s.record({.kind = "CacheRead",
            .inputs = blockAndConsumers(block, consumerBlocks),
            .attrs = {AttrValue::integer(readBufferIndex), AttrValue::string(storageScope)},
            .outputs = {out}});
  return out;
}

BlockRV Schedule::cacheWrite(const BlockRV& block, int writeBufferIndex,
                             const std::string& storageScope,
                             const std::vector<BlockRV>& consumerBlocks) {
  Impl& s = *impl_;
  const char* p = "cache-write";
  PrimFuncWithBlock r = tir::cacheWrite(s.func(p), blockIdOf(s, p, block), writeBufferIndex,
                                        storageScope, blockIds(s, p, consumerBlocks));
  s.commit(r.func);
  BlockRV out = s.newBlockRV(r.blockId);
  s.record({.kind = "CacheWrite",
            .inputs = blockAndConsumers(block, consumerBlocks),
            .attrs = {AttrValue::integer(writeBufferIndex), AttrValue::string(storageScope)},
            .outputs = {out}});
  return out;
}

void Schedule::setScope(const BlockRV& block, int bufferIndex, const std::string& storageScope) {
  Impl& s = *impl_;
  const char* p = "set-scope";
  s.commit(tir::setScope(s.func(p), blockIdOf(s, p, block), bufferIndex, storageScope));
  s.record({.kind = "SetScope",
            .inputs = {block},
            .attrs = {AttrValue::integer(bufferIndex), AttrValue::string(storageScope)}});
}

void Schedule::storageAlign(const BlockRV& block, int bufferIndex, int axis, int factor,
                            int offset) {
  Impl& s = *impl_;
  const char* p = "storage-align";
  s.commit(tir::storageAlign(s.func(p), blockIdOf(s, p, block), bufferIndex, axis, factor, offset));
  s.record({.kind = "StorageAlign",
            .inputs = {block},
            .attrs = {AttrValue::integer(bufferIndex), AttrValue::integer(axis),
                      AttrValue::integer(factor), AttrValue::integer(offset)}});
}

BlockRV Schedule::rfactor(const LoopRV& loop, int factorAxis) {
  Impl& s = *impl_;
  PrimFuncWithBlock r = tir::rfactor(s.func("rfactor"), loopVarOf(s, "rfactor", loop), factorAxis);
  s.commit(r.func);
  BlockRV out = s.newBlockRV(r.blockId);
  s.record({.kind = "RFactor",
            .inputs = {loop},
            .attrs = {AttrValue::integer(factorAxis)},
            .outputs = {out}});
  return out;
}

BlockRV Schedule::blockize(const LoopRV& loop, bool preserveUnitIters) {
  Impl& s = *impl_;
  PrimFuncWithBlock r =
      tir::blockize(s.func("blockize"), loopVarOf(s, "blockize", loop), preserveUnitIters);
  s.commit(r.func);
  BlockRV out = s.newBlockRV(r.blockId);
  s.record({.kind = "Blockize",
            .inputs = {loop},
            .attrs = {traceBool(preserveUnitIters)},
            .outputs = {out}});
  return out;
}

void Schedule::tensorize(const LoopRV& loop, const std::string& intrinName,
                         bool preserveUnitIters) {
  Impl& s = *impl_;
  // Blockize and tensorize as one step, so a mismatch leaves the loop as it was.
  PrimFuncWithBlock b =
      tir::blockize(s.func("tensorize"), loopVarOf(s, "tensorize", loop), preserveUnitIters);
  s.commit(tir::tensorize(b.func, b.blockId, intrinName));
  s.record({.kind = "Tensorize",
            .inputs = {loop},
            .attrs = {AttrValue::string(intrinName), traceBool(preserveUnitIters)}});
}

void Schedule::tensorize(const BlockRV& block, const std::string& intrinName,
                         bool preserveUnitIters) {
  Impl& s = *impl_;
  s.commit(tir::tensorize(s.func("tensorize"), blockIdOf(s, "tensorize", block), intrinName));
  s.record({.kind = "Tensorize",
            .inputs = {block},
            .attrs = {AttrValue::string(intrinName), traceBool(preserveUnitIters)}});
}

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
  s.record({.kind = "SampleComputeLocation",
            .inputs = {block},
            .outputs = {out},
            .decision = AttrValue::integer(chosen, DataType::int64())});
  return out;
}

}  // namespace tessera::tir
