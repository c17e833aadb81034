// The postprocessors: the root's meta_schedule annotations become fused parallel loops,
// vectorized innermost loops and unroll pragmas; reduction inits are decomposed; a dynamic loop
// or a program the lowering refuses rejects the candidate with the postprocessor's name; and
// everything is recorded after EnterPostproc, so the trace replays to the same program.
#include <gtest/gtest.h>

#include "codegen/llvm/target.h"
#include "rule_kernels.h"
#include "tune/rules/post_order_apply.h"

namespace tessera::tune {
namespace {

using testing::count;

target::Target oneCore() {
  target::Target t = codegen::hostTarget();
  t.numCores = 1;
  return t;
}

// The matmul's level-2 space with chosen tiles: i [2, 4, 1, 4], j [1, 2, 2, 8], k [16, 2].
DesignSpace tiledMatmulSpace(const tir::PrimFunc& mm, int64_t unroll) {
  DesignSpace space = rules::ruleSpaces(mm, oneCore(), 0)[2];
  space.base[0] = {2, 4, 1, 4};
  space.base[1] = {1, 2, 2, 8};
  space.base[2] = {16, 2};
  space.base[4] = {unroll};
  return space;
}

TEST(TunePostproc, ParallelVectorizeUnrollAreRewritten) {
  const tir::PrimFunc mm = testing::matmul(32, 32, 32);
  const DesignSpace space = tiledMatmulSpace(mm, /*unroll index=*/2);
  tir::Schedule sch(mm, 0);
  tir::applyTrace(sch, space.materialize(space.base));
  ASSERT_TRUE(postproc::applyPostprocs(sch, postproc::defaultPostprocs()).applies);
  const std::string text = tir::toScript(sch.func());
  SCOPED_TRACE(text);
  // No meta_schedule annotation is left on the root.
  EXPECT_EQ(text.find("meta_schedule.parallel"), std::string::npos);
  EXPECT_EQ(text.find("meta_schedule.unroll_explicit"), std::string::npos);
  // i_0 (2) x j_0 (1) x i_1 (4) x j_1 (2) = 16, and j_1's body is two statements (the
  // reduction and the cache's write-back): those four are fused and parallel.
  EXPECT_NE(text.find("for i_0_j_0_i_1_j_1_fused in T.parallel(16"), std::string::npos);
  EXPECT_NE(text.find("for j_3 in T.vectorized(8)"), std::string::npos);
  EXPECT_NE(
      text.find(
          "\"pragma_auto_unroll_max_step\": T.int64(64), \"pragma_unroll_explicit\": T.int64(1)"),
      std::string::npos);
  // RewriteReductionBlock: the init is its own block, before the reduction loops.
  EXPECT_NE(text.find("with T.block(\"C_init\")"), std::string::npos);
  EXPECT_NE(text.find("with T.block(\"C_update\")"), std::string::npos);
  tir::testing::expectSameResults(mm, sch.func());
  // Recorded after EnterPostproc: the whole trace replays to the same program, through JSON.
  const std::string json = sch.trace().toJson();
  EXPECT_NE(json.find("[\"EnterPostproc\",[],[],[]]"), std::string::npos);
  tir::Schedule again(mm, 0);
  tir::applyTrace(again, tir::Trace::fromJson(json));
  EXPECT_EQ(tir::toScript(again.func()), text);
}

TEST(TunePostproc, AnUnrollStepOfZeroAddsNoPragma) {
  const tir::PrimFunc mm = testing::matmul(32, 32, 32);
  const DesignSpace space = tiledMatmulSpace(mm, /*unroll index=*/0);
  tir::PrimFunc f = testing::replay(mm, space.materialize(space.base), true);
  EXPECT_EQ(tir::toScript(f).find("pragma_auto_unroll_max_step"), std::string::npos);
}

TEST(TunePostproc, OneLoopWantedByParallelAndVectorizeIsSplit) {
  const tir::PrimFunc add = tir::testing::addOne(1024);
  std::vector<DesignSpace> spaces = rules::ruleSpaces(add, oneCore(), 0);
  ASSERT_EQ(spaces.size(), 1u);
  tir::PrimFunc f = testing::replay(add, spaces[0].trace, true);
  const std::string text = tir::toScript(f);
  EXPECT_NE(text.find("for i_0 in T.parallel(16)"), std::string::npos) << text;
  EXPECT_NE(text.find("for i_1 in T.vectorized(64)"), std::string::npos) << text;
  tir::testing::expectSameResults(add, f);
}

TEST(TunePostproc, ADynamicLoopIsRejectedWithTheReason) {
  tir::Var n = tir::makeVar("n");
  tir::Buffer a = tir::makeBuffer("A", {n});
  tir::Buffer b = tir::makeBuffer("B", {n});
  tir::Var i = tir::makeVar("i"), vi = tir::makeVar("vi");
  auto blk = std::make_shared<tir::BlockNode>();
  blk->name = "B";
  blk->iterVars = {{{tir::intImm(0), n}, vi, tir::IterVarType::kDataPar, ""}};
  blk->reads = {tir::testing::point(a, {vi})};
  blk->writes = {tir::testing::point(b, {vi})};
  blk->body = tir::bufferStore(b, tir::bufferLoad(a, {vi}), {vi});
  tir::PrimFunc f = tir::testing::withRoot(
      {a, b}, tir::loopNest({i}, {n}, tir::blockRealize({i}, tir::boolImm(true), blk)));
  tir::Schedule sch(f, 0);
  const Applicability answer = postproc::applyPostprocs(sch, postproc::defaultPostprocs());
  EXPECT_FALSE(answer.applies);
  EXPECT_EQ(answer.reason, "DisallowDynamicLoop: loop 'i' has a dynamic extent");
}

TEST(TunePostproc, ARefusalNamesThePostprocessorAndVerifyLoweringPassesAGoodProgram) {
  // A schedule primitive that refuses inside a postprocessor rejects the candidate; the reason
  // is the postprocessor's name and the primitive's message.
  const postproc::Postproc refuses{.name = "Refuses", .apply = [](tir::Schedule& sch) {
                                     sch.getBlock("no_such_block");
                                     return Applicability::yes();
                                   }};
  tir::Schedule sch(tir::testing::addOne(8), 0);
  const Applicability answer = postproc::applyPostprocs(sch, {refuses});
  EXPECT_FALSE(answer.applies);
  EXPECT_EQ(
      answer.reason.rfind("Refuses: An error occurred in the schedule primitive 'get-block'", 0),
      0u)
      << answer.reason;
  tir::Schedule ok(tir::testing::addOne(8), 0);
  EXPECT_TRUE(postproc::applyPostprocs(ok, {postproc::verifyLowering()}).applies);
}

}  // namespace
}  // namespace tessera::tune
