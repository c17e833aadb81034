// VTA's GEMM tensor intrinsics for `tensorize` (spec vta.md §6.3): one tile
// `out[i, j] += int32(inp[i, k]) * int32(wgt[j, k])` of BATCH x BLOCK_OUT x BLOCK_IN, replaced by
// one GEMM micro-op inside the accelerator's compute queue, and its reset for the reduction's
// initialisation (tensorize refuses blocks with an init, so the init block is tensorized on its
// own once `decompose_reduction` has split it off).
#pragma once

#include <string>

#include "vta/rt/config.h"

namespace tessera::vta {

/// The intrinsic names for a configuration: "vta.gemm" / "vta.gemm_reset" for the default
/// (1x16x16) shape, suffixed with the shape otherwise ("vta.gemm_2x16x16").
std::string gemmIntrinName(const Config& config);
std::string gemmResetIntrinName(const Config& config);

/// Registers both intrinsics for `config` (once per shape). The implementations are
///   attr [vta] "coproc_scope" = 2
///     attr [vta] "coproc_uop_scope" = "VTAPushGEMMOp"
///       vta.uop_push(0, reset, out.access_ptr, inp.access_ptr, wgt.access_ptr, 0, 0, 0)
/// with `tir.tvm_access_ptr(data, elem_offset, extent, mask)` naming the matched tile in its
/// (SRAM) buffer; the lowering turns addresses into entry indices (§6.8).
void registerGemmIntrinsics(const Config& config);

}  // namespace tessera::vta
