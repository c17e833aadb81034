// VTA's matrix-multiply tutorials (spec vta.md §7.2, §7.3) from the compiler. The first: a 1x256 by
// 256x256 int8 product in packed layouts, written in TE, scheduled as the tutorial schedules it
// (operand tiles in the input and weight SRAMs at the reduction axis, the accumulator in ACC, GEMM
// tensorization on the batch axis, DMA pragmas), lowered with VTA's passes and simulated: the
// tutorial's counters (256 / 65536 / 0 / 8 / 256 / 256 / 0) and 56 instructions, and the product
// truncated to int8 as the store does.
#include <gtest/gtest.h>

#include <functional>
#include <random>

#include "te/create_prim_func.h"
#include "te/reduce.h"
#include "te/tensor.h"
#include "tir/schedule/schedule.h"
#include "tir/transform/lower.h"
#include "vta/tir/gemm_intrin.h"
#include "vta/tir/host_program.h"
#include "vta/tir/passes.h"

namespace tessera::vta {
namespace {

using tir::PrimExpr;

std::vector<PrimExpr> exprs(const std::vector<tir::Var>& v) {
  return {v.begin(), v.end()};
}

tir::PrimFunc tutorialMatmul(const Config& c) {
  const int64_t n = 16, m = 16;  // 256 / BLOCK_IN input blocks, 256 / BLOCK_OUT output blocks
  const te::Tensor a = te::placeholder({1, n, c.batch(), c.blockIn()}, DataType::int8(), "A");
  const te::Tensor b = te::placeholder({m, n, c.blockOut(), c.blockIn()}, DataType::int8(), "B");
  const te::Tensor aBuf = te::compute(
      a.shape(), [&](const std::vector<tir::Var>& i) { return a(exprs(i)); }, "A_buf");
  const te::Tensor bBuf = te::compute(
      b.shape(), [&](const std::vector<tir::Var>& i) { return b(exprs(i)); }, "B_buf");
  const te::IterVar ko = te::reduceAxis(0, n, "ko");
  const te::IterVar ki = te::reduceAxis(0, c.blockIn(), "ki");
  const DataType i32 = DataType::int32();
  const te::Tensor cBuf = te::compute(
      {1, m, c.batch(), c.blockOut()},
      [&](tir::Var bo, tir::Var co, tir::Var bi, tir::Var ci) {
        return te::sum(tir::cast(i32, aBuf(bo, ko.var, bi, ki.var)) *
                           tir::cast(i32, bBuf(co, ko.var, ci, ki.var)),
                       {ko, ki});
      },
      "C_buf");
  const te::Tensor out = te::compute(
      cBuf.shape(),
      [&](const std::vector<tir::Var>& i) { return tir::cast(DataType::int8(), cBuf(exprs(i))); },
      "C");
  return te::createPrimFunc({a, b, out});
}

void scheduleTutorial(tir::Schedule& sch, const Config& config) {
  const tir::BlockRV aBuf = sch.getBlock("A_buf"), bBuf = sch.getBlock("B_buf");
  const tir::BlockRV cBuf = sch.getBlock("C_buf"), out = sch.getBlock("C");
  sch.setScope(aBuf, 0, "local.inp_buffer");
  sch.setScope(bBuf, 0, "local.wgt_buffer");
  sch.setScope(cBuf, 0, "local.acc_buffer");
  const std::vector<tir::LoopRV> l = sch.getLoops(cBuf);  // bo, co, bi, ci, ko, ki
  sch.reorder({l[4], l[0], l[1], l[2], l[3], l[5]});
  for (const tir::BlockRV& operand : {aBuf, bBuf}) {
    sch.computeAt(operand, l[4], /*preserveUnitLoops=*/true);
    sch.annotate(sch.getLoops(operand)[1], "pragma_dma_copy", AttrValue::integer(1));
  }
  sch.annotate(sch.getLoops(out)[0], "pragma_dma_copy", AttrValue::integer(1));
  const tir::BlockRV init = sch.decomposeReduction(cBuf, l[4]);
  registerGemmIntrinsics(config);
  sch.tensorize(l[2], gemmIntrinName(config));
  sch.tensorize(sch.getLoops(init).back(), gemmResetIntrinName(config));
}

TEST(VtaMatmulCompiled, TutorialCountersAndResult) {
  const Config cfg = Config::defaults();
  tir::Schedule sch(tutorialMatmul(cfg));
  scheduleTutorial(sch, cfg);
  tir::transform::PassContext ctx;
  addVtaLowerPasses(ctx, cfg);
  const tir::PrimFunc lowered = tir::transform::lower(sch.func(), ctx);

  std::mt19937 rng(3);
  std::uniform_int_distribution<int> lane(-128, 127);
  std::vector<int8_t> a(256), b(256 * 256);
  for (int8_t& v : a) v = int8_t(lane(rng));
  for (int8_t& v : b) v = int8_t(lane(rng));
  // Packed layouts: A (1, 16, 1, 16) is A itself; B (16 co, 16 ko, 16 ci, 16 ki) from (256 x 256).
  std::vector<int8_t> packedB(b.size());
  for (int64_t o = 0; o < 256; ++o)
    for (int64_t k = 0; k < 256; ++k)
      packedB[size_t(((o / 16) * 16 + k / 16) * 256 + (o % 16) * 16 + k % 16)] =
          b[size_t(o * 256 + k)];
  std::vector<int8_t> expected(256);
  for (int64_t o = 0; o < 256; ++o) {
    int32_t acc = 0;
    for (int64_t k = 0; k < 256; ++k)
      acc += int32_t(a[size_t(k)]) * int32_t(b[size_t(o * 256 + k)]);
    expected[size_t(o)] = int8_t(acc);  // the store keeps the low byte
  }
  CommandQueue q(cfg);
  const DeviceBuffer da = q.bufferAlloc(a.size()), db = q.bufferAlloc(b.size());
  const DeviceBuffer dc = q.bufferAlloc(256);
  q.bufferCopyIn(a.data(), da, 0, a.size());
  q.bufferCopyIn(packedB.data(), db, 0, packedB.size());
  runOnVta(lowered, q, {da, db, dc});
  std::vector<int8_t> result(256);
  q.bufferCopyOut(dc, 0, result.data(), result.size());
  EXPECT_EQ(result, expected);
  const Stats& s = q.stats();
  EXPECT_EQ(s.inpLoadNbytes, 256u);
  EXPECT_EQ(s.wgtLoadNbytes, 65536u);
  EXPECT_EQ(s.accLoadNbytes, 0u);
  EXPECT_EQ(s.uopLoadNbytes, 8u);
  EXPECT_EQ(s.outStoreNbytes, 256u);
  EXPECT_EQ(s.gemmCounter, 256u);
  EXPECT_EQ(s.aluCounter, 0u);
  EXPECT_EQ(q.lastRun().size(), 56u);
}

// The blocked tutorial (spec §7.3): 1x1024 by 1024x1024 in blocks of 256 (16 entries), >> 8 and
// clip to [0, 127] on the ALU; inputs re-read per output block, every weight read once.
tir::PrimFunc blockedMatmul(const Config& c) {
  const int64_t n = 64, m = 64;
  const te::Tensor a = te::placeholder({1, n, c.batch(), c.blockIn()}, DataType::int8(), "data");
  const te::Tensor b =
      te::placeholder({m, n, c.blockOut(), c.blockIn()}, DataType::int8(), "weight");
  const te::Tensor aBuf = te::compute(
      a.shape(), [&](const std::vector<tir::Var>& i) { return a(exprs(i)); }, "data_buf");
  const te::Tensor bBuf = te::compute(
      b.shape(), [&](const std::vector<tir::Var>& i) { return b(exprs(i)); }, "weight_buf");
  const te::IterVar ic = te::reduceAxis(0, n, "ic");
  const te::IterVar icT = te::reduceAxis(0, c.blockIn(), "ic_tns");
  const DataType i32 = DataType::int32();
  const std::vector<int64_t> shape = {1, m, c.batch(), c.blockOut()};
  const te::Tensor gemm = te::compute(
      shape,
      [&](tir::Var bo, tir::Var co, tir::Var bi, tir::Var ci) {
        return te::sum(tir::cast(i32, aBuf(bo, ic.var, bi, icT.var)) *
                           tir::cast(i32, bBuf(co, ic.var, ci, icT.var)),
                       {ic, icT});
      },
      "res_gem");
  auto stage = [&](const te::Tensor& in, const char* name, std::function<PrimExpr(PrimExpr)> f) {
    return te::compute(
        shape, [&](const std::vector<tir::Var>& i) { return f(in(exprs(i))); }, name);
  };
  const te::Tensor shf = stage(gemm, "res_shf", [](PrimExpr v) {
    return tir::call(v->dtype, "tir.shift_right", {v, tir::intImm(8)});
  });
  const te::Tensor mx =
      stage(shf, "res_max", [](PrimExpr v) { return tir::max(v, tir::intImm(0)); });
  const te::Tensor mn =
      stage(mx, "res_min", [](PrimExpr v) { return tir::min(v, tir::intImm(127)); });
  const te::Tensor res =
      stage(mn, "res", [](PrimExpr v) { return tir::cast(DataType::int8(), v); });
  return te::createPrimFunc({a, b, res});
}

void scheduleBlocked(tir::Schedule& sch, const Config& config) {
  const tir::BlockRV res = sch.getBlock("res");
  const std::vector<tir::LoopRV> axes = sch.getLoops(res);  // b, oc, b_tns, oc_tns
  const std::vector<tir::LoopRV> oc = sch.split(axes[1], {std::monostate{}, int64_t{16}});
  for (const char* stage : {"res_min", "res_max", "res_shf", "res_gem"})
    sch.computeAt(sch.getBlock(stage), oc[0], /*preserveUnitLoops=*/true);
  sch.setScope(sch.getBlock("data_buf"), 0, "local.inp_buffer");
  sch.setScope(sch.getBlock("weight_buf"), 0, "local.wgt_buffer");
  for (const char* stage : {"res_gem", "res_shf", "res_max", "res_min"})
    sch.setScope(sch.getBlock(stage), 0, "local.acc_buffer");
  const tir::BlockRV gemm = sch.getBlock("res_gem");
  std::vector<tir::LoopRV> g = sch.getLoops(gemm);  // ..., b_inn, oc_inn, b_tns, oc_tns, ic, ic_tns
  const size_t base = g.size() - 6;
  const std::vector<tir::LoopRV> ic = sch.split(g[base + 4], {std::monostate{}, int64_t{16}});
  sch.reorder({ic[0], g[base], g[base + 1], ic[1], g[base + 2], g[base + 3], g[base + 5]});
  for (const char* stage : {"data_buf", "weight_buf"}) {
    const tir::BlockRV block = sch.getBlock(stage);
    sch.computeAt(block, ic[0], /*preserveUnitLoops=*/true);
    const std::vector<tir::LoopRV> l = sch.getLoops(block);
    sch.annotate(l[l.size() - 4], "pragma_dma_copy", AttrValue::integer(1));
  }
  sch.annotate(axes[2], "pragma_dma_copy", AttrValue::integer(1));
  const tir::BlockRV init = sch.decomposeReduction(gemm, ic[0]);
  registerGemmIntrinsics(config);
  sch.tensorize(g[base + 2], gemmIntrinName(config));
  sch.tensorize(sch.getLoops(init).back(), gemmResetIntrinName(config));
  for (const char* stage : {"res_shf", "res_max", "res_min"}) {
    const std::vector<tir::LoopRV> l = sch.getLoops(sch.getBlock(stage));
    sch.annotate(l[l.size() - 4], "pragma_alu", AttrValue::integer(1));
  }
}

TEST(VtaMatmulCompiled, BlockedTutorialCountersAndResult) {
  const Config cfg = Config::defaults();
  tir::Schedule sch(blockedMatmul(cfg));
  scheduleBlocked(sch, cfg);
  tir::transform::PassContext ctx;
  addVtaLowerPasses(ctx, cfg);
  const tir::PrimFunc lowered = tir::transform::lower(sch.func(), ctx);

  std::mt19937 rng(4);
  std::uniform_int_distribution<int> lane(-128, 127);
  std::vector<int8_t> a(1024), b(1024 * 1024);
  for (int8_t& v : a) v = int8_t(lane(rng));
  for (int8_t& v : b) v = int8_t(lane(rng));
  std::vector<int8_t> packedB(b.size());
  for (int64_t o = 0; o < 1024; ++o)
    for (int64_t k = 0; k < 1024; ++k)
      packedB[size_t(((o / 16) * 64 + k / 16) * 256 + (o % 16) * 16 + k % 16)] =
          b[size_t(o * 1024 + k)];
  std::vector<int8_t> expected(1024);
  for (int64_t o = 0; o < 1024; ++o) {
    int32_t acc = 0;
    for (int64_t k = 0; k < 1024; ++k)
      acc += int32_t(a[size_t(k)]) * int32_t(b[size_t(o * 1024 + k)]);
    expected[size_t(o)] = int8_t(std::min(std::max(acc >> 8, 0), 127));
  }
  CommandQueue q(cfg);
  const DeviceBuffer da = q.bufferAlloc(a.size()), db = q.bufferAlloc(b.size());
  const DeviceBuffer dc = q.bufferAlloc(1024);
  q.bufferCopyIn(a.data(), da, 0, a.size());
  q.bufferCopyIn(packedB.data(), db, 0, packedB.size());
  runOnVta(lowered, q, {da, db, dc});
  std::vector<int8_t> result(1024);
  q.bufferCopyOut(dc, 0, result.data(), result.size());
  EXPECT_EQ(result, expected);
  const Stats& s = q.stats();
  EXPECT_EQ(s.inpLoadNbytes, 4096u);
  EXPECT_EQ(s.wgtLoadNbytes, 1048576u);
  EXPECT_EQ(s.accLoadNbytes, 0u);
  EXPECT_EQ(s.uopLoadNbytes, 20u);
  EXPECT_EQ(s.outStoreNbytes, 1024u);
  EXPECT_EQ(s.gemmCounter, 4096u);
  EXPECT_EQ(s.aluCounter, 192u);
}

}  // namespace
}  // namespace tessera::vta
