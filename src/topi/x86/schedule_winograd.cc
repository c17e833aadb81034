// x86 schedule of the Winograd conv2d (topi/nn_winograd.cc). The input transform reads each 4x4
// patch once per channel and writes its 16 transformed values (loops over them unrolled, so the
// transform's select chains fold to the additions of B^T d B); the 16 products are a batched
// packed dense (schedule_dense.cc) tiled into its `T_dense` copy; the output transform unrolls
// its 2x2 loops the same way and reads the products along their contiguous channels. Padding and
// the NCHW output with its epilogue get the generic parallel loops.
#include "tir/stmt.h"
#include "topi/x86/schedule.h"
#include "topi/x86/schedule_util.h"

namespace tessera::topi::x86 {

Applicability scheduleConv2dWinograd(tir::Schedule& sch, const ScheduleOptions& options) {
  inlineElementwise(
      sch, {"pad_temp", "T_winograd_input", "T_dense_pack", "T_dense", "T_winograd_output"});
  std::optional<tir::BlockRV> input = findBlock(sch, "T_winograd_input");
  std::optional<tir::BlockRV> output = findBlock(sch, "T_winograd_output");
  if (!input || !output) return notApplicable("conv2d_winograd", "missing transforms");

  // (eps, nu, c, tile) -> (c, tile, eps, nu): one patch, all 16 values.
  std::vector<tir::LoopRV> in = sch.getLoops(*input);
  if (in.size() != 4) return notApplicable("conv2d_winograd", "unexpected input loops");
  sch.reorder({in[2], in[3], in[0], in[1]});
  sch.unroll(in[0]);
  sch.unroll(in[1]);
  parallelTiles(sch, {in[2]}, options.numCores);

  if (Applicability products = scheduleDensePacked(sch, options, "T_dense"); !products)
    return products;

  // (n, k, ty, tx, i, j) -> (n, ty, tx, k, i, j): the products are (tile, k) with k contiguous,
  // so k goes inside the tile loops; the 2x2 outputs of a tile are unrolled.
  std::vector<tir::LoopRV> out = sch.getLoops(*output);
  if (out.size() != 6) return notApplicable("conv2d_winograd", "unexpected output loops");
  sch.reorder({out[2], out[3], out[1]});
  sch.unroll(out[4]);
  sch.unroll(out[5]);
  parallelTiles(sch, {out[0], out[2]}, options.numCores);
  return Applicability::yes();
}

}  // namespace tessera::topi::x86
