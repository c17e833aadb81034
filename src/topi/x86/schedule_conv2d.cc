// x86 schedule of the packed NCHW conv2d (topi/nn_packed.cc): the output is tiled into blocks of
// ob output channels x owb output columns of one row; each block's accumulators (ob lanes per
// column: one vector register each) are computed over the whole reduction (input channels x
// kernel window: one broadcast input value against one weight vector per step), then the
// epilogue writes the block out in NCHW. Rows of blocks run in parallel. The plain conv2d
// (depthwise, grouped, channels that do not pack) is computed one output row at a time instead.
#include "tir/schedule/attempt.h"
#include "tir/stmt.h"
#include "topi/x86/schedule.h"
#include "topi/x86/schedule_util.h"

namespace tessera::topi::x86 {

// owb columns x ob lanes: at most 14 vector accumulators, beside the weight panel and the
// broadcast input.
int64_t packedConvColumns(int64_t width, int64_t block, const ScheduleOptions& options) {
  const int64_t vectors = vectorsOf(block, options);
  const int64_t budget = accumulatorBudget(options.vectorRegisters, vectors + 1, 14);
  return largestDivisorAtMost(width, std::max<int64_t>(1, budget / vectors));
}

Applicability scheduleConv2dPacked(tir::Schedule& sch, const ScheduleOptions& options) {
  inlineElementwise(sch, {"conv2d_nchw_pack", "pad_temp"});
  std::optional<tir::BlockRV> conv = findBlock(sch, "conv2d_nchw_pack");
  std::optional<tir::BlockRV> out = soleOutputBlock(sch);
  if (!conv || !out)
    return notApplicable("conv2d_nchw_pack", "the kernel needs one conv2d and one output");
  const tir::BlockNode* c = sch.get(*conv);
  if (c->writes.size() != 1 || c->writes[0].buffer->ndim() != 5 || c->iterVars.size() != 8)
    return notApplicable("conv2d_nchw_pack", "unexpected accumulator");
  const int64_t* obPtr = tir::asConstInt(c->writes[0].buffer->shape[4]);
  std::vector<tir::LoopRV> loops = sch.getLoops(*out);
  if (!obPtr || loops.size() != 4)
    return notApplicable("conv2d_nchw_pack", "the output is not NCHW");
  const int64_t ob = *obPtr;
  int64_t reduction = 1;  // `c` dies with the first transformation
  for (const tir::IterVar& iv : c->iterVars)
    if (iv.type != tir::IterVarType::kDataPar)
      if (const int64_t* e = tir::asConstInt(iv.dom.extent)) reduction *= *e;
  const std::optional<int64_t> channels = extentOf(sch, loops[1]), width = extentOf(sch, loops[3]);
  if (!channels || !width || *channels % ob != 0)
    return notApplicable("conv2d_nchw_pack", "channels are not whole blocks");

  const int64_t owb = packedConvColumns(*width, ob, options);
  std::vector<tir::LoopRV> oc = sch.split(loops[1], {std::monostate{}, ob});
  std::vector<tir::LoopRV> ow = sch.split(loops[3], {std::monostate{}, owb});
  sch.reorder({oc[0], loops[2], ow[0], oc[1], ow[1]});
  sch.computeAt(*conv, ow[0], /*preserveUnitLoops=*/true);

  // Below the tile loops (n, oc[0], h, ow[0]): n, oc, oh, ow, ob, then rc, ry, rx.
  std::vector<tir::LoopRV> tile = sch.getLoops(*conv);
  if (tile.size() != 4 + 8)
    return notApplicable("conv2d_nchw_pack", "unexpected loops below the tile");
  const tir::LoopRV column = tile[7], lane = tile[8], rc = tile[9], ry = tile[10], rx = tile[11];
  sch.reorder({rc, ry, rx, column, lane});
  tir::BlockRV init = sch.decomposeReduction(*conv, rc);
  vectorizeTile(sch, {column, lane});
  vectorizeTile(sch, innerLoops(sch, init, 4));  // below the tile loops

  if (*channels * *width * reduction >= options.minParallelWork)
    parallelTiles(sch, {loops[0], oc[0], loops[2]}, options.numCores);
  return Applicability::yes();
}

}  // namespace tessera::topi::x86

namespace tessera::topi::x86 {

Applicability scheduleConv2dDirect(tir::Schedule& sch, const ScheduleOptions& options) {
  inlineElementwise(sch, {"conv2d_nchw", "pad_temp"});
  std::optional<tir::BlockRV> conv = findBlock(sch, "conv2d_nchw");
  std::optional<tir::BlockRV> out = soleOutputBlock(sch);
  if (!conv || !out)
    return notApplicable("conv2d_nchw", "the kernel needs one conv2d and one output");
  if (sch.get(*conv)->iterVars.size() != 7)
    return notApplicable("conv2d_nchw", "unexpected conv2d block");
  // Without an epilogue the conv2d block is the output and accumulates in place.
  const bool inPlace = sch.get(*out)->id == sch.get(*conv)->id;
  std::vector<tir::LoopRV> outer = sch.getLoops(*out);
  if (outer.size() < 4) return notApplicable("conv2d_nchw", "the output is not NCHW");
  outer.resize(4);
  std::optional<int64_t> width = extentOf(sch, outer[3]);
  if (!width) return notApplicable("conv2d_nchw", "symbolic width");
  if (!inPlace) sch.computeAt(*conv, outer[2], /*preserveUnitLoops=*/true);
  // Strided: pad the few input rows one output row needs right before it (in cache) rather than
  // the whole input up front, which is as much work as the arithmetic. At stride 1 every input
  // row would be padded three times, which costs more than it saves.
  std::optional<tir::BlockRV> pad = findBlock(sch, "pad_temp");
  const tir::BlockNode* padBlock = pad ? sch.get(*pad) : nullptr;
  const int64_t* paddedWidth =
      padBlock && !padBlock->writes.empty() && padBlock->writes[0].buffer->ndim() == 4
          ? tir::asConstInt(padBlock->writes[0].buffer->shape[3])
          : nullptr;
  if (pad && paddedWidth && *paddedWidth >= 2 * *width) {
    // When the rows cannot be padded in place, the padding keeps its own stage.
    tir::attempt(sch, [&](tir::Schedule& s) {
      s.computeAt(*pad, outer[2], /*preserveUnitLoops=*/true);
      return Applicability::yes();
    });
  }
  // One output row per step: the window loops outside, the row's columns innermost, where LLVM
  // vectorizes them (each step reads a contiguous or strided input row).
  std::vector<tir::LoopRV> loops = sch.getLoops(*conv);
  if (loops.size() < 4) return notApplicable("conv2d_nchw", "unexpected loops");
  const std::vector<tir::LoopRV> inner(loops.end() - 4, loops.end());  // w, rc, ry, rx
  sch.reorder({inner[1], inner[2], inner[3], inner[0]});
  tir::BlockRV init = sch.decomposeReduction(*conv, inner[1]);
  // Rows are short (7 to 112 columns): vectorize them whole.
  sch.vectorize(inner[0]);
  sch.vectorize(sch.getLoops(init).back());
  if (!inPlace) sch.vectorize(outer[3]);
  parallelTiles(sch, {outer[0], outer[1], outer[2]}, options.numCores);
  return Applicability::yes();
}

}  // namespace tessera::topi::x86
