// VTA's packed 2-D convolution at the tensor level (spec vta.md §7.1, §8.4): the TE definition of
// `conv2d_packed` with the requantize tail seed 004 uses (>> shift, clip, cast to int8), and its
// TensorIR schedule — seed 004's, step for step, with §8.4's knobs: output tiles, the channel
// reduction split, SRAM scopes for every stage, `dma_copy` and `alu` pragmas, the GEMM tensor
// intrinsic and virtual threads on the output channels.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tir/function.h"
#include "tir/schedule/schedule.h"
#include "vta/rt/config.h"
#include "vta/topi/epilogue.h"

namespace tessera::vta {

/// The layer: data (N/b, C/ci, H, W, b, ci) int8, kernel (O/co, C/ci, kh, kw, co, ci) int8,
/// result (N/b, O/co, OH, OW, b, co) int8 = the epilogue applied to the int32 convolution, the
/// store keeping the low byte. The default epilogue is seed 004's: >> shift, max 0, min 127.
/// kAddChannel operands are int32 parameters of shape (O/co, 1, 1, b, co), after the kernel.
struct Conv2dPackedShape {
  int64_t batch = 1, inChannels = 256, height = 14, width = 14, outChannels = 256;
  int64_t kernel = 3, pad = 1, stride = 1;
  int64_t shift = 8;  ///< env.INP_WIDTH in seed 004
  std::optional<std::vector<EpilogueOp>> epilogue;

  std::vector<EpilogueOp> epilogueOps() const;
};

/// The schedule's knobs (TVM's autotvm space for conv2d_packed, defaults = seed 004's choices):
/// output tiles in packed units (batch blocks, output-channel blocks, rows, columns), input-channel
/// blocks per reduction step, and virtual threads over output channels and rows.
struct Conv2dPackedKnobs {
  int64_t tileB = 1, tileCo = 8, tileH = 7, tileW = 14, tileCi = 1;
  int64_t ocThreads = 2, hThreads = 1;
};

/// The epilogue's stages of this layer (epilogue.h).
std::vector<EpilogueStage> epilogueStages(const Conv2dPackedShape& shape);

/// TVM's fallback for a layer without a tuned record, made to fit the SRAMs: whole output rows
/// (tile_w = output width), one input-channel block per reduction step, two virtual threads over
/// output channels when there are at least two channel tiles, and the largest tile_h x tile_co
/// whose accumulator, input and weight tiles (times the threads) fit ACC, INP and WGT.
/// DiagnosticError (code "vta_schedule") when not even one row fits.
Conv2dPackedKnobs defaultConv2dPackedKnobs(const Config& config, const Conv2dPackedShape& shape);

/// create_prim_func of the seed's TE graph: stages data_buf (padding), kernel_buf (copy),
/// res_conv, one stage per epilogue operation (res_shr, res_max, res_min for the seed's;
/// per-channel operands loaded into `bias<k>_buf`), and res, with parameters (data, kernel,
/// operands..., res).
tir::PrimFunc conv2dPackedFunc(const Config& config, const Conv2dPackedShape& shape);

/// Applies seed 004's schedule with `knobs` (registering the GEMM intrinsics for `config`). With
/// `tensorize` false the GEMM and reset blocks stay loops (the schedule can then run on the
/// reference evaluator). Throws the schedule's DiagnosticError when the knobs do not tile the
/// shape.
void scheduleConv2dPacked(tir::Schedule& sch, const Config& config, const Conv2dPackedShape& shape,
                          const Conv2dPackedKnobs& knobs, bool tensorize = true);

}  // namespace tessera::vta
