// decompose_reduction: the init block, its loops, naming, and the preconditions.
#include "schedule_test_util.h"

namespace tessera::tir {
namespace {

using testing::expectSameResults;
using testing::scheduleError;

TEST(ScheduleDecompose, AtTheReductionLoop) {
  PrimFunc f = testing::matmul(8, 8, 8);
  Schedule sch(f, 1);
  BlockRV c = sch.getBlock("C");
  std::vector<LoopRV> l = sch.getLoops(c);
  BlockRV init = sch.decomposeReduction(c, l[2]);
  EXPECT_EQ(sch.get(init)->name, "C_init");
  EXPECT_EQ(sch.get(c)->name, "C_update");
  EXPECT_EQ(sch.get(c)->init, nullptr);
  EXPECT_EQ(sch.getLoops(init).size(), 2u);  // i, j: no loop below k is needed
  expectSameResults(f, sch.func());
}

TEST(ScheduleDecompose, AtTheOutermostLoopCopiesLoops) {
  PrimFunc f = testing::matmul(4, 6, 5);
  Schedule sch(f, 1);
  BlockRV c = sch.getBlock("C");
  std::vector<LoopRV> l = sch.getLoops(c);
  BlockRV init = sch.decomposeReduction(c, l[0]);
  std::vector<LoopRV> initLoops = sch.getLoops(init);
  ASSERT_EQ(initLoops.size(), 2u);
  EXPECT_EQ(sch.get(initLoops[0])->loopVar->name, "i_init");
  EXPECT_EQ(sch.get(initLoops[1])->loopVar->name, "j_init");
  expectSameResults(f, sch.func());
}

TEST(ScheduleDecompose, Errors) {
  Schedule sch(testing::matmul(8, 8, 8), 1);
  BlockRV c = sch.getBlock("C");
  std::vector<LoopRV> l = sch.getLoops(c);
  sch.reorder({l[2], l[1]});  // i, k, j: j is below the reduction loop
  EXPECT_NE(
      scheduleError([&] { sch.decomposeReduction(c, l[1]); }).find("below the reduction loop 'k'"),
      std::string::npos);
  Schedule ew(testing::addOne(8), 1);
  BlockRV b = ew.getBlock("B");
  EXPECT_NE(scheduleError([&] {
              ew.decomposeReduction(b, ew.getLoops(b)[0]);
            }).find("is not a reduction block"),
            std::string::npos);
}

}  // namespace
}  // namespace tessera::tir

namespace tessera::tir {
namespace {

// Seed 002's matmul after j -> [16, 8], reorder i, j_0, k, j_1 and decompose at k (spec §3.6).
TEST(ScheduleDecompose, SeedMatmulGolden) {
  Schedule sch(testing::matmul(), 1);
  BlockRV c = sch.getBlock("C", "main");
  std::vector<LoopRV> l = sch.getLoops(c);
  std::vector<LoopRV> j = sch.split(l[1], {int64_t{16}, int64_t{8}});
  sch.reorder({l[0], j[0], l[2], j[1]});
  sch.decomposeReduction(c, l[2]);
  EXPECT_EQ(
      toScript(sch.func()),
      "@T.prim_func\n"
      "def main(A: T.Buffer((128, 128), \"float32\"), B: T.Buffer((128, 128), \"float32\"), C: "
      "T.Buffer((128, 128), \"float32\")):\n"
      "    T.func_attr({\"tir.noalias\": T.bool(True)})\n"
      "    # with T.block(\"root\"):\n"
      "    for i, j_0 in T.grid(128, 16):\n"
      "        for j_1_init in range(8):\n"
      "            with T.block(\"C_init\"):\n"
      "                vi = T.axis.spatial(128, i)\n"
      "                vj = T.axis.spatial(128, j_0 * 8 + j_1_init)\n"
      "                T.reads()\n"
      "                T.writes(C[vi, vj])\n"
      "                C[vi, vj] = T.float32(0.0)\n"
      "        for k, j_1 in T.grid(128, 8):\n"
      "            with T.block(\"C_update\"):\n"
      "                vi = T.axis.spatial(128, i)\n"
      "                vj = T.axis.spatial(128, j_0 * 8 + j_1)\n"
      "                vk = T.axis.reduce(128, k)\n"
      "                T.reads(C[vi, vj], A[vi, vk], B[vk, vj])\n"
      "                T.writes(C[vi, vj])\n"
      "                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]\n");
}

// preserve_unit_iters=False lets a unit loop vanish from the bindings.
TEST(ScheduleDecompose, FuseWithoutUnitItersDropsUnitLoop) {
  PrimFunc f = testing::scale2d(4, 1);
  Schedule sch(f, 1);
  sch.fuse(sch.getLoops(sch.getBlock("B")), false);
  std::string text = toScript(sch.func());
  EXPECT_NE(text.find("vi = T.axis.spatial(4, i_j_fused)"), std::string::npos) << text;
  EXPECT_NE(text.find("vj = T.axis.spatial(1, 0)"), std::string::npos) << text;
  testing::expectSameResults(f, sch.func());
}

}  // namespace
}  // namespace tessera::tir
