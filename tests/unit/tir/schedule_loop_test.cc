// Loop primitives: split, fuse, reorder, add_unit_loop, parallel/vectorize/unroll/bind,
// annotate/unannotate. Each positive case checks the printed IR and runs the function before and
// after with the reference evaluator; each negative case checks the error message.
#include "schedule_test_util.h"

namespace tessera::tir {
namespace {

using testing::expectSameResults;
using testing::scheduleError;

// The text of the single block's realize and its loops, for compact golden checks.
std::string script(const Schedule& sch) {
  return toScript(sch.func());
}

TEST(ScheduleSplit, InfersFactorAndAddsPredicate) {
  PrimFunc f = testing::addOne(128);
  Schedule sch(f, 1);
  LoopRV i = sch.getLoops(sch.getBlock("B"))[0];
  std::vector<LoopRV> parts = sch.split(i, {std::monostate{}, int64_t{10}});
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(sch.get(parts[0])->loopVar->name, "i_0");
  EXPECT_TRUE(isConstInt(sch.get(parts[0])->extent, 13));
  EXPECT_TRUE(isConstInt(sch.get(parts[1])->extent, 10));
  std::string text = script(sch);
  EXPECT_NE(text.find("for i_0, i_1 in T.grid(13, 10):"), std::string::npos) << text;
  EXPECT_NE(text.find("vi = T.axis.spatial(128, i_0 * 10 + i_1)"), std::string::npos) << text;
  EXPECT_NE(text.find("T.where(i_0 * 10 + i_1 < 128)"), std::string::npos) << text;
  expectSameResults(f, sch.func());
  EXPECT_NE(sch.trace().str().find("l2, l3 = sch.split(loop=l1, factors=[None, 10], "
                                   "preserve_unit_iters=True, disable_predication=False)"),
            std::string::npos);
}

TEST(ScheduleSplit, PerfectSplitHasNoPredicateAndThreeWay) {
  PrimFunc f = testing::matmul(16, 24, 8);
  Schedule sch(f, 1);
  std::vector<LoopRV> loops = sch.getLoops(sch.getBlock("C"));
  std::vector<LoopRV> parts = sch.split(loops[1], {int64_t{2}, std::monostate{}, int64_t{4}});
  EXPECT_TRUE(isConstInt(sch.get(parts[1])->extent, 3));
  std::string text = script(sch);
  EXPECT_EQ(text.find("T.where"), std::string::npos) << text;
  EXPECT_NE(text.find("T.axis.spatial(24, j_0 * 12 + j_1 * 4 + j_2)"), std::string::npos) << text;
  expectSameResults(f, sch.func());
}

TEST(ScheduleSplit, DisablePredicationDropsThePredicate) {
  Schedule sch(testing::addOne(128), 1);
  LoopRV i = sch.getLoops(sch.getBlock("B"))[0];
  sch.split(i, {std::monostate{}, int64_t{10}}, true, true);
  EXPECT_EQ(script(sch).find("T.where"), std::string::npos);
}

TEST(ScheduleSplit, Errors) {
  Schedule sch(testing::addOne(128), 1);
  LoopRV i = sch.getLoops(sch.getBlock("B"))[0];
  EXPECT_EQ(scheduleError([&] { sch.split(i, {std::monostate{}, std::monostate{}}); }),
            "An error occurred in the schedule primitive 'split': at most one factor may be None");
  EXPECT_NE(scheduleError([&] {
              sch.split(i, {int64_t{4}, int64_t{0}});
            }).find("factor 1 must be positive"),
            std::string::npos);
  EXPECT_NE(scheduleError([&] {
              sch.split(i, {int64_t{4}, int64_t{8}});
            }).find("at least the loop extent"),
            std::string::npos);
  sch.annotate(i, "pragma_x", AttrValue::integer(1));
  EXPECT_NE(
      scheduleError([&] { sch.split(i, {std::monostate{}, int64_t{2}}); }).find("has annotations"),
      std::string::npos);
  EXPECT_EQ(sch.getLoops(sch.getBlock("B")).size(), 1u);  // unchanged after the errors
}

TEST(ScheduleFuse, FusesAndRecoversIndices) {
  PrimFunc f = testing::scale2d(8, 12);
  Schedule sch(f, 1);
  std::vector<LoopRV> loops = sch.getLoops(sch.getBlock("B"));
  LoopRV fused = sch.fuse(loops);
  EXPECT_EQ(sch.get(fused)->loopVar->name, "i_j_fused");
  EXPECT_TRUE(isConstInt(sch.get(fused)->extent, 96));
  std::string text = script(sch);
  EXPECT_NE(text.find("T.axis.spatial(8, i_j_fused // 12)"), std::string::npos) << text;
  EXPECT_NE(text.find("T.axis.spatial(12, i_j_fused % 12)"), std::string::npos) << text;
  expectSameResults(f, sch.func());
  EXPECT_NE(sch.trace().str().find("l3 = sch.fuse(l1, l2, preserve_unit_iters=True)"),
            std::string::npos);
}

TEST(ScheduleFuse, Errors) {
  Schedule sch(testing::matmul(8, 8, 8), 1);
  std::vector<LoopRV> loops = sch.getLoops(sch.getBlock("C"));
  EXPECT_NE(scheduleError([&] { sch.fuse({loops[0], loops[2]}); }).find("is not the only child"),
            std::string::npos);
  EXPECT_NE(scheduleError([&] { sch.fuse({}); }).find("at least one loop"), std::string::npos);
}

TEST(ScheduleReorder, PermutesLoops) {
  PrimFunc f = testing::matmul(8, 16, 4);
  Schedule sch(f, 1);
  std::vector<LoopRV> l = sch.getLoops(sch.getBlock("C"));
  sch.reorder({l[2], l[0]});  // k takes i's place and i takes k's: k, j, i
  std::vector<LoopRV> after = sch.getLoops(sch.getBlock("C"));
  EXPECT_EQ(sch.get(after[0])->loopVar->name, "k");
  EXPECT_EQ(sch.get(after[1])->loopVar->name, "j");
  EXPECT_EQ(sch.get(after[2])->loopVar->name, "i");
  expectSameResults(f, sch.func());
}

TEST(ScheduleReorder, Errors) {
  Schedule sch(testing::matmul(8, 8, 8), 1);
  std::vector<LoopRV> l = sch.getLoops(sch.getBlock("C"));
  EXPECT_NE(scheduleError([&] { sch.reorder({l[0], l[0]}); }).find("appears more than once"),
            std::string::npos);
  // Loops i, j_0, j_1, k: reordering k with j_0 leaves j_1 in place.
  sch.split(l[1], {int64_t{2}, int64_t{4}});
  std::vector<LoopRV> now = sch.getLoops(sch.getBlock("C"));
  sch.reorder({now[3], now[1]});
  std::vector<LoopRV> after = sch.getLoops(sch.getBlock("C"));
  EXPECT_EQ(sch.get(after[1])->loopVar->name, "k");
  EXPECT_EQ(sch.get(after[2])->loopVar->name, "j_1");
  EXPECT_EQ(sch.get(after[3])->loopVar->name, "j_0");
  expectSameResults(testing::matmul(8, 8, 8), sch.func());
}

TEST(ScheduleReorder, RejectsLoopsOnDifferentBranches) {
  // Two sibling nests under the root: their loops do not lie on one chain.
  Buffer a = makeBuffer("A", {intImm(4)});
  Buffer b = makeBuffer("B", {intImm(4)});
  auto stage = [](const std::string& name, const Buffer& out) {
    Var i = makeVar("i"), vi = makeVar("vi");
    auto blk = std::make_shared<BlockNode>();
    blk->name = name;
    blk->iterVars = {{{intImm(0), intImm(4)}, vi, IterVarType::kDataPar, ""}};
    blk->writes = {testing::point(out, {vi})};
    blk->body = bufferStore(out, floatImm(1), {vi});
    return loopNest({i}, {intImm(4)}, blockRealize({i}, boolImm(true), blk));
  };
  PrimFunc f = testing::withRoot({a, b}, seq({stage("X", a), stage("Y", b)}));
  Schedule sch(f, 1);
  LoopRV x = sch.getLoops(sch.getBlock("X"))[0];
  LoopRV y = sch.getLoops(sch.getBlock("Y"))[0];
  EXPECT_NE(scheduleError([&] { sch.reorder({x, y}); }).find("do not lie on a single chain"),
            std::string::npos);
}

TEST(ScheduleAddUnitLoop, AboveBlockAndLoop) {
  PrimFunc f = testing::addOne(8);
  Schedule sch(f, 1);
  BlockRV b = sch.getBlock("B");
  LoopRV u = sch.addUnitLoop(b);
  EXPECT_TRUE(isConstInt(sch.get(u)->extent, 1));
  std::vector<LoopRV> loops = sch.getLoops(b);
  ASSERT_EQ(loops.size(), 2u);
  EXPECT_EQ(sch.get(loops[1])->loopVar->name, "u");
  sch.addUnitLoop(loops[0]);
  EXPECT_EQ(sch.getLoops(b).size(), 3u);
  expectSameResults(f, sch.func());
}

TEST(ScheduleLoopKind, ParallelVectorizeUnrollBind) {
  PrimFunc f = testing::matmul(8, 8, 8);
  Schedule sch(f, 1);
  std::vector<LoopRV> l = sch.getLoops(sch.getBlock("C"));
  sch.parallel(l[0]);
  sch.vectorize(l[1]);
  sch.unroll(l[2]);
  EXPECT_EQ(sch.get(l[0])->forKind, ForKind::kParallel);
  EXPECT_EQ(sch.get(l[1])->forKind, ForKind::kVectorized);
  EXPECT_EQ(sch.get(l[2])->forKind, ForKind::kUnrolled);
  std::string text = script(sch);
  EXPECT_NE(text.find("for i in T.parallel(8):"), std::string::npos) << text;
  EXPECT_NE(text.find("for j in T.vectorized(8):"), std::string::npos) << text;
  EXPECT_NE(text.find("for k in T.unroll(8):"), std::string::npos) << text;
  expectSameResults(f, sch.func());
  Schedule gpu(testing::matmul(8, 8, 8), 1);
  std::vector<LoopRV> g = gpu.getLoops(gpu.getBlock("C"));
  gpu.bind(g[0], "blockIdx.x");
  gpu.bind(g[2], "threadIdx.x");  // a reduction loop may go to threadIdx (cross-thread reduction)
  EXPECT_EQ(gpu.get(g[0])->threadTag, "blockIdx.x");
  EXPECT_NE(gpu.trace().str().find("sch.bind(loop=l1, thread_axis=\"blockIdx.x\")"),
            std::string::npos);
}

TEST(ScheduleLoopKind, Errors) {
  Schedule sch(testing::matmul(8, 8, 8), 1);
  std::vector<LoopRV> l = sch.getLoops(sch.getBlock("C"));
  EXPECT_EQ(scheduleError([&] { sch.parallel(l[2]); }),
            "An error occurred in the schedule primitive 'parallel': loop 'k' is bound to the "
            "non-spatial "
            "iter var 'vk' of block 'C'");
  EXPECT_NE(scheduleError([&] { sch.vectorize(l[2]); }).find("non-spatial"), std::string::npos);
  EXPECT_NE(scheduleError([&] { sch.bind(l[2], "blockIdx.x"); }).find("non-spatial"),
            std::string::npos);
  EXPECT_NE(scheduleError([&] { sch.bind(l[0], "warp.x"); }).find("is not a thread axis"),
            std::string::npos);
  EXPECT_EQ(sch.get(l[2])->forKind, ForKind::kSerial);
}

TEST(ScheduleAnnotate, LoopsAndBlocks) {
  PrimFunc f = testing::addOne(8);
  Schedule sch(f, 1);
  BlockRV b = sch.getBlock("B");
  LoopRV i = sch.getLoops(b)[0];
  sch.annotate(i, "pragma_auto_unroll_max_step", AttrValue::integer(16));
  sch.annotate(b, "meta_schedule.tiling_structure", AttrValue::string("SSRSRS"));
  EXPECT_EQ(sch.get(i)->annotations.find("pragma_auto_unroll_max_step")->asInt(), 16);
  EXPECT_EQ(sch.get(b)->annotations.find("meta_schedule.tiling_structure")->asString(), "SSRSRS");
  expectSameResults(f, sch.func());
  EXPECT_NE(
      sch.trace().str().find("sch.annotate(block_or_loop=b0, "
                             "ann_key=\"meta_schedule.tiling_structure\", ann_val=\"SSRSRS\")"),
      std::string::npos);
  sch.unannotate(i, "pragma_auto_unroll_max_step");
  sch.unannotate(b, "meta_schedule.tiling_structure");
  EXPECT_TRUE(sch.get(i)->annotations.empty());
  EXPECT_TRUE(sch.get(b)->annotations.empty());
  EXPECT_EQ(scheduleError([&] { sch.unannotate(i, "missing"); }),
            "An error occurred in the schedule primitive 'unannotate': loop 'i' has no annotation "
            "'missing'");
}

}  // namespace
}  // namespace tessera::tir
