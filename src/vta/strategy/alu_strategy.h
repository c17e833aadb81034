// VTA's strategy for element-wise functions of packed tensors (issue 25 item 1: the ALU-mappable
// ops add, right_shift, left_shift, maximum, minimum, clip, nn.relu and the casts the ALU path
// absorbs): a fused function whose operands and result are packed (N/b, C/co, H, W, b, co)
// integer tensors and whose body is a chain VTA's ALU computes becomes an alu_packed kernel.
#pragma once

#include <optional>
#include <vector>

#include "relay/expr.h"
#include "tir/function.h"
#include "vta/rt/config.h"
#include "vta/topi/alu_packed.h"

namespace tessera::vta {

struct VtaAluKernel {
  AluPackedShape shape;
  std::vector<int> operandParams;  ///< the function parameter behind each operand
};

/// The chain of `fn` when VTA's ALU can compute it, else nullopt (the function is the CPU's):
/// the result is int8, each operand a packed int8 or int32 parameter (cast to int32 or not), at
/// most two operands (added), every other operation one with an immediate.
std::optional<VtaAluKernel> readAluKernel(const relay::Function& fn, const Config& config);

/// The kernel scheduled (scheduleAluPacked) and lowered with VTA's passes, for runOnVta or, after
/// lowerVtaHostIntrin, the CPU code generator.
tir::PrimFunc compileAluKernel(const VtaAluKernel& kernel, const Config& config);

}  // namespace tessera::vta
