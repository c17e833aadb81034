// The schedule steps VTA's GEMM operators (conv2d_packed, dense_packed) end with, after their
// tiling: the operand tiles loaded into SRAM per reduction step by DMA, the accumulator zeroed
// before the reduction by reset GEMMs, and both tensorized with VTA's GEMM intrinsics.
#pragma once

#include <string>
#include <vector>

#include "tir/schedule/schedule.h"
#include "vta/rt/config.h"

namespace tessera::vta {

/// Computes each of `operandCopies` (the SRAM copy blocks) at `reduction` with `pragma_dma_copy`
/// on the first of its `operandRank` own loops; splits the init of `gemm` off at `reduction`
/// (decompose_reduction); with `tensorize`, tensorizes the product at `tile` with vta.gemm and
/// the init with vta.gemm_reset (registering both for `config`).
void scheduleGemmCore(tir::Schedule& sch, const Config& config, const tir::BlockRV& gemm,
                      const std::vector<std::string>& operandCopies, const tir::LoopRV& reduction,
                      size_t operandRank, const tir::LoopRV& tile, bool tensorize);

}  // namespace tessera::vta
