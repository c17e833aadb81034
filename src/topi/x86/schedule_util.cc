// Block roles and tile sizes for the x86 schedules.
#include "topi/x86/schedule_util.h"

#include "tir/stmt.h"
#include "topi/x86/schedule.h"

namespace tessera::topi::x86 {

Applicability notApplicable(const std::string& anchor, const std::string& why) {
  return Applicability::no(anchor + ": " + why);
}

std::vector<tir::LoopRV> innerLoops(tir::Schedule& sch, const tir::BlockRV& block, size_t outer) {
  std::vector<tir::LoopRV> loops = sch.getLoops(block);
  if (loops.size() < outer) return {};
  return {loops.begin() + static_cast<long>(outer), loops.end()};
}

bool writesOutput(const tir::Schedule& sch, const tir::BlockRV& block) {
  const std::vector<tir::Buffer> params = sch.func()->paramBuffers();
  for (const tir::BufferRegion& w : sch.get(block)->writes)
    for (const tir::Buffer& p : params)
      if (p->data.get() == w.buffer->data.get()) return true;
  return false;
}

bool isReduction(const tir::Schedule& sch, const tir::BlockRV& block) {
  for (const tir::IterVar& iv : sch.get(block)->iterVars)
    if (iv.type != tir::IterVarType::kDataPar) return true;
  return false;
}

std::optional<int64_t> extentOf(const tir::Schedule& sch, const tir::LoopRV& loop) {
  const int64_t* e = tir::asConstInt(sch.get(loop)->extent);
  if (!e) return std::nullopt;
  return *e;
}

int64_t workOf(const tir::Schedule& sch, const std::vector<tir::LoopRV>& loops) {
  int64_t work = 1;
  for (const tir::LoopRV& l : loops) {
    const std::optional<int64_t> e = extentOf(sch, l);
    if (!e) return 0;
    work *= *e;
  }
  return work;
}

int64_t largestDivisorAtMost(int64_t n, int64_t limit) {
  for (int64_t d = std::min(n, limit); d > 1; --d)
    if (n % d == 0) return d;
  return 1;
}

int64_t broadcastRowLimit(int64_t lanes, const ScheduleOptions& options) {
  const int64_t vectors = vectorsOf(lanes, options);
  const int64_t budget = accumulatorBudget(options.vectorRegisters, vectors + 1, 16);
  return std::min<int64_t>(8, std::max<int64_t>(1, budget / vectors));
}

int64_t tileExtent(int64_t n, int64_t limit) {
  const int64_t divisor = largestDivisorAtMost(n, limit);
  return n <= limit || 4 * divisor >= 3 * limit ? divisor : limit;
}

int64_t vectorsOf(int64_t lanes, const ScheduleOptions& options) {
  const int64_t perVector = std::max(1, options.vectorBytes / 4);
  return std::max<int64_t>(1, (lanes + perVector - 1) / perVector);
}

int64_t accumulatorBudget(int registers, int64_t operands, int64_t cap) {
  return std::max<int64_t>(1, std::min(cap, registers - operands - 1));
}

std::vector<tir::BlockRV> rootBlocks(tir::Schedule& sch) {
  return sch.getChildBlocks(sch.getBlock("root"));
}

std::optional<tir::BlockRV> findBlock(tir::Schedule& sch, const std::string& name) {
  for (const tir::BlockRV& b : rootBlocks(sch))
    if (sch.get(b)->name == name) return b;
  return std::nullopt;
}

std::optional<tir::BlockRV> soleOutputBlock(tir::Schedule& sch) {
  std::optional<tir::BlockRV> out;
  for (const tir::BlockRV& b : rootBlocks(sch)) {
    if (!writesOutput(sch, b)) continue;
    if (out) return std::nullopt;
    out = b;
  }
  return out;
}

// Unrolls all but the last of `loops` and vectorizes the last (the register tile's loops).
void vectorizeTile(tir::Schedule& sch, const std::vector<tir::LoopRV>& loops) {
  for (size_t i = 0; i + 1 < loops.size(); ++i) sch.unroll(loops[i]);
  if (!loops.empty()) sch.vectorize(loops.back());
}

// Fuses `loops` (a chain from the outermost loop) and runs the result in parallel.
void parallelTiles(tir::Schedule& sch, const std::vector<tir::LoopRV>& loops, int numCores) {
  if (numCores <= 1 || loops.empty()) return;
  sch.parallel(loops.size() == 1 ? loops[0] : sch.fuse(loops));
}

}  // namespace tessera::topi::x86
