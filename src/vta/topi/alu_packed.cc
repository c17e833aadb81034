// VTA's element-wise operator on packed tensors (alu_packed.h).
#include "vta/topi/alu_packed.h"

#include "support/diagnostic.h"
#include "te/create_prim_func.h"
#include "te/tensor.h"

namespace tessera::vta {

using tir::PrimExpr;

namespace {

std::vector<PrimExpr> toExprs(const std::vector<tir::Var>& vars) {
  return {vars.begin(), vars.end()};
}

const char* stageName(EpilogueOp::Kind kind) {
  switch (kind) {
    case EpilogueOp::Kind::kShiftRight:
      return "res_shr";
    case EpilogueOp::Kind::kShiftLeft:
      return "res_shl";
    case EpilogueOp::Kind::kAdd:
      return "res_add";
    case EpilogueOp::Kind::kMax:
      return "res_max";
    case EpilogueOp::Kind::kMin:
      return "res_min";
    case EpilogueOp::Kind::kAddChannel:
      break;
  }
  throwDiagnostic("vta_schedule", "alu_packed: per-channel operands belong to conv2d_packed");
}

std::vector<std::string> stageNames(const AluPackedShape& s) {
  std::vector<std::string> names;
  for (size_t k = 0; k < s.ops.size(); ++k)
    names.push_back(std::string(stageName(s.ops[k].kind)) + "_" + std::to_string(k));
  return names;
}

}  // namespace

tir::PrimFunc aluPackedFunc(const Config& c, const AluPackedShape& s) {
  if (s.shape.size() != 6 || s.shape[4] != c.batch() || s.shape[5] != c.blockOut())
    throwDiagnostic("vta_schedule", "alu_packed: operands must be packed (N/b, C/co, H, W, " +
                                        std::to_string(c.batch()) + ", " +
                                        std::to_string(c.blockOut()) + ")");
  if (s.operands.empty() || s.operands.size() > 2)
    throwDiagnostic("vta_schedule", "alu_packed: one or two operands");
  const DataType i32 = DataType::int32();
  std::vector<te::Tensor> params;
  std::vector<te::Tensor> loaded;
  for (size_t k = 0; k < s.operands.size(); ++k) {
    const te::Tensor p = te::placeholder(s.shape, s.operands[k], "a" + std::to_string(k));
    params.push_back(p);
    loaded.push_back(te::compute(
        s.shape, [&](const std::vector<tir::Var>& i) { return tir::cast(i32, p(toExprs(i))); },
        "a" + std::to_string(k) + "_buf"));
  }
  te::Tensor last = loaded[0];
  if (loaded.size() == 2) {
    const te::Tensor x = loaded[0], y = loaded[1];
    last = te::compute(
        s.shape, [&](const std::vector<tir::Var>& i) { return x(toExprs(i)) + y(toExprs(i)); },
        "res_sum");
  }
  const std::vector<std::string> names = stageNames(s);
  for (size_t k = 0; k < s.ops.size(); ++k) {
    const EpilogueOp op = s.ops[k];
    const te::Tensor in = last;
    last = te::compute(
        s.shape, [&](const std::vector<tir::Var>& i) { return applyImmediate(op, in(toExprs(i))); },
        names[k]);
  }
  const te::Tensor res = te::compute(
      s.shape,
      [&](const std::vector<tir::Var>& i) { return tir::cast(DataType::int8(), last(toExprs(i))); },
      "res");
  params.push_back(res);
  return te::createPrimFunc(params);
}

int64_t aluPackedTileRows(const Config& c, const AluPackedShape& s) {
  const int64_t h = s.shape[2], w = s.shape[3];
  const int64_t perRow = w * static_cast<int64_t>(s.operands.size());
  for (int64_t rows = h; rows >= 1; --rows)
    if (h % rows == 0 && rows * perRow <= c.accBuffDepth()) return rows;
  throwDiagnostic("vta_schedule", "alu_packed: one row of " + std::to_string(w) + " columns for " +
                                      std::to_string(s.operands.size()) +
                                      " operands does not fit the accumulator (" +
                                      std::to_string(c.accBuffDepth()) + " entries)");
}

void scheduleAluPacked(tir::Schedule& sch, const Config& c, const AluPackedShape& s) {
  using tir::BlockRV;
  using tir::LoopRV;
  const int64_t rows = aluPackedTileRows(c, s);
  auto pragma = [&](const LoopRV& loop, const char* name) {
    sch.annotate(loop, std::string("pragma_") + name, AttrValue::integer(1));
  };
  auto ownFirst = [&](const BlockRV& block) {
    std::vector<LoopRV> all = sch.getLoops(block);
    return all.at(all.size() - 6);
  };
  const BlockRV res = sch.getBlock("res");
  const std::vector<LoopRV> axes = sch.getLoops(res);
  const std::vector<LoopRV> y = sch.split(axes[2], {std::monostate{}, rows});
  // Every stage per row tile, attached from the last one backwards.
  std::vector<std::string> stages;
  for (size_t k = 0; k < s.operands.size(); ++k) stages.push_back("a" + std::to_string(k) + "_buf");
  if (s.operands.size() == 2) stages.push_back("res_sum");
  for (const std::string& n : stageNames(s)) stages.push_back(n);
  for (auto it = stages.rbegin(); it != stages.rend(); ++it)
    sch.computeAt(sch.getBlock(*it), y[0], /*preserveUnitLoops=*/true);
  for (const std::string& name : stages) {
    const BlockRV block = sch.getBlock(name);
    sch.setScope(block, 0, "local.acc_buffer");
    pragma(ownFirst(block),
           name.size() > 4 && name.substr(name.size() - 4) == "_buf" ? "dma_copy" : "alu");
  }
  pragma(y[1], "dma_copy");
}

}  // namespace tessera::vta
