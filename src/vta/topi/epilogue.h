// The requantize epilogue VTA's GEMM operators share (conv2d_packed, dense_packed): the
// element-wise integer operations after the int32 accumulation, one ALU stage each — immediates
// (shifts, add, max, min) and per-channel tensor additions loaded into the accumulator — then the
// int8 store. Here are its TE stages and the schedule steps every such operator applies to them.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "te/tensor.h"
#include "tir/function.h"
#include "tir/schedule/schedule.h"

namespace tessera::vta {

/// One element-wise integer operation after the accumulation, one ALU stage each, in order.
struct EpilogueOp {
  enum class Kind { kShiftRight, kShiftLeft, kAdd, kMax, kMin, kAddChannel };
  Kind kind;
  int64_t imm = 0;  ///< the immediate; unused by kAddChannel, whose operand is a parameter
};

/// Seed 004's epilogue: >> shift, max 0, min 127.
std::vector<EpilogueOp> defaultEpilogue(int64_t shift);

/// `op` applied to the int32 value `x` with its immediate (not for kAddChannel, whose operand is
/// a tensor): the element-wise expression of one ALU stage.
tir::PrimExpr applyImmediate(const EpilogueOp& op, const tir::PrimExpr& x);

/// The epilogue's stages: the operation, its stage name, and for kAddChannel its operand's
/// parameter name (the loaded copy is `<operand>_buf`).
struct EpilogueStage {
  EpilogueOp op;
  std::string name;
  std::string operand;
};
std::vector<EpilogueStage> epilogueStages(const std::vector<EpilogueOp>& ops);

/// Where a per-channel operand is read for an output element: its indices from the output's.
using OperandIndex = std::function<std::vector<tir::PrimExpr>(const std::vector<tir::Var>&)>;

/// The TE stages after `acc` (int32, shape `outShape`): one per stage of `stages`, each
/// kAddChannel operand an int32 parameter of `operandShape` (appended to `params`) copied into
/// `<operand>_buf`, then `res`, the int8 cast the store performs. Returns `res`.
te::Tensor appendEpilogue(const te::Tensor& acc, const std::vector<int64_t>& outShape,
                          const std::vector<EpilogueStage>& stages,
                          const std::vector<int64_t>& operandShape, const OperandIndex& index,
                          std::vector<te::Tensor>& params);

/// Attaches every epilogue stage (and operand copy) at `at`, from the last one backwards, unit
/// loops kept (as TE keeps them). The caller attaches the accumulation itself, after this.
void attachEpilogue(tir::Schedule& sch, const std::vector<EpilogueStage>& stages,
                    const tir::LoopRV& at);

/// Puts every epilogue stage and operand copy in the accumulator scope, the copies by DMA
/// (`pragma_dma_copy` on the first of their `operandRank` loops) and the operations on the ALU
/// (`pragma_alu` on the first of their `outRank` loops).
void annotateEpilogue(tir::Schedule& sch, const std::vector<EpilogueStage>& stages, size_t outRank,
                      size_t operandRank);

}  // namespace tessera::vta
