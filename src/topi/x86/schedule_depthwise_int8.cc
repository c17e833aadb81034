// x86 schedule of the int8 depthwise conv2d (topi/depthwise_conv2d_int8.h): per channel, the
// padded (phase-split) input plane is built first, where it stays in cache; each output row is
// computed in tiles of up to 4 vectors of 16 int32 columns, the window's taps unrolled around
// them so that the accumulators stay in registers, then written out by the output stage (the
// requantizing epilogue inlined) while the row is hot. Channels run in parallel.
#include "tir/stmt.h"
#include "topi/depthwise_conv2d_int8.h"
#include "topi/x86/schedule.h"
#include "topi/x86/schedule_util.h"

namespace tessera::topi::x86 {

// Vectors of output columns per tile: 4 accumulators, the rest of the registers for the taps.
constexpr int64_t kDepthwiseTileVectors = 4;

Applicability scheduleDepthwiseConv2dInt8(tir::Schedule& sch, const ScheduleOptions& options) {
  const std::string anchor = "depthwise_conv2d_int8";
  inlineElementwise(sch, {anchor, "pad_temp"});
  std::optional<tir::BlockRV> conv = findBlock(sch, anchor);
  std::optional<tir::BlockRV> pad = findBlock(sch, "pad_temp");
  std::optional<tir::BlockRV> out = soleOutputBlock(sch);
  if (!conv || !pad || !out || sch.get(*out)->id == sch.get(*conv)->id)
    return notApplicable(anchor, "the kernel needs one padding, one conv2d and one output stage");
  std::vector<tir::LoopRV> loops = sch.getLoops(*conv);  // n, c, oh, ow, ry, rx
  if (loops.size() != 6) return notApplicable(anchor, "unexpected conv2d block");
  const std::optional<int64_t> channels = extentOf(sch, loops[1]), rows = extentOf(sch, loops[2]);
  const std::optional<int64_t> columns = extentOf(sch, loops[3]);
  const std::optional<int64_t> kh = extentOf(sch, loops[4]), kw = extentOf(sch, loops[5]);
  if (!channels || !rows || !columns || !kh || !kw || *columns % kDepthwiseInt8Lanes != 0)
    return notApplicable(anchor, "the columns are not whole vectors");

  const int64_t tile = largestDivisorAtMost(*columns / kDepthwiseInt8Lanes, kDepthwiseTileVectors);
  std::vector<tir::LoopRV> ow = sch.split(loops[3], {std::monostate{}, tile, kDepthwiseInt8Lanes});
  sch.reorder({ow[0], loops[4], loops[5], ow[1], ow[2]});
  tir::BlockRV init = sch.decomposeReduction(*conv, loops[4]);
  vectorizeTile(sch, innerLoops(sch, init, 4));  // below n, c, oh, ow[0]
  sch.unroll(loops[4]);
  sch.unroll(loops[5]);
  vectorizeTile(sch, {ow[1], ow[2]});
  // The row's output right after it; the channel's padded plane before its first row.
  sch.reverseComputeAt(*out, loops[2], /*preserveUnitLoops=*/true);
  sch.vectorize(sch.getLoops(*out).back());
  sch.computeAt(*pad, loops[1], /*preserveUnitLoops=*/true);
  if (*channels * *rows * *columns * *kh * *kw >= options.minParallelWork)
    parallelTiles(sch, {loops[0], loops[1]}, options.numCores);
  return Applicability::yes();
}

}  // namespace tessera::topi::x86
