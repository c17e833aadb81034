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
  const int64_t nr = pixels % (2 * lanes) == 0 ? 2 * lanes : lanes;
  if (pixels % nr != 0) return notApplicable("conv2d_1x1", "pixels are not whole vectors");
  const int64_t budget = accumulatorBudget(options.vectorRegisters, nr / lanes + 1, 16);
  const int64_t mr = largestDivisorAtMost(
      *channels, std::min<int64_t>(8, std::max<int64_t>(1, budget / (nr / lanes))));
  tir::LoopRV pixel = sch.fuse({loops[2], loops[3]});
  std::vector<tir::LoopRV> p = sch.split(pixel, {std::monostate{}, nr});
  std::vector<tir::LoopRV> c = sch.split(loops[1], {std::monostate{}, mr});
  sch.reorder({p[0], c[0], c[1], p[1]});
  sch.computeAt(*conv, c[0], /*preserveUnitLoops=*/true);

  // Below the tile loops (n, p[0], c[0]): n, channel, pixel, then the input channels.
  std::vector<tir::LoopRV> tile = sch.getLoops(*conv);
  if (tile.size() != 3 + 4) return notApplicable("conv2d_1x1", "unexpected loops below the tile");
  const tir::LoopRV row = tile[4], lane = tile[5], rc = tile[6];
  sch.reorder({rc, row, lane});
  tir::BlockRV init = sch.decomposeReduction(*conv, rc);
  vectorizeTile(sch, {row, lane});
  vectorizeTile(sch, innerLoops(sch, init, 3));  // below the tile loops
  sch.vectorize(p[1]);
  // The epilogue's channels unrolled: independent vectors of an expensive elementwise tail
  // (sigmoid, tanh: a long dependent chain each) overlap instead of running one after another
  // (conv1x1 + sigmoid on 64x56x56, Zen 3: 0.96 -> 0.61 ms;
  // bench/results/2026-11-28-control-flow.md).
  sch.unroll(c[1]);
  if (*channels * pixels * reduction >= options.minParallelWork)
    parallelTiles(sch, {loops[0], p[0], c[0]}, options.numCores);
  return Applicability::yes();
}

}  // namespace tessera::topi::x86
