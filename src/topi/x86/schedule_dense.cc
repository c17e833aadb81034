// x86 schedule of the packed dense (topi/nn_packed.cc): the output is tiled into mr x nr blocks
// (nr = the packed weight's lane count), each block's accumulators are computed in place over
// the whole reduction (mr rows broadcast against nr contiguous weights per step: an outer-product
// micro-kernel that LLVM keeps in vector registers), then the epilogue (bias, activation, ...)
// writes the block out. Tiles run in parallel, consecutive tiles sharing one weight panel.
// With few rows (a batch-1 classifier head) one block is one chain of dependent FMAs over the
// whole reduction, bound by the FMA's latency rather than by reading the weight: such a tile
// takes several column blocks, each its own chain, all advanced by one broadcast per step.
#include "tir/stmt.h"
#include "topi/x86/schedule.h"
#include "topi/x86/schedule_util.h"

namespace tessera::topi::x86 {

int64_t packedDenseRows(int64_t rows, int64_t block, const ScheduleOptions& options) {
  return tileExtent(rows, broadcastRowLimit(block, options));
}

namespace {

// Independent accumulator chains a tile wants: enough to cover the FMA latency (4 cycles) on
// two FMA pipes.
constexpr int64_t kLatencyChains = 8;

// Column blocks per tile: 1 unless mr rows give fewer than kLatencyChains chains; then a divisor
// of the column blocks that brings them up (within the register budget), leaving at least two
// tiles per core to run in parallel.
int64_t denseColumnBlocks(int64_t mr, int64_t nr, int64_t columnBlocks,
                          const ScheduleOptions& options) {
  const int64_t chains = mr * vectorsOf(nr, options);
  if (chains >= kLatencyChains) return 1;
  const int64_t budget = accumulatorBudget(options.vectorRegisters, 2, 16) / chains;
  int64_t limit = std::min((kLatencyChains + chains - 1) / chains, budget);
  limit = std::min(limit, std::max<int64_t>(1, columnBlocks / (2 * options.numCores)));
  return largestDivisorAtMost(columnBlocks, std::max<int64_t>(1, limit));
}

}  // namespace

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
  const int64_t nb = denseColumnBlocks(mr, nr, *n / nr, options);
  tir::LoopRV row = loops[rank - 2];
  if (rank - 1 - batch > 1)
    row = sch.fuse({loops.begin() + static_cast<long>(batch), loops.end() - 1});
  std::vector<tir::LoopRV> j = sch.split(loops[rank - 1], {std::monostate{}, nb * nr});
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
  // Every access to the accumulators is by whole nr-lane vectors (the column loop as (block,
  // lane) where a tile has several blocks): LLVM keeps them in registers only when the
  // initialization, the update and the output stage slice them alike.
  const auto byBlock = [&](std::vector<tir::LoopRV> loops) {
    if (nb > 1) {
      std::vector<tir::LoopRV> columns = sch.split(loops.back(), {nb, nr});
      loops.back() = columns[0];
      loops.push_back(columns[1]);
    }
    return loops;
  };
  vectorizeTile(sch, byBlock({tile.begin(), tile.end() - 1}));
  vectorizeTile(sch, byBlock(innerLoops(sch, init, outer)));
  vectorizeTile(sch, byBlock({j[1]}));

  std::vector<tir::LoopRV> tiles(loops.begin(), loops.begin() + static_cast<long>(batch));
  tiles.push_back(j[0]);
  if (rows % mr == 0 || parallelRows) tiles.push_back(i[0]);
  if (rows * *n * depth >= options.minParallelWork) parallelTiles(sch, tiles, options.numCores);
  return Applicability::yes();
}

}  // namespace tessera::topi::x86
