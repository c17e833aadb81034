// Builder and runner: a scheduled matmul builds, is checked against the reference evaluator and
// timed in a child process; a candidate that crashes, hangs, throws or computes the wrong result
// costs one trial and the next one runs normally. Also the FLOP estimate of the task table.
#include "tune/measure.h"

#include <gtest/gtest.h>

#include <csignal>

#include "codegen/llvm/target.h"
#include "tune/flops.h"
#include "unit/tir/schedule_test_util.h"

namespace tessera::tune {
namespace {

MeasureOptions quick() {
  return {.number = 2, .repeat = 2, .minRepeatMs = 0, .timeoutSec = 60};
}

TEST(TuneMeasure, FlopsOfTheSeedMatmul) {
  EXPECT_EQ(estimateFlops(tir::testing::matmul()), 2 * 128 * 128 * 128);
  // The body and the init (a block's init sits under all of its loops until decomposed).
  EXPECT_EQ(estimateStoreExecutions(tir::testing::matmul(4, 4, 4)), 2 * 4 * 4 * 4);
}

TEST(TuneMeasure, AScheduledMatmulIsCheckedAndTimed) {
  const tir::PrimFunc mm = tir::testing::matmul(64, 64, 64);
  const target::Target target = codegen::hostTarget();
  MeasureInput input = makeMeasureInput(mm, target);
  tir::Schedule sch(mm, 0);
  tir::BlockRV c = sch.getBlock("C");
  std::vector<tir::LoopRV> l = sch.getLoops(c);
  std::vector<tir::LoopRV> j = sch.split(l[1], {std::monostate{}, int64_t{8}});
  sch.reorder({l[0], j[0], l[2], j[1]});
  sch.decomposeReduction(c, l[2]);
  BuildResult built = buildCandidate(sch.func(), target);
  ASSERT_TRUE(built.module) << built.error;
  LocalRunner runner(quick());
  RunResult r = runner.run(built, input);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.runSecs.size(), 2u);
  EXPECT_GT(r.runSecs[0], 0);
  // With a cache flush before every measurement and a cooldown.
  MeasureOptions flushed = quick();
  flushed.cacheFlushBytes = 1 << 20;
  flushed.cooldownMs = 1;
  RunResult cold = LocalRunner(flushed).run(built, input);
  ASSERT_TRUE(cold.ok()) << cold.error;
  EXPECT_EQ(cold.runSecs.size(), 2u);
}

TEST(TuneMeasure, TheBuilderPoolBuildsEveryCandidateInOrder) {
  const tir::PrimFunc mm = tir::testing::matmul(32, 32, 32);
  const target::Target target = codegen::hostTarget();
  std::vector<tir::PrimFunc> candidates;
  for (int64_t factor : {1, 2, 4, 8, 16, 32}) {
    tir::Schedule sch(mm, 0);
    std::vector<tir::LoopRV> l = sch.getLoops(sch.getBlock("C"));
    sch.split(l[1], {std::monostate{}, factor});
    candidates.push_back(sch.func());
  }
  // Nested parallel loops: refused by codegen, an error in its own slot.
  tir::Schedule bad(mm, 0);
  std::vector<tir::LoopRV> l = bad.getLoops(bad.getBlock("C"));
  bad.parallel(l[0]);
  bad.parallel(l[1]);
  candidates.insert(candidates.begin() + 2, bad.func());
  const std::vector<BuildResult> built = buildCandidates(candidates, target, {.workers = 3});
  ASSERT_EQ(built.size(), candidates.size());
  const MeasureInput input = makeMeasureInput(mm, target);
  LocalRunner runner(quick());
  for (size_t i = 0; i < built.size(); ++i) {
    if (i == 2) {
      EXPECT_FALSE(built[i].module);
      EXPECT_NE(built[i].error.find("build error"), std::string::npos) << built[i].error;
      continue;
    }
    ASSERT_TRUE(built[i].module) << i << ": " << built[i].error;
    EXPECT_TRUE(runner.run(built[i], input).ok()) << i;  // each computes the matmul
  }
}

TEST(TuneMeasure, ABuildOutlivingItsTimeoutIsKilled) {
  // No build (a fork, lowering, LLVM's O3) finishes in a millisecond: each child is killed.
  const tir::PrimFunc mm = tir::testing::matmul(32, 32, 32);
  const std::vector<BuildResult> built =
      buildCandidates({mm, mm}, codegen::hostTarget(), {.workers = 2, .timeoutSec = 1e-3});
  ASSERT_EQ(built.size(), 2u);
  for (const BuildResult& b : built) {
    EXPECT_FALSE(b.module);
    EXPECT_EQ(b.error, "timed out after 0.001 s");
  }
}

TEST(TuneMeasure, FailingCandidatesCostOneTrialEach) {
  const tir::PrimFunc mm = tir::testing::matmul(16, 16, 16);
  const target::Target target = codegen::hostTarget();
  MeasureInput input = makeMeasureInput(mm, target);
  MeasureOptions options = quick();
  options.timeoutSec = 1;
  LocalRunner runner(options);

  // The default action, not a sanitizer's handler: the child dies of the signal.
  RunResult crash = runner.run(
      [](const std::vector<NDArray>&) {
        std::signal(SIGSEGV, SIG_DFL);
        std::raise(SIGSEGV);
      },
      input);
  EXPECT_NE(crash.error.find("crashed (signal 11"), std::string::npos) << crash.error;

  RunResult hang = runner.run(
      [](const std::vector<NDArray>&) {
        for (;;) pause();
      },
      input);
  EXPECT_EQ(hang.error, "timed out after 1 s");

  RunResult wrong =
      runner.run([](const std::vector<NDArray>& args) { args[2].setFloat(5, 1e6); }, input);
  EXPECT_EQ(wrong.error.rfind("wrong output: argument 2 element 0", 0), 0u) << wrong.error;

  RunResult thrown = runner.run(
      [](const std::vector<NDArray>&) { throw std::runtime_error("kernel failed"); }, input);
  EXPECT_EQ(thrown.error, "kernel failed");

  BuildResult unbuilt{std::nullopt, "", "build error: x"};
  EXPECT_EQ(runner.run(unbuilt, input).error, "build error: x");

  // The run goes on: the plain loop nest still measures.
  BuildResult plain = buildCandidate(mm, target);
  RunResult ok = runner.run(plain, input);
  EXPECT_TRUE(ok.ok()) << ok.error;
}

TEST(TuneMeasure, ALargeKernelsReferenceIsThePlainCompiledLoopNest) {
  // 256^3 store executions: above the evaluator's limit.
  const tir::PrimFunc mm = tir::testing::matmul(256, 256, 256);
  MeasureInput input = makeMeasureInput(mm, codegen::hostTarget());
  // C = A x B with the 256 products of row 0 and column 0.
  double want = 0;
  for (int k = 0; k < 256; ++k) want += input.args[0].getFloat(k) * input.args[1].getFloat(k * 256);
  EXPECT_NEAR(input.expected[2].getFloat(0), want, 1e-3);
}

}  // namespace
}  // namespace tessera::tune
