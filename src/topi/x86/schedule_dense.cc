// x86 schedule of the packed dense (topi/nn_packed.cc): the output is tiled into mr x nr blocks
// (nr = the packed weight's lane count), each block's accumulators are computed in place over
// the whole reduction (mr rows broadcast against nr contiguous weights per step: an outer-product
// micro-kernel that LLVM keeps in vector registers), then the epilogue (bias, activation, ...)
// writes the block out. Tiles run in parallel, consecutive tiles sharing one weight panel.
#include "tir/stmt.h"
#include "topi/x86/schedule.h"
#include "topi/x86/schedule_util.h"

namespace tessera::topi::x86 {

int64_t packedDenseRows(int64_t rows, int64_t block, const ScheduleOptions& options) {
  return tileExtent(rows, broadcastRowLimit(block, options));
}

Applicability scheduleDensePacked(tir::Schedule& sch, const ScheduleOptions& options,
                                  const std::string& tileBlock) {
  if (tileBlock.empty()) inlineElementwise(sch, {"T_dense_pack", "T_pack_b"});
  std::optional<tir::BlockRV> dense = findBlock(sch, "T_dense_pack");
  std::optional<tir::BlockRV> out =
      tileBlock.empty() ? soleOutputBlock(sch) : findBlock(sch, tileBlock);
  if (!dense || !out)
    return notApplicable("dense_pack", "the kernel needs one dense and one output");
  const tir::BlockNode* d = sch.get(*dense);
  if (d->reads.size() != 2 || d->reads[1].buffer->ndim() < 3)
    return notApplicable("dense_pack", "no packed weight");
  const int64_t* nrPtr = tir::asConstInt(d->reads[1].buffer->shape.back());
  const size_t rank = d->iterVars.size() - 1;  // spatial dims; the last iter var is k
  std::vector<tir::LoopRV> loops = sch.getLoops(*out);
  if (!nrPtr || loops.size() != rank || rank < 2)
    return notApplicable("dense_pack", "the output is not the dense's shape");
  const int64_t nr = *nrPtr;
  const int64_t* depthPtr = tir::asConstInt(d->iterVars.back().dom.extent);
  const int64_t depth = depthPtr ? *depthPtr : 1;  // `d` dies with the first transformation
  // The rows: with a weight shared by all rows (a dense), every leading dim of the output is a
  // row dim and they are fused into one; a batched product keeps its batch loops outside.
  const bool sharedWeight = d->reads[1].buffer->ndim() == 3;
  const size_t batch = sharedWeight ? 0 : rank - 2;  // loops outside the row loop
  int64_t rows = 1;
  for (size_t r = batch; r + 1 < rank; ++r) {
    const std::optional<int64_t> e = extentOf(sch, loops[r]);
    if (!e) return notApplicable("dense_pack", "symbolic shape");
    rows *= *e;
  }
  const std::optional<int64_t> n = extentOf(sch, loops[rank - 1]);
  if (!n || *n % nr != 0)
    return notApplicable("dense_pack", "the output columns are not whole weight blocks");

  // A partial last row tile needs the row loop outside the threads' loop, which then takes the
  // batch loops and the column blocks only: enough of them, else whole row tiles.
  int64_t outerTiles = *n / nr;
  for (size_t b = 0; b < batch; ++b) outerTiles *= extentOf(sch, loops[b]).value_or(1);
  const bool parallelRows = options.numCores > 1 && outerTiles < 2 * options.numCores;
  int64_t mr = packedDenseRows(rows, nr, options);
  if (rows % mr != 0 && parallelRows)
    mr = largestDivisorAtMost(rows, broadcastRowLimit(nr, options));
  tir::LoopRV row = loops[rank - 2];
  if (rank - 1 - batch > 1)
    row = sch.fuse({loops.begin() + static_cast<long>(batch), loops.end() - 1});
  std::vector<tir::LoopRV> j = sch.split(loops[rank - 1], {std::monostate{}, nr});
  std::vector<tir::LoopRV> i = sch.split(row, {std::monostate{}, mr});
  sch.reorder({j[0], i[0], i[1], j[1]});
  sch.computeAt(*dense, i[0], /*preserveUnitLoops=*/true);

  // Below the tile loops: one loop per spatial dim of the accumulator (unit ones kept), then k.
  // k goes outermost so that the mr x nr accumulators stay in registers across the reduction.
  const size_t outer = batch + 2;  // the batch loops, j[0] and i[0]
  std::vector<tir::LoopRV> tile = innerLoops(sch, *dense, outer);
  if (tile.size() != rank + 1)
    return notApplicable("dense_pack", "unexpected loops below the tile");
  std::vector<tir::LoopRV> order{tile[rank]};
  order.insert(order.end(), tile.begin(), tile.end() - 1);
  sch.reorder(order);
  tir::BlockRV init = sch.decomposeReduction(*dense, tile[rank]);
  vectorizeTile(sch, {tile.begin(), tile.end() - 1});
  vectorizeTile(sch, innerLoops(sch, init, outer));
  sch.vectorize(j[1]);

  std::vector<tir::LoopRV> tiles(loops.begin(), loops.begin() + static_cast<long>(batch));
  tiles.push_back(j[0]);
  if (rows % mr == 0 || parallelRows) tiles.push_back(i[0]);
  if (rows * *n * depth >= options.minParallelWork) parallelTiles(sch, tiles, options.numCores);
  return Applicability::yes();
}

}  // namespace tessera::topi::x86
