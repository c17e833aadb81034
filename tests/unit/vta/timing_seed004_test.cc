// Latency hiding on seed 004 under the cycle model: the same convolution and tiling recorded with
// one and with two virtual threads. Both compute the reference output with the same data movement;
// with two threads the loads of one thread overlap the other's GEMMs, so the run is shorter and
// the GEMM core busier.
#include <gtest/gtest.h>

#include "vta/rt/timing.h"
#include "vta_workload_runs.h"

namespace tessera::vta {
namespace {

struct Seed004Timing {
  test::RunResult run;
  TimingReport timing;
};

Seed004Timing timeSeed004(int threads) {
  const Config cfg;
  reference::Conv2dWorkload w = reference::Conv2dWorkload::seed004(cfg);
  w.threads = threads;
  Seed004Timing t{test::runConv2d(cfg, w), {}};
  t.timing = estimateTiming(cfg, t.run.stream);
  return t;
}

TEST(VtaTimingSeed004, TwoVirtualThreadsHideLoadLatency) {
  const Seed004Timing one = timeSeed004(1);
  const Seed004Timing two = timeSeed004(2);
  // Same result and data movement; one thread needs each micro-op kernel once instead of twice.
  EXPECT_EQ(one.run.out, one.run.expected);
  EXPECT_EQ(two.run.out, two.run.expected);
  EXPECT_EQ(one.run.stats, test::makeStats(114688, 1179648, 0, 572, 50176, 451584, 9408))
      << one.run.stats.format();
  EXPECT_EQ(two.run.stats, test::makeStats(114688, 1179648, 0, 1144, 50176, 451584, 9408))
      << two.run.stats.format();
  // The GEMM core does the same work: gemm_counter micro-ops at one cycle each.
  EXPECT_EQ(one.timing.gemmCycles, 451584u);
  EXPECT_EQ(two.timing.gemmCycles, 451584u);

  EXPECT_LT(two.timing.totalCycles, one.timing.totalCycles);
  EXPECT_GT(two.timing.gemmUtilisation(), one.timing.gemmUtilisation() + 0.15)
      << one.timing.format() << two.timing.format();
  // One thread: every load waits for the GEMM that frees its buffer, and every GEMM for its load.
  const ModuleTiming& c1 = one.timing.module(Stage::kCompute);
  const ModuleTiming& c2 = two.timing.module(Stage::kCompute);
  EXPECT_GT(c1.wait[int(TokenQueue::kL2C)], 10 * c2.wait[int(TokenQueue::kL2C)]);

  // The model's numbers under the default parameters (docs/user/vta.md and
  // bench/results/2026-11-28-vta-timing.md quote them; update both when a cost changes).
  EXPECT_EQ(one.timing.totalCycles, 778626u);
  EXPECT_EQ(two.timing.totalCycles, 576060u);
  for (const Seed004Timing* t : {&one, &two}) {
    uint64_t pathCycles = 0;
    for (size_t i : t->timing.criticalPath) pathCycles += t->timing.instructions[i].cost();
    EXPECT_EQ(pathCycles, t->timing.totalCycles);
    for (const ModuleTiming& m : t->timing.modules) {
      EXPECT_EQ(m.busy + m.waitTotal() + m.idle, t->timing.totalCycles);
    }
  }
}

}  // namespace
}  // namespace tessera::vta
