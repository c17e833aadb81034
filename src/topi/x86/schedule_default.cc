// The default x86 schedule of a kernel: the anchor schedule when the kernel has a packed dense or
// conv2d, then the generic steps (inline elementwise stages, parallel outer loops) for the rest.
#include <algorithm>
#include <thread>

#include "support/diagnostic.h"
#include "tir/stmt.h"
#include "topi/x86/schedule.h"
#include "topi/x86/schedule_util.h"

namespace tessera::topi::x86 {
namespace {

bool contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// A `pad_temp` stage that pads nothing is a copy: inlining it costs nothing.
bool padsSomething(const tir::Schedule& sch, const tir::BlockRV& pad) {
  const tir::BlockNode* b = sch.get(pad);
  if (b->reads.empty() || b->writes.empty()) return true;
  const auto& in = b->reads[0].buffer->shape;
  const auto& out = b->writes[0].buffer->shape;
  for (size_t d = 0; d < in.size() && d < out.size(); ++d) {
    const int64_t* i = tir::asConstInt(in[d]);
    const int64_t* o = tir::asConstInt(out[d]);
    if (!i || !o || *i != *o) return true;
  }
  return false;
}

bool hasParallelLoop(const tir::Schedule& sch, const std::vector<tir::LoopRV>& loops) {
  for (const tir::LoopRV& l : loops)
    if (sch.get(l)->forKind != tir::ForKind::kSerial) return true;
  return false;
}

// Applies one anchor schedule to a copy, keeping it only when it succeeds.
template <typename F>
bool tryAnchor(tir::Schedule& sch, F&& schedule) {
  tir::Schedule attempt = sch.copy();
  try {
    schedule(attempt);
  } catch (const DiagnosticError&) {
    return false;
  }
  sch = std::move(attempt);
  return true;
}

}  // namespace

void inlineElementwise(tir::Schedule& sch, const std::vector<std::string>& keep) {
  bool progress = true;
  while (progress) {
    progress = false;
    for (const tir::BlockRV& b : rootBlocks(sch)) {
      const std::string name = sch.get(b)->name;
      if (writesOutput(sch, b) || isReduction(sch, b)) continue;
      const bool copyOnly = name == "pad_temp" && !padsSomething(sch, b);
      if (contains(keep, name) && !copyOnly) continue;
      try {
        sch.computeInline(b);
        progress = true;
        break;  // the block list changed
      } catch (const DiagnosticError&) {
        // Not inlinable (e.g. read at an index it cannot be substituted into): it stays a stage.
      }
    }
  }
}

// Fuses the first `spatial` of `loops` (leading spatial loops) until there are a few tasks per
// core, keeping the innermost spatial loop for the vectorizer when there is more than one, and
// makes the result parallel when the block has `work` iterations or more in total.
void parallelizeLeading(tir::Schedule& sch, const std::vector<tir::LoopRV>& loops, size_t spatial,
                        int64_t work, const ScheduleOptions& options) {
  if (options.numCores <= 1 || spatial == 0 || work < options.minParallelWork) return;
  const size_t maxFused = spatial > 1 ? spatial - 1 : 1;
  size_t fused = 0;
  int64_t tasks = 1;
  while (fused < maxFused && tasks < 4 * options.numCores) {
    const std::optional<int64_t> e = extentOf(sch, loops[fused++]);
    if (!e) return;
    tasks *= *e;
  }
  if (tasks < 2) return;
  tir::LoopRV outer = loops[0];
  if (fused > 1) outer = sch.fuse({loops.begin(), loops.begin() + static_cast<long>(fused)});
  sch.parallel(outer);
}

// Iterations of all `loops` (0 when one is symbolic).
int64_t workOf(const tir::Schedule& sch, const std::vector<tir::LoopRV>& loops) {
  int64_t work = 1;
  for (const tir::LoopRV& l : loops) {
    const std::optional<int64_t> e = extentOf(sch, l);
    if (!e) return 0;
    work *= *e;
  }
  return work;
}

void vectorizeReductions(tir::Schedule& sch, const ScheduleOptions& options) {
  const int64_t lanes = std::max(1, options.vectorBytes / 4);
  for (const tir::BlockRV& b : rootBlocks(sch)) {
    std::vector<tir::LoopRV> loops = sch.getLoops(b);
    const tir::BlockNode* block = sch.get(b);
    // Unscheduled, with a reduction over the innermost loop of whole vectors.
    if (loops.empty() || loops.size() != block->iterVars.size() || hasParallelLoop(sch, loops) ||
        block->iterVars.back().type != tir::IterVarType::kCommReduce)
      continue;
    const std::optional<int64_t> extent = extentOf(sch, loops.back());
    if (!extent || *extent % lanes != 0 || *extent < 2 * lanes) continue;
    const int factorAxis =
        static_cast<int>(block->writes.empty() ? 0 : block->writes[0].buffer->ndim());
    tir::Schedule attempt = sch.copy();
    try {
      const int64_t work = workOf(attempt, loops);
      const size_t spatial = loops.size() - 1;
      std::vector<tir::LoopRV> k = attempt.split(loops.back(), {std::monostate{}, lanes});
      // The rf-block keeps one partial result per lane: its lane loop is innermost and becomes
      // a vector; the original block then reduces the lanes. Both run their rows in parallel.
      tir::BlockRV rf = attempt.rfactor(k[1], factorAxis);
      attempt.vectorize(k[1]);
      parallelizeLeading(attempt, attempt.getLoops(rf), spatial, work, options);
      parallelizeLeading(attempt, attempt.getLoops(b), spatial, work, options);
    } catch (const DiagnosticError&) {
      continue;  // e.g. a reducer rfactor cannot split: stays a scalar loop
    }
    sch = std::move(attempt);
  }
}

void parallelizeOuterLoops(tir::Schedule& sch, const ScheduleOptions& options) {
  for (const tir::BlockRV& b : rootBlocks(sch)) {
    std::vector<tir::LoopRV> loops = sch.getLoops(b);
    if (loops.empty() || hasParallelLoop(sch, loops)) continue;
    // Loops from createPrimFunc: one per iter var, spatial ones first. A block scheduled
    // otherwise is left alone.
    const tir::BlockNode* block = sch.get(b);
    if (loops.size() != block->iterVars.size()) continue;
    size_t spatial = 0;
    while (spatial < loops.size() && block->iterVars[spatial].type == tir::IterVarType::kDataPar)
      ++spatial;
    parallelizeLeading(sch, loops, spatial, workOf(sch, loops), options);
  }
}

tir::PrimFunc scheduleDefault(const tir::PrimFunc& func, const ScheduleOptions& options) {
  tir::Schedule sch(func, /*seed=*/0);
  try {
    bool anchored = false;
    if (findBlock(sch, "T_winograd_input"))
      anchored = tryAnchor(sch, [&](tir::Schedule& s) { scheduleConv2dWinograd(s, options); });
    else if (findBlock(sch, "T_dense_pack"))
      anchored = tryAnchor(sch, [&](tir::Schedule& s) { scheduleDensePacked(s, options); });
    else if (findBlock(sch, "conv2d_nchw_pack"))
      anchored = tryAnchor(sch, [&](tir::Schedule& s) { scheduleConv2dPacked(s, options); });
    else if (findBlock(sch, "conv2d_1x1"))
      anchored = tryAnchor(sch, [&](tir::Schedule& s) { scheduleConv2d1x1(s, options); });
    else if (findBlock(sch, "conv2d_nchw"))
      anchored = tryAnchor(sch, [&](tir::Schedule& s) { scheduleConv2dDirect(s, options); });
    if (!anchored) inlineElementwise(sch, {});
    vectorizeReductions(sch, options);
    parallelizeOuterLoops(sch, options);
  } catch (const DiagnosticError&) {
    // Every primitive that succeeded preserved the kernel's meaning: keep what was done.
  }
  return sch.func();
}

}  // namespace tessera::topi::x86
