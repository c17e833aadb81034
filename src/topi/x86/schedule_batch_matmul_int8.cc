// x86 schedule of the int8 batch_matmul (topi/batch_matmul_int8.h) on AVX-512 VNNI: per batch,
// the output is tiled into register blocks of up to 8 rows x 32 columns whose int32 accumulators
// stay in vector registers over the whole reduction; its innermost 16 lanes x 4 bytes are one
// vpdpbusd (topi/x86/tensor_intrin.h), as the int8 dense's. The epilogue is inlined into the
// output stage; the repacking of both operands (and a run-time B's compensation) are stages of
// their own, left to the generic steps.
#include "tir/stmt.h"
#include "topi/batch_matmul_int8.h"
#include "topi/nn_int8.h"
#include "topi/x86/schedule.h"
#include "topi/x86/schedule_util.h"
#include "topi/x86/tensor_intrin.h"

namespace tessera::topi::x86 {

Applicability scheduleBatchMatmulInt8(tir::Schedule& sch, const ScheduleOptions& options) {
  const std::string anchor = "batch_matmul_int8";
  registerTensorIntrinsics();
  inlineElementwise(sch, {anchor, "a_u8", "b_s8"});
  std::optional<tir::BlockRV> product = findBlock(sch, anchor);
  std::optional<tir::BlockRV> out = soleOutputBlock(sch);
  if (!product || !out) return notApplicable(anchor, "the kernel needs one product and one output");
  const tir::BlockNode* p = sch.get(*product);
  if (p->iterVars.size() != 6) return notApplicable(anchor, "unexpected accumulator");
  int64_t reduction = 1;
  for (const tir::IterVar& iv : p->iterVars)
    if (iv.type != tir::IterVarType::kDataPar)
      if (const int64_t* e = tir::asConstInt(iv.dom.extent)) reduction *= *e;
  std::vector<tir::LoopRV> loops = sch.getLoops(*out);
  if (loops.size() != 3) return notApplicable(anchor, "the output is not (batch, M, N)");
  const std::optional<int64_t> batch = extentOf(sch, loops[0]);
  const std::optional<int64_t> rows = extentOf(sch, loops[1]), columns = extentOf(sch, loops[2]);
  if (!batch || !rows || !columns) return notApplicable(anchor, "symbolic shape");

  // Two blocks of 16 columns per tile where they divide N: 16 independent accumulators hide
  // vpdpbusd's latency, and each broadcast group of A feeds two products.
  // The accumulators' rows (M, or M rounded up to whole tiles: the last tile then computes rows
  // the output does not read).
  const int64_t* accRows = tir::asConstInt(p->iterVars[1].dom.extent);
  if (!accRows) return notApplicable(anchor, "symbolic shape");
  const int64_t mr = largestDivisorAtMost(*accRows, kInt8BatchRows);
  const int64_t nr = *columns % (2 * kInt8Lanes) == 0 ? 2 * kInt8Lanes : kInt8Lanes;
  std::vector<tir::LoopRV> j = sch.split(loops[2], {std::monostate{}, nr});
  std::vector<tir::LoopRV> i = sch.split(loops[1], {std::monostate{}, mr});
  sch.reorder({loops[0], j[0], i[0], i[1], j[1]});
  sch.computeAt(*product, i[0], /*preserveUnitLoops=*/true);

  // Below the tile loops (batch, j[0], i[0]): b, i, jo, lane, then rc, rk.
  std::vector<tir::LoopRV> tile = innerLoops(sch, *product, 3);
  if (tile.size() != 6) return notApplicable(anchor, "unexpected loops below the tile");
  sch.reorder({tile[4], tile[1], tile[2], tile[3], tile[5]});
  tir::BlockRV init = sch.decomposeReduction(*product, tile[4]);
  sch.unroll(tile[1]);
  sch.unroll(tile[2]);
  sch.tensorize(tile[3], kVnniDot16x4);
  vectorizeTile(sch, innerLoops(sch, init, 4));  // below the tile loops and b

  // Batches alone in parallel when there are enough: the tile loops then stay loops of their
  // own, which LoopPartition splits where rows or columns that are not whole tiles leave their
  // output stage a condition (the main part then vectorizes).
  if (*batch * *rows * *columns * reduction < options.minParallelWork) return Applicability::yes();
  if (*batch >= options.numCores)
    parallelTiles(sch, {loops[0]}, options.numCores);
  else
    parallelTiles(sch, {loops[0], j[0], i[0]}, options.numCores);
  return Applicability::yes();
}

}  // namespace tessera::topi::x86
