// x86 schedules of the blocked convolutions that x86's AlterOpLayout makes
// (relay/strategy/x86/alter_layout.cc): data NCHW[x]c, so one output pixel's channel block is one
// vector register. The output is tiled into rows of owb pixels of one channel block; each tile's
// accumulators (owb vectors) are computed over the whole reduction, then the epilogue (bias,
// clip, residual add) writes the tile. For the dense conv2d_NCHWc a reduction step broadcasts one
// input value against one weight vector; for the depthwise one a step multiplies an input vector
// (a pixel's channel block) by a tap's weight vector. Padding of a depthwise input is done one
// channel block at a time, right before the block's rows are computed (in cache).
#include "tir/schedule/attempt.h"
#include "topi/x86/schedule.h"
#include "topi/x86/schedule_util.h"

namespace tessera::topi::x86 {
namespace {

struct BlockedTile {
  std::vector<tir::LoopRV> outer;  ///< the output's n, chunk, row loops
  tir::LoopRV column, lane;        ///< the accumulator tile below the reduction loops
  std::vector<tir::LoopRV> reduction;
  int64_t work = 0;  ///< output elements times reduction steps
};

/// Splits the output's columns into register tiles, computes `conv` per tile and puts its
/// reduction loops outside the tile's; nullopt when the kernel is not of that shape. With
/// `sharedInputs` (the dense conv, whose reduction step broadcasts one input value per column)
/// a tile spans up to two vector registers of channels (three 8-channel blocks with AVX-512), so
/// each broadcast feeds several FMAs.
std::optional<BlockedTile> tileBlocked(tir::Schedule& sch, const tir::BlockRV& conv,
                                       const tir::BlockRV& out, size_t reductionLoops,
                                       bool sharedInputs, const ScheduleOptions& options) {
  int64_t reduction = 1;  // read before the block changes
  for (const tir::IterVar& iv : sch.get(conv)->iterVars)
    if (iv.type != tir::IterVarType::kDataPar)
      if (const int64_t* e = tir::asConstInt(iv.dom.extent)) reduction *= *e;
  std::vector<tir::LoopRV> loops = sch.getLoops(out);
  if (loops.size() != 5 || sch.get(conv)->iterVars.size() != 5 + reductionLoops)
    return std::nullopt;
  const std::optional<int64_t> chunks = extentOf(sch, loops[1]), height = extentOf(sch, loops[2]);
  const std::optional<int64_t> width = extentOf(sch, loops[3]), block = extentOf(sch, loops[4]);
  if (!chunks || !height || !width || !block) return std::nullopt;
  const int64_t lanes = std::max<int64_t>(1, options.vectorBytes / 4);
  const int64_t vectorsPerPixel = (*block + lanes - 1) / lanes;
  // Beside the accumulators: the weight vectors of a step and the broadcast input (dense), or one
  // weight and one input vector (depthwise). Several channel blocks per tile unless a single one
  // gets more accumulators into the registers (a 7-column row with AVX2's 16: 7 against 2).
  auto columnsFor = [&](int64_t tileChunks) {
    const int64_t perColumn = vectorsPerPixel * tileChunks;
    const int64_t budget =
        accumulatorBudget(options.vectorRegisters, sharedInputs ? perColumn + 1 : 2, 14);
    return largestDivisorAtMost(*width, std::max<int64_t>(1, budget / perColumn));
  };
  int64_t tileChunks = 1;
  if (sharedInputs && vectorsPerPixel == 1) {
    const int64_t wide = largestDivisorAtMost(*chunks, *block * 2 >= lanes ? 2 : 3);
    if (wide * columnsFor(wide) >= columnsFor(1)) tileChunks = wide;
  }
  const int64_t owb = columnsFor(tileChunks);
  std::vector<tir::LoopRV> ow = sch.split(loops[3], {std::monostate{}, owb});
  tir::LoopRV chunk = loops[1];
  std::vector<tir::LoopRV> epilogue = {ow[1], loops[4]};
  if (tileChunks > 1) {
    std::vector<tir::LoopRV> c = sch.split(loops[1], {*chunks / tileChunks, tileChunks});
    sch.reorder({c[0], loops[2], ow[0], c[1], ow[1], loops[4]});
    chunk = c[0];
    epilogue.insert(epilogue.begin(), c[1]);
  }
  vectorizeTile(sch, epilogue);
  sch.computeAt(conv, ow[0], /*preserveUnitLoops=*/true);

  // Below the tile loops (n, chunk, row, ow[0]): the five spatial loops, then the reduction.
  std::vector<tir::LoopRV> tile = sch.getLoops(conv);
  if (tile.size() != 4 + 5 + reductionLoops) return std::nullopt;
  BlockedTile t{{loops[0], chunk, loops[2]}, tile[7], tile[8], {}, 0};
  t.reduction.assign(tile.begin() + 9, tile.end());
  t.work = *chunks * *height * *width * *block * reduction;
  // The accumulators: the tile's channel blocks (when more than one), columns and lanes.
  std::vector<tir::LoopRV> accumulators = {t.column, t.lane};
  if (tileChunks > 1) accumulators.insert(accumulators.begin(), tile[5]);
  std::vector<tir::LoopRV> order = t.reduction;
  order.insert(order.end(), accumulators.begin(), accumulators.end());
  sch.reorder(order);
  tir::BlockRV init = sch.decomposeReduction(conv, t.reduction.front());
  vectorizeTile(sch, accumulators);
  vectorizeTile(sch, innerLoops(sch, init, 4));  // below the tile loops
  return t;
}

}  // namespace

Applicability scheduleConv2dNCHWc(tir::Schedule& sch, const ScheduleOptions& options) {
  inlineElementwise(sch, {"conv2d_NCHWc", "data_pad"});
  std::optional<tir::BlockRV> conv = findBlock(sch, "conv2d_NCHWc");
  std::optional<tir::BlockRV> out = soleOutputBlock(sch);
  if (!conv || !out)
    return notApplicable("conv2d_NCHWc", "the kernel needs one conv and one output");
  std::optional<BlockedTile> t = tileBlocked(sch, *conv, *out, 4, /*sharedInputs=*/true, options);
  if (!t) return notApplicable("conv2d_NCHWc", "the output is not a static NCHW[x]c tensor");
  if (t->work >= options.minParallelWork) parallelTiles(sch, t->outer, options.numCores);
  return Applicability::yes();
}

Applicability scheduleDepthwiseConv2dNCHWc(tir::Schedule& sch, const ScheduleOptions& options) {
  const std::string anchor = "depthwise_conv2d_NCHWc";
  inlineElementwise(sch, {anchor, "data_pad"});
  std::optional<tir::BlockRV> conv = findBlock(sch, anchor);
  std::optional<tir::BlockRV> out = soleOutputBlock(sch);
  if (!conv || !out) return notApplicable(anchor, "the kernel needs one conv and one output");
  std::optional<BlockedTile> t = tileBlocked(sch, *conv, *out, 2, /*sharedInputs=*/false, options);
  if (!t) return notApplicable(anchor, "the output is not a static NCHW[x]c tensor");
  std::vector<tir::LoopRV> parallel = t->outer;
  if (std::optional<tir::BlockRV> pad = findBlock(sch, "data_pad")) {
    const Applicability placed = tir::attempt(sch, [&](tir::Schedule& s) {
      s.computeAt(*pad, t->outer[1], /*preserveUnitLoops=*/true);
      return Applicability::yes();
    });
    if (placed) {
      sch.vectorize(sch.getLoops(*pad).back());  // the channel block (not the row: unrolling
                                                 // a padded row made huge basic blocks)
      parallel.resize(2);                        // the padding sits between the chunk and row loops
    }
  }
  if (t->work >= options.minParallelWork) parallelTiles(sch, parallel, options.numCores);
  return Applicability::yes();
}

}  // namespace tessera::topi::x86
