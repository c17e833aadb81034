// x86 schedule of the int8 depthwise conv2d (topi/depthwise_conv2d_int8.h): per channel, the
// padded (phase-split) input plane is built first, where it stays in cache; each output row is
// computed whole (up to 128 int32 columns), the window's taps unrolled around it so that the
// accumulators stay in vector registers, then written out by the output stage (the requantizing
// epilogue inlined) while the row is hot. Channels run in parallel.
#include "tir/stmt.h"
#include "topi/depthwise_conv2d_int8.h"
#include "topi/x86/schedule.h"
#include "topi/x86/schedule_util.h"

namespace tessera::topi::x86 {

// Output columns whose int32 accumulators a row tile keeps in vector registers (8 of 16 lanes).
constexpr int64_t kMaxTileColumns = 128;

Applicability scheduleDepthwiseConv2dInt8(tir::Schedule& sch, const ScheduleOptions& options) {
  const std::string anchor = "depthwise_conv2d_int8";
  inlineElementwise(sch, {anchor, "pad_temp"});
  std::optional<tir::BlockRV> conv = findBlock(sch, anchor);
  std::optional<tir::BlockRV> pad = findBlock(sch, "pad_temp");
  std::optional<tir::BlockRV> out = soleOutputBlock(sch);
  if (!conv || !pad || !out || sch.get(*out)->id == sch.get(*conv)->id)
    return notApplicable(anchor, "the kernel needs one padding, one conv2d and one output stage");
  if (sch.get(*conv)->iterVars.size() != 6) return notApplicable(anchor, "unexpected conv2d");
  std::vector<tir::LoopRV> outer = sch.getLoops(*out);  // n, c, h, w
  if (outer.size() != 4) return notApplicable(anchor, "the output is not NCHW");
  const std::optional<int64_t> channels = extentOf(sch, outer[1]), rows = extentOf(sch, outer[2]);
  const std::optional<int64_t> columns = extentOf(sch, outer[3]);
  if (!channels || !rows || !columns) return notApplicable(anchor, "symbolic shape");

  // One output row at a time, in tiles of whole rows (up to 128 columns) whose accumulators stay
  // in registers across the unrolled taps: vectors of 16 lanes and a remainder, which LLVM
  // splits; the row's output stage right after it.
  sch.computeAt(*conv, outer[2], /*preserveUnitLoops=*/true);
  std::vector<tir::LoopRV> tile = innerLoops(sch, *conv, 3);  // n, c, oh, ow, ry, rx
  if (tile.size() != 6) return notApplicable(anchor, "unexpected loops below the row");
  const int64_t width =
      *columns <= kMaxTileColumns ? *columns : largestDivisorAtMost(*columns, kMaxTileColumns / 2);
  std::vector<tir::LoopRV> ow = sch.split(tile[3], {std::monostate{}, width});
  sch.reorder({ow[0], tile[4], tile[5], ow[1]});
  tir::BlockRV init = sch.decomposeReduction(*conv, tile[4]);
  sch.vectorize(sch.getLoops(init).back());
  sch.unroll(tile[4]);
  sch.unroll(tile[5]);
  sch.vectorize(ow[1]);
  sch.vectorize(outer[3]);
  // The channel's padded plane before its first row, a row of a phase per vector (the edges
  // masked).
  sch.computeAt(*pad, outer[1], /*preserveUnitLoops=*/true);
  // The phases unrolled: each phase's column mask is then a constant vector, where computed per
  // row it was most of a strided layer's time on AVX2 (57 lanes of comparisons packed to bytes).
  std::vector<tir::LoopRV> padLoops = sch.getLoops(*pad);
  sch.vectorize(padLoops.back());
  sch.unroll(padLoops[padLoops.size() - 2]);
  if (*channels * *rows * *columns >= options.minParallelWork)
    parallelTiles(sch, {outer[0], outer[1]}, options.numCores);
  return Applicability::yes();
}

}  // namespace tessera::topi::x86
