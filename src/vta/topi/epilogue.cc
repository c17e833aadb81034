// The requantize epilogue of VTA's GEMM operators (epilogue.h).
#include "vta/topi/epilogue.h"

#include <map>

#include "support/diagnostic.h"
#include "te/create_prim_func.h"

namespace tessera::vta {

using tir::PrimExpr;

namespace {

std::vector<PrimExpr> toExprs(const std::vector<tir::Var>& vars) {
  return {vars.begin(), vars.end()};
}

// The loops a block owns after compute_at: the last `rank` of its loops.
tir::LoopRV firstOwnLoop(tir::Schedule& sch, const tir::BlockRV& block, size_t rank) {
  const std::vector<tir::LoopRV> all = sch.getLoops(block);
  return all.at(all.size() - rank);
}

void pragma(tir::Schedule& sch, const tir::LoopRV& loop, const char* name) {
  sch.annotate(loop, std::string("pragma_") + name, AttrValue::integer(1));
}

}  // namespace

std::vector<EpilogueOp> defaultEpilogue(int64_t shift) {
  using K = EpilogueOp::Kind;
  return {{K::kShiftRight, shift}, {K::kMax, 0}, {K::kMin, 127}};
}

PrimExpr applyImmediate(const EpilogueOp& op, const PrimExpr& x) {
  const DataType i32 = DataType::int32();
  const PrimExpr imm = tir::intImm(op.imm);
  switch (op.kind) {
    case EpilogueOp::Kind::kShiftRight:
      return tir::call(i32, "tir.shift_right", {x, imm});
    case EpilogueOp::Kind::kShiftLeft:
      return tir::call(i32, "tir.shift_left", {x, imm});
    case EpilogueOp::Kind::kAdd:
      return x + imm;
    case EpilogueOp::Kind::kMax:
      return tir::max(x, imm);
    case EpilogueOp::Kind::kMin:
      return tir::min(x, imm);
    case EpilogueOp::Kind::kAddChannel:
      break;
  }
  throwDiagnostic("vta_schedule", "a per-channel addition has a tensor operand, not an immediate");
}

std::vector<EpilogueStage> epilogueStages(const std::vector<EpilogueOp>& ops) {
  std::vector<EpilogueStage> out;
  std::map<std::string, int> used;
  int operands = 0;
  for (const EpilogueOp& op : ops) {
    static const char* const kNames[] = {"res_shr", "res_shl", "res_add",
                                         "res_max", "res_min", "res_bias"};
    std::string name = kNames[static_cast<int>(op.kind)];
    if (const int n = used[name]++) name += "_" + std::to_string(n);
    std::string operand;
    if (op.kind == EpilogueOp::Kind::kAddChannel) operand = "bias" + std::to_string(operands++);
    out.push_back({op, name, operand});
  }
  return out;
}

te::Tensor appendEpilogue(const te::Tensor& acc, const std::vector<int64_t>& outShape,
                          const std::vector<EpilogueStage>& stages,
                          const std::vector<int64_t>& operandShape, const OperandIndex& index,
                          std::vector<te::Tensor>& params) {
  const DataType i32 = DataType::int32();
  te::Tensor last = acc;
  for (const EpilogueStage& stage : stages) {
    const EpilogueOp op = stage.op;
    te::Tensor operand;
    if (op.kind == EpilogueOp::Kind::kAddChannel) {
      const te::Tensor p = te::placeholder(operandShape, i32, stage.operand);
      params.push_back(p);
      operand = te::compute(
          p.shape(), [&](const std::vector<tir::Var>& i) { return p(toExprs(i)); },
          stage.operand + "_buf");
    }
    const te::Tensor in = last;
    last = te::compute(
        outShape,
        [&](const std::vector<tir::Var>& i) -> PrimExpr {
          const PrimExpr x = in(toExprs(i));
          if (op.kind == EpilogueOp::Kind::kAddChannel) return x + operand(index(i));
          return applyImmediate(op, x);
        },
        stage.name);
  }
  return te::compute(
      outShape,
      [&](const std::vector<tir::Var>& i) { return tir::cast(DataType::int8(), last(toExprs(i))); },
      "res");
}

void attachEpilogue(tir::Schedule& sch, const std::vector<EpilogueStage>& stages,
                    const tir::LoopRV& at) {
  // TensorIR's compute_at moves a producer under a consumer's loop: consumers first.
  for (size_t k = stages.size(); k-- > 0;) {
    sch.computeAt(sch.getBlock(stages[k].name), at, /*preserveUnitLoops=*/true);
    if (!stages[k].operand.empty())
      sch.computeAt(sch.getBlock(stages[k].operand + "_buf"), at, /*preserveUnitLoops=*/true);
  }
}

void annotateEpilogue(tir::Schedule& sch, const std::vector<EpilogueStage>& stages, size_t outRank,
                      size_t operandRank) {
  for (const EpilogueStage& stage : stages) {
    const tir::BlockRV block = sch.getBlock(stage.name);
    sch.setScope(block, 0, "local.acc_buffer");
    pragma(sch, firstOwnLoop(sch, block, outRank), "alu");
    if (stage.operand.empty()) continue;
    const tir::BlockRV operand = sch.getBlock(stage.operand + "_buf");
    sch.setScope(operand, 0, "local.acc_buffer");
    pragma(sch, firstOwnLoop(sch, operand, operandRank), "dma_copy");
  }
}

}  // namespace tessera::vta
