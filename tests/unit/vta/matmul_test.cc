// The matrix-multiply tutorial programs (spec §7.2, §7.3): outputs against the plain reference,
// exact counters, and the tutorial's 56-instruction stream.
#include <gtest/gtest.h>

#include "vta_workload_runs.h"

namespace tessera::vta {
namespace {

TEST(VtaMatmul, TutorialOutputCountersAndStream) {
  const test::RunResult r = test::runMatmulTutorial(Config::defaults());
  EXPECT_EQ(r.out, r.expected);
  EXPECT_EQ(r.stats, test::makeStats(256, 65536, 0, 8, 256, 256, 0)) << r.stats.format();
  // 2 LOAD UOP, 17 GEMM (1 reset), 16 LOAD INP, 16 LOAD WGT, 1 STORE, 2 load NOPs, 1 compute
  // NOP and FINISH (spec §7.2).
  test::InsnCounts expected;
  expected.loadUop = 2;
  expected.gemm = 17;
  expected.gemmReset = 1;
  expected.loadInp = 16;
  expected.loadWgt = 16;
  expected.store = 1;
  expected.loadNop = 2;
  expected.computeNop = 1;
  expected.finish = 1;
  const test::InsnCounts counts = test::countInstructions(r.stream);
  EXPECT_EQ(counts, expected) << test::describe(counts);
  EXPECT_EQ(r.stream.size(), 56u);
}

TEST(VtaMatmul, BlockedOutputAndCounters) {
  const test::RunResult r = test::runBlockedMatmul(Config::defaults());
  EXPECT_EQ(r.out, r.expected);
  EXPECT_EQ(r.stats, test::makeStats(4096, 1048576, 0, 20, 1024, 4096, 192)) << r.stats.format();
}

}  // namespace
}  // namespace tessera::vta
