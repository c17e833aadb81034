// x86 schedule of the AMX int8 convolution (topi/nn_int8_amx.h): per block of 32 output channels,
// the accumulators of every pixel are computed in units of 32 channels x 32 pixels, each unit one
// AMX tensor intrinsic over the whole reduction (topi/x86/tensor_intrin_amx.cc), then the output
// stage (the epilogue: requantization, clip, cast, inlined) reads them back while they are in L2,
// a row of pixels per vector loop. The blocks of channels run in parallel. The data repacking is a
// stage of its own, left to the generic steps.
#include "tir/stmt.h"
#include "topi/nn_int8_amx.h"
#include "topi/x86/schedule.h"
#include "topi/x86/schedule_util.h"
#include "topi/x86/tensor_intrin.h"

namespace tessera::topi::x86 {

Applicability scheduleConv2dInt8Amx(tir::Schedule& sch, const ScheduleOptions& options) {
  const std::string anchor = "conv2d_int8_amx";
  inlineElementwise(sch, {anchor, "data_amx"});
  std::optional<tir::BlockRV> conv = findBlock(sch, anchor);
  std::optional<tir::BlockRV> data = findBlock(sch, "data_amx");
  std::optional<tir::BlockRV> out = soleOutputBlock(sch);
  if (!conv || !data || !out)
    return notApplicable(anchor, "the kernel needs its repacking, one conv2d and one output");
  const tir::BlockNode* block = sch.get(*conv);
  // n, block, lane, pixel, then the reduction: channel chunk (when more than one), tap (ky, kx;
  // when not 1x1), quadruple, byte.
  const size_t iters = block->iterVars.size();
  if (iters < 6 || iters > 9) return notApplicable(anchor, "unexpected accumulator");
  auto extent = [&](size_t i) -> int64_t {
    const int64_t* e = tir::asConstInt(block->iterVars[i].dom.extent);
    return e ? *e : 0;
  };
  std::vector<tir::LoopRV> loops = sch.getLoops(*out);
  if (loops.size() != 4) return notApplicable(anchor, "the output is not NCHW");
  const std::optional<int64_t> channels = extentOf(sch, loops[1]);
  const std::optional<int64_t> height = extentOf(sch, loops[2]), width = extentOf(sch, loops[3]);
  if (!channels || !height || !width || *channels % kAmxUnit != 0)
    return notApplicable(anchor, "symbolic shape or channels not in blocks of 32");

  // The geometry the compute was built with, read back from the shapes.
  AmxConvGeometry g;
  const bool taps = iters == 9 || iters == 8;
  const bool chunks = iters == 9 || iters == 7;
  const int64_t chunkCount = chunks ? extent(4) : 1;
  const size_t tap = chunks ? 5 : 4;
  g.kh = taps ? extent(tap) : 1;
  g.kw = taps ? extent(tap + 1) : 1;
  g.groups = chunkCount * kAmxTileRows;
  g.steps = chunkCount * g.kh * g.kw;
  g.blocks = extent(1);
  g.pixels = extent(3);
  g.outHeight = *height;
  g.outWidth = *width;
  g.pitch = g.outWidth + g.kw - 1;
  g.reach = (g.kh - 1) * g.pitch + g.kw - 1;
  g.dataPixels = g.pixels + g.reach;
  if (g.pixels % kAmxUnit != 0 || g.groups == 0)
    return notApplicable(anchor, "the accumulator is not in units of 32 pixels");
  const std::string intrin = amxConvIntrinsic(g, sch.get(*data)->writes.at(0).buffer->dtype);

  // Output: n, channel block of 32, its channels, rows, columns; the accumulators of a block are
  // computed under it.
  std::vector<tir::LoopRV> co = sch.split(loops[1], {std::monostate{}, kAmxUnit});
  sch.computeAt(*conv, co[0], /*preserveUnitLoops=*/true);
  // Below (n, co): n, block, lane, pixel, then the reduction.
  std::vector<tir::LoopRV> unit = innerLoops(sch, *conv, 2);
  if (unit.size() != iters) return notApplicable(anchor, "unexpected loops below the block");
  // The pixels the output reads need not fill the last unit: it computes past them (the
  // accumulator has room for whole units), so the split is not predicated.
  std::vector<tir::LoopRV> m = sch.split(unit[3], {std::monostate{}, kAmxUnit},
                                         /*preserveUnitIters=*/true, /*disablePredication=*/true);
  std::vector<tir::LoopRV> order = {m[0], unit[1], unit[2], m[1]};
  order.insert(order.end(), unit.begin() + 4, unit.end());
  sch.reorder(order);
  tir::BlockRV init = sch.decomposeReduction(*conv, unit[1]);
  sch.tensorize(unit[1], intrin);
  vectorizeTile(sch, innerLoops(sch, init, 4));  // below n, co, n, m[0]: block, lane, pixel

  // The epilogue writes whole rows: vector loops over the columns.
  const int64_t lanes = largestDivisorAtMost(*width, kAmxTileRows);
  std::vector<tir::LoopRV> col = sch.split(loops[3], {std::monostate{}, lanes});
  sch.vectorize(col[1]);
  if (*channels * g.pixels * g.steps * kAmxStepChannels >= options.minParallelWork)
    parallelTiles(sch, {loops[0], co[0]}, options.numCores);
  return Applicability::yes();
}

}  // namespace tessera::topi::x86
