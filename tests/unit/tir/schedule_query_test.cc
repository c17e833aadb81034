// Schedule state and query primitives: get_block, get_loops, get_child_blocks,
// get_producers/consumers, RV lookup, copy, work_on.
#include "schedule_test_util.h"
#include "tir/schedule/trace.h"

namespace tessera::tir {
namespace {

using testing::scheduleError;

// A: B[i] = A[i] + 1 ("B"), then C[i] = B[i] + 1 ("C") in one root scope.
PrimFunc twoStage() {
  Buffer a = makeBuffer("A", {intImm(16)});
  Buffer b = makeBuffer("B", {intImm(16)});
  Buffer c = makeBuffer("C", {intImm(16)});
  auto stage = [](const std::string& name, const Buffer& in, const Buffer& out) {
    Var i = makeVar("i"), vi = makeVar("vi");
    auto blk = std::make_shared<BlockNode>();
    blk->name = name;
    blk->iterVars = {{{intImm(0), intImm(16)}, vi, IterVarType::kDataPar, ""}};
    blk->reads = {testing::point(in, {vi})};
    blk->writes = {testing::point(out, {vi})};
    blk->body = bufferStore(out, bufferLoad(in, {vi}) + floatImm(1), {vi});
    return loopNest({i}, {intImm(16)}, blockRealize({i}, boolImm(true), blk));
  };
  auto root = std::make_shared<BlockNode>();
  root->name = "root";
  root->allocBuffers = {b};
  root->body = seq({stage("B", a, b), stage("C", b, c)});
  return makePrimFunc("main", {a, c}, blockRealize({}, boolImm(true), root));
}

TEST(ScheduleQuery, GetBlockAndLoops) {
  Schedule sch(testing::matmul(), 1);
  BlockRV c = sch.getBlock("C", "main");
  EXPECT_EQ(sch.get(c)->name, "C");
  std::vector<LoopRV> loops = sch.getLoops(c);
  ASSERT_EQ(loops.size(), 3u);
  EXPECT_EQ(sch.get(loops[0])->loopVar->name, "i");
  EXPECT_EQ(sch.get(loops[2])->loopVar->name, "k");
  EXPECT_EQ(sch.trace().str(),
            "# from tvm import tir\n"
            "def apply_trace(sch: tir.Schedule) -> None:\n"
            "  b0 = sch.get_block(name=\"C\", func_name=\"main\")\n"
            "  l1, l2, l3 = sch.get_loops(block=b0)\n");
}

TEST(ScheduleQuery, GetBlockErrors) {
  Schedule sch(testing::matmul(), 1);
  EXPECT_EQ(scheduleError([&] { sch.getBlock("D"); }),
            "An error occurred in the schedule primitive 'get-block': no block named 'D' in "
            "function 'main'");
  EXPECT_NE(scheduleError([&] { sch.getBlock("C", "nope"); }).find("no function named 'nope'"),
            std::string::npos);
  EXPECT_TRUE(sch.trace().empty());  // failed primitives record nothing
}

TEST(ScheduleQuery, DuplicateBlockNamesAreRejected) {
  PrimFunc f = twoStage();
  // Rename block C to B through a schedule-free rebuild: annotate keeps names, so build by hand.
  Schedule sch(f, 1);
  BlockRV c = sch.getBlock("C");
  auto renamed = copyBlock(*sch.get(c));
  renamed->name = "B";
  auto root = std::make_shared<BlockNode>(*f->body->as<BlockRealizeNode>()->block);
  const auto* s = root->body->as<SeqStmtNode>();
  const auto* loop = s->seq[1]->as<ForNode>();
  const auto* r = loop->body->as<BlockRealizeNode>();
  root->body = seq({s->seq[0], forLoop(loop->loopVar, loop->min, loop->extent, ForKind::kSerial,
                                       blockRealize(r->iterValues, r->predicate, renamed))});
  auto g = std::make_shared<PrimFuncNode>(*f);
  g->body = blockRealize({}, boolImm(true), root);
  Schedule dup(PrimFunc(g), 1);
  EXPECT_NE(scheduleError([&] { dup.getBlock("B"); }).find("2 blocks are named 'B'"),
            std::string::npos);
}

TEST(ScheduleQuery, ChildBlocksProducersConsumers) {
  Schedule sch(twoStage(), 1);
  BlockRV b = sch.getBlock("B");
  BlockRV c = sch.getBlock("C");
  std::vector<BlockRV> producers = sch.getProducers(c);
  ASSERT_EQ(producers.size(), 1u);
  EXPECT_EQ(sch.get(producers[0])->name, "B");
  std::vector<BlockRV> consumers = sch.getConsumers(b);
  ASSERT_EQ(consumers.size(), 1u);
  EXPECT_EQ(sch.get(consumers[0])->name, "C");
  EXPECT_TRUE(sch.getProducers(b).empty());
  EXPECT_TRUE(sch.getConsumers(c).empty());
  BlockRV root = sch.getBlock("root");
  std::vector<BlockRV> children = sch.getChildBlocks(root);
  ASSERT_EQ(children.size(), 2u);
  EXPECT_EQ(sch.get(children[1])->name, "C");
  std::vector<BlockRV> underLoop = sch.getChildBlocks(sch.getLoops(c)[0]);
  ASSERT_EQ(underLoop.size(), 1u);
  EXPECT_EQ(sch.get(underLoop[0])->name, "C");
  EXPECT_NE(sch.trace().str().find("b8, = sch.get_child_blocks(l7)"), std::string::npos)
      << sch.trace().str();
}

TEST(ScheduleQuery, RemovedRVsAndStaleLoopsAreErrors) {
  Schedule sch(testing::matmul(), 1);
  BlockRV c = sch.getBlock("C");
  std::vector<LoopRV> loops = sch.getLoops(c);
  sch.removeRV(c);
  EXPECT_NE(scheduleError([&] { sch.get(c); }).find("not defined"), std::string::npos);
  sch.split(loops[0], {std::monostate{}, int64_t{4}});
  // The split loop no longer exists.
  EXPECT_NE(scheduleError([&] { sch.get(loops[0]); }).find("loop 'i'"), std::string::npos);
}

TEST(ScheduleQuery, CopyIsIndependentAndSeedsReproduce) {
  Schedule a(testing::matmul(), 42);
  LoopRV j = a.getLoops(a.getBlock("C"))[1];
  Schedule b = a.copy();
  std::vector<ExprRV> ta = a.samplePerfectTile(j, 2, 16);
  std::vector<ExprRV> tb = b.samplePerfectTile(j, 2, 16);
  EXPECT_EQ(a.get(ta[0]), b.get(tb[0]));  // same PRNG state
  a.split(j, {ta[0], ta[1]});
  EXPECT_EQ(b.getLoops(b.getBlock("C")).size(), 3u);  // the copy is unaffected
  EXPECT_EQ(a.getLoops(a.getBlock("C")).size(), 4u);
  Schedule c(testing::matmul(), 5);
  Schedule d(testing::matmul(), 5);
  EXPECT_EQ(c.forkSeed(), d.forkSeed());
}

TEST(ScheduleQuery, WorkOnUnknownFunction) {
  Schedule sch(testing::matmul(), 1);
  EXPECT_NE(scheduleError([&] { sch.workOn("other"); }).find("no function named 'other'"),
            std::string::npos);
}

}  // namespace
}  // namespace tessera::tir
