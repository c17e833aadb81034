// x86 schedule of the AMX int8 convolution (topi/nn_int8_amx.h): per block of 32 output channels,
// the accumulators of every pixel are zeroed and then computed by one AMX tensor intrinsic
// (topi/x86/tensor_intrin_amx.cc: units of 32 channels x 32 pixels over the whole reduction), and
// the output stage (the epilogue: requantization, clip, cast, inlined) reads them back while they
// are in cache, a row of pixels per vector. The blocks of channels run in parallel. The data
// repacking is a stage of its own, a row of the (phase) image per vector.
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
  // when not 1x1), quadruple.
  const size_t iters = block->iterVars.size();
  if (iters < 5 || iters > 8) return notApplicable(anchor, "unexpected accumulator");
  std::vector<tir::LoopRV> loops = sch.getLoops(*out);
  if (loops.size() != 4) return notApplicable(anchor, "the output is not NCHW");
  const std::optional<int64_t> channels = extentOf(sch, loops[1]);
  const std::optional<int64_t> height = extentOf(sch, loops[2]), width = extentOf(sch, loops[3]);
  if (!channels || !height || !width || *channels % kAmxUnit != 0)
    return notApplicable(anchor, "symbolic shape or channels not in blocks of 32");

  // The geometry the compute was built with (the accumulator block carries it).
  const std::optional<AmxConvGeometry> geometry =
      amxGeometryOf(block->annotations.find(kAmxGeometryAnnotation));
  if (!geometry || geometry->outHeight != *height || geometry->outWidth != *width)
    return notApplicable(anchor, "the accumulator does not carry its geometry");
  const AmxConvGeometry g = *geometry;
  // The data's dtype: the repacking reads it (int8 or uint8) into words.
  DataType dataDtype = DataType::int8();
  for (const tir::BufferRegion& r : sch.get(*data)->reads)
    if (r.buffer->dtype == DataType::uint8()) dataDtype = DataType::uint8();
  const std::string intrin = amxConvIntrinsic(g, dataDtype);

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
  // The accumulators are zeroed first (below n, co, n: units, block, lane, a unit's pixels as one
  // vector), then one intrinsic computes every unit.
  tir::BlockRV init = sch.decomposeReduction(*conv, m[0]);
  sch.tensorize(m[0], intrin);
  std::vector<tir::LoopRV> zero = innerLoops(sch, init, 3);
  if (!zero.empty()) sch.vectorize(zero.back());

  // The epilogue writes whole rows: vector loops over the columns (a row of up to 64 is one).
  const int64_t lanes = *width <= 64 ? *width : largestDivisorAtMost(*width, 64);
  std::vector<tir::LoopRV> col = sch.split(loops[3], {std::monostate{}, lanes});
  sch.vectorize(col[1]);
  const bool parallel =
      *channels * g.pixels * g.steps * kAmxStepChannels >= options.minParallelWork;
  if (parallel) parallelTiles(sch, {loops[0], co[0]}, options.numCores);

  // The repacking, a row of the image at a time: n, group, (phase,) row, then the row's columns as
  // vectors (masked loads where the padding is).
  std::vector<tir::LoopRV> repack = sch.getLoops(*data);
  if (repack.size() != 3) return notApplicable(anchor, "unexpected repacking loops");
  tir::LoopRV pixels = repack[2];
  if (g.stride > 1) pixels = sch.split(pixels, {std::monostate{}, g.phasePixels})[1];
  std::vector<tir::LoopRV> row = sch.split(pixels, {std::monostate{}, g.pitch});
  const int64_t rowLanes = g.pitch <= 64 ? g.pitch : largestDivisorAtMost(g.pitch, 64);
  sch.vectorize(sch.split(row[1], {std::monostate{}, rowLanes})[1]);
  if (parallel) parallelTiles(sch, {repack[0], repack[1]}, options.numCores);
  return Applicability::yes();
}

}  // namespace tessera::topi::x86
