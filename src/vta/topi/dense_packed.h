// VTA's packed dense layer at the tensor level (TVM's vta/top/vta_dense.py): the TE definition of
// `dense_packed` with the requantize epilogue conv2d_packed supports (epilogue.h), and TVM's
// default schedule in TensorIR primitives with its autotvm knobs — output tiles over batch and
// output-channel blocks, the K reduction split, SRAM scopes for every stage, `dma_copy` and `alu`
// pragmas, the GEMM tensor intrinsic and virtual threads on the output channels.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "tir/function.h"
#include "tir/schedule/schedule.h"
#include "vta/rt/config.h"
#include "vta/topi/epilogue.h"

namespace tessera::vta {

/// The layer: data (N/b, K/ci, b, ci) int8, weight (O/co, K/ci, co, ci) int8, result
/// (N/b, O/co, b, co) int8 = the epilogue applied to the int32 product, the store keeping the low
/// byte. The default epilogue is >> shift, max 0, min 127. kAddChannel operands are int32
/// parameters of shape (O/co, b, co), after the weight.
struct DensePackedShape {
  int64_t batch = 1, inFeatures = 256, outFeatures = 256;
  int64_t shift = 8;
  std::optional<std::vector<EpilogueOp>> epilogue;

  std::vector<EpilogueOp> epilogueOps() const;
};

/// The schedule's knobs (TVM's autotvm space for dense_packed): output tiles in packed units
/// (batch blocks, output-channel blocks), K blocks per reduction step, and virtual threads over
/// output-channel tiles.
struct DensePackedKnobs {
  int64_t tileB = 1, tileCo = 1, tileCi = 1;
  int64_t ocThreads = 1;
};

/// A default that fits the SRAMs: two virtual threads when the output-channel blocks are even,
/// then the largest tile_co (fewest re-reads of the data), the largest tile_b (fewest re-reads of
/// the weights) and the largest tile_ci (fewest DMA steps) whose accumulator (with its per-channel
/// operands), input and weight tiles, times the threads, fit ACC, INP and WGT. DiagnosticError
/// (code "vta_schedule") when not even one block fits.
DensePackedKnobs defaultDensePackedKnobs(const Config& config, const DensePackedShape& shape);

/// create_prim_func of the TE graph: stages data_buf and weight_buf (the SRAM copies), res_gemm
/// (the int32 product), one stage per epilogue operation (per-channel operands loaded into
/// `bias<k>_buf`), and res, with parameters (data, weight, operands..., res).
tir::PrimFunc densePackedFunc(const Config& config, const DensePackedShape& shape);

/// Applies TVM's dense_packed schedule with `knobs` (registering the GEMM intrinsics for
/// `config`), the reduction split outermost in the product's nest (see the .cc). With `tensorize`
/// false the GEMM and reset blocks stay loops (the schedule then runs on the reference evaluator).
/// DiagnosticError (code "vta_schedule") naming the knob when the knobs do not tile the shape or
/// the shape is not whole VTA blocks.
void scheduleDensePacked(tir::Schedule& sch, const Config& config, const DensePackedShape& shape,
                         const DensePackedKnobs& knobs, bool tensorize = true);

}  // namespace tessera::vta
