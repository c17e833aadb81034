// x86 schedule of the pointwise conv2d computed as a matrix product over pixels
// (`conv2d_1x1`, topi/nn_packed.cc): output (channels x pixels) is tiled into mr channels x nr
// pixels; each step of the reduction over input channels broadcasts mr weights against one
// contiguous nr-pixel vector of an input row, the mirror image of the packed dense. The epilogue
// then writes whole pixel vectors of the NCHW output. Channel blocks of one pixel panel run one
// after the other, so the panel of input rows stays in cache.
#include "tir/stmt.h"
#include "topi/x86/schedule.h"
#include "topi/x86/schedule_util.h"

namespace tessera::topi::x86 {

namespace {
// The input rows of one chunk of pixel panels: well inside the L2 of every x86 core seen (512 KiB
// on Zen 3).
constexpr int64_t kChunkBytes = 128 * 1024;
}  // namespace

Applicability scheduleConv2d1x1(tir::Schedule& sch, const ScheduleOptions& options) {
  inlineElementwise(sch, {"conv2d_1x1"});
  std::optional<tir::BlockRV> conv = findBlock(sch, "conv2d_1x1");
  std::optional<tir::BlockRV> out = soleOutputBlock(sch);
  if (!conv || !out)
    return notApplicable("conv2d_1x1", "the kernel needs one conv2d and one output");
  if (sch.get(*conv)->iterVars.size() != 4)
    return notApplicable("conv2d_1x1", "unexpected conv2d block");
  int64_t reduction = 1;
  if (const int64_t* e = tir::asConstInt(sch.get(*conv)->iterVars[3].dom.extent)) reduction = *e;
  std::vector<tir::LoopRV> loops = sch.getLoops(*out);
  if (loops.size() != 4) return notApplicable("conv2d_1x1", "the output is not NCHW");
  const std::optional<int64_t> channels = extentOf(sch, loops[1]);
  const std::optional<int64_t> height = extentOf(sch, loops[2]), width = extentOf(sch, loops[3]);
  if (!channels || !height || !width) return notApplicable("conv2d_1x1", "symbolic shape");
  const int64_t pixels = *height * *width;

  const int64_t lanes = std::max<int64_t>(1, options.vectorBytes / 4);
  const int64_t nr = pixels % (2 * lanes) == 0 || pixels % lanes != 0 ? 2 * lanes : lanes;
  // mr channel rows of nr / lanes vectors: the accumulators the registers hold.
  const int64_t rows = broadcastRowLimit(nr, options);
  // Pixel panels run in chunks whose input rows stay in cache (kChunkBytes) while every channel
  // block passes over them: the output is then written (and a residual read) in runs of a
  // chunk's pixels per channel row, not one panel's 64 bytes in each of hundreds of rows.
  const int64_t panels = (pixels + nr - 1) / nr;
  const int64_t panelBytes = std::max<int64_t>(1, reduction * nr * 4);
  // An input that fits twice the chunk is one chunk (the weights then pass through the cache
  // once); otherwise chunks divide the panels.
  const int64_t chunk =
      panels * panelBytes <= 2 * kChunkBytes
          ? panels
          : largestDivisorAtMost(panels, std::max<int64_t>(1, kChunkBytes / panelBytes));
  // Threads take chunks when there are enough of them, else channel blocks too. Channel
  // blocks that do not divide the channels leave a last, partial block, which LoopPartition
  // peels off; it can only do that from a loop of its own, not from a fused one that also
  // counts chunks.
  const int64_t batch = extentOf(sch, loops[0]).value_or(1);
  const int64_t chunks = (panels + chunk - 1) / chunk;
  const bool parallelChunks = batch * chunks >= 2 * options.numCores;
  const int64_t mr = parallelChunks || batch * chunks == 1 ? tileExtent(*channels, rows)
                                                           : largestDivisorAtMost(*channels, rows);
  tir::LoopRV pixel = sch.fuse({loops[2], loops[3]});
  std::vector<tir::LoopRV> p = sch.split(pixel, {std::monostate{}, chunk, nr});
  std::vector<tir::LoopRV> c = sch.split(loops[1], {std::monostate{}, mr});
  sch.reorder({p[0], c[0], p[1], c[1], p[2]});
  sch.computeAt(*conv, p[1], /*preserveUnitLoops=*/true);

  // Below the tile loops (n, p[0], c[0], p[1]): n, channel, pixel, then the input channels.
  std::vector<tir::LoopRV> tile = sch.getLoops(*conv);
  if (tile.size() != 4 + 4) return notApplicable("conv2d_1x1", "unexpected loops below the tile");
  const tir::LoopRV row = tile[5], lane = tile[6], rc = tile[7];
  sch.reorder({rc, row, lane});
  tir::BlockRV init = sch.decomposeReduction(*conv, rc);
  vectorizeTile(sch, {row, lane});
  vectorizeTile(sch, innerLoops(sch, init, 4));  // below the tile loops
  sch.vectorize(p[2]);
  // The epilogue's channels unrolled: independent vectors of an expensive elementwise tail
  // (sigmoid, tanh: a long dependent chain each) overlap instead of running one after another
  // (conv1x1 + sigmoid on 64x56x56, Zen 3: 0.96 -> 0.61 ms;
  // bench/results/2026-11-28-control-flow.md).
  sch.unroll(c[1]);
  if (*channels * pixels * reduction >= options.minParallelWork)
    parallelTiles(sch,
                  parallelChunks ? std::vector<tir::LoopRV>{loops[0], p[0]}
                                 : std::vector<tir::LoopRV>{loops[0], p[0], c[0]},
                  options.numCores);
  return Applicability::yes();
}

}  // namespace tessera::topi::x86
