// VTA's element-wise operator on packed tensors (TVM's `schedule_alu_packed`): the integer
// operations graph packing leaves between convolutions — a residual add of two packed tensors,
// shifts, clips, relu — computed by VTA's ALU. Each operand is loaded into the accumulator by DMA
// (int8 tensors with ACC_8BIT loads, which sign-extend each lane), the operations run in place,
// and the store keeps the low byte (int8 result). Tiled over rows so the operands fit ACC.
#pragma once

#include <cstdint>
#include <vector>

#include "tir/function.h"
#include "vta/rt/config.h"
#include "vta/topi/conv2d_packed.h"

namespace tessera::vta {

/// The element-wise function: one or two packed operands (N/b, C/co, H, W, b, co), each int8 or
/// int32; with two, their sum; then the operations of `ops` (immediates only: shifts, add, max,
/// min), the result cast to int8.
struct AluPackedShape {
  std::vector<int64_t> shape;      ///< the packed 6-D shape of every operand and the result
  std::vector<DataType> operands;  ///< 1 or 2 operand dtypes (int8 or int32)
  std::vector<EpilogueOp> ops;     ///< kShiftRight/kShiftLeft/kAdd/kMax/kMin with immediates
};

/// create_prim_func of the TE graph: `a<k>_buf` (each operand in ACC), `res_sum` (with two
/// operands), one stage per operation (`res_shr`, `res_max`, ...), and `res`; parameters (the
/// operands..., res).
tir::PrimFunc aluPackedFunc(const Config& config, const AluPackedShape& shape);

/// The rows per tile (a divisor of H) such that the operands of one tile fit ACC; DiagnosticError
/// (code "vta_schedule") when not even one row fits.
int64_t aluPackedTileRows(const Config& config, const AluPackedShape& shape);

/// The schedule: rows tiled by aluPackedTileRows, every stage computed per tile in ACC, operand
/// loads and the store by DMA, the operations on the ALU.
void scheduleAluPacked(tir::Schedule& sch, const Config& config, const AluPackedShape& shape);

}  // namespace tessera::vta
