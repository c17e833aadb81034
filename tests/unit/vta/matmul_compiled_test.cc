// VTA's matrix-multiply tutorial (spec vta.md §7.2) from the compiler: a 1x256 by 256x256 int8
// product in packed layouts, written in TE, scheduled as the tutorial schedules it (operand tiles
// in the input and weight SRAMs at the reduction axis, the accumulator in ACC, GEMM tensorization
// on the batch axis, DMA pragmas), lowered with VTA's passes and simulated: the tutorial's
// counters (256 / 65536 / 0 / 8 / 256 / 256 / 0) and 56 instructions, and the product truncated
// to int8 as the store does.
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace tessera::vta
