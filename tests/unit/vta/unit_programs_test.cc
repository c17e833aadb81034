// The VTA instruction unit tests of spec §7.4 (TVM's test_vta_insn.py): each program's output
// against the reference and its exact counters.
#include <gtest/gtest.h>

#include "vta_workload_runs.h"

namespace tessera::vta {
namespace {

using test::makeStats;
using test::RunResult;

void expectRun(const RunResult& r, const Stats& stats) {
  EXPECT_EQ(r.out, r.expected);
  EXPECT_EQ(r.stats, stats) << r.stats.format();
}

TEST(VtaUnitPrograms, SaveLoadOut) {
  expectRun(test::runSaveLoadOut(Config::defaults()), makeStats(0, 0, 2304, 0, 576, 0, 0));
}

TEST(VtaUnitPrograms, PaddedLoads) {
  const Config cfg = Config::defaults();
  // Pads are not counted: every case loads the same 15 entries.
  expectRun(test::runPaddedLoad(cfg, 2, 0, 0, 0), makeStats(0, 0, 960, 0, 400, 0, 0));  // Y0
  expectRun(test::runPaddedLoad(cfg, 0, 2, 0, 0), makeStats(0, 0, 960, 0, 336, 0, 0));  // Y1
  expectRun(test::runPaddedLoad(cfg, 0, 0, 2, 0), makeStats(0, 0, 960, 0, 400, 0, 0));  // X0
  expectRun(test::runPaddedLoad(cfg, 0, 0, 0, 2), makeStats(0, 0, 960, 0, 336, 0, 0));  // X1
  expectRun(test::runPaddedLoad(cfg, 1, 1, 1, 1), makeStats(0, 0, 960, 0, 560, 0, 0));  // all
}

TEST(VtaUnitPrograms, GemmDefaultSchedule) {
  expectRun(test::runGemm(Config::defaults(), false), makeStats(64, 1024, 0, 20, 256, 16, 48));
}

TEST(VtaUnitPrograms, GemmTwoVirtualThreads) {
  // Weights are replicated per thread; micro-op kernels are recorded per thread.
  expectRun(test::runGemm(Config::defaults(), true), makeStats(64, 2048, 0, 40, 256, 16, 48));
}

TEST(VtaUnitPrograms, AluImmediateAndTensor) {
  const Config cfg = Config::defaults();
  const Stats imm = makeStats(0, 0, 4096, 4, 1024, 0, 64);
  const Stats tensor = makeStats(0, 0, 8192, 4, 1024, 0, 64);
  for (int32_t v = 1; v <= 4; ++v) {  // the TVM test draws imm from [1, 5)
    SCOPED_TRACE(v);
    expectRun(test::runAluImm(cfg, AluOpcode::kShr, v, /*shiftLeft=*/true), imm);  // SHL
    expectRun(test::runAluImm(cfg, AluOpcode::kMax, v), imm);
    expectRun(test::runAluImm(cfg, AluOpcode::kAdd, v), imm);
    expectRun(test::runAluImm(cfg, AluOpcode::kShr, v), imm);
  }
  expectRun(test::runAluTensor(cfg, AluOpcode::kMax), tensor);
  expectRun(test::runAluTensor(cfg, AluOpcode::kAdd), tensor);
  // Simulator-only and untested-by-TVM opcodes behave the same way.
  expectRun(test::runAluImm(cfg, AluOpcode::kMin, -3), imm);
  expectRun(test::runAluImm(cfg, AluOpcode::kMul, -3), imm);
  expectRun(test::runAluTensor(cfg, AluOpcode::kMin), tensor);
  expectRun(test::runAluTensor(cfg, AluOpcode::kMul), tensor);
}

TEST(VtaUnitPrograms, Relu) {
  expectRun(test::runRelu(Config::defaults()), makeStats(0, 0, 5120, 8, 1280, 0, 160));
}

TEST(VtaUnitPrograms, ShiftAndScale) {
  // As measured (the random add immediate was 0, so only the shift remained) ...
  expectRun(test::runShiftAndScale(Config::defaults(), 0, 3), makeStats(0, 0, 1024, 4, 256, 0, 16));
  // ... and with a non-zero add: one more kernel and 16 more ALU micro-op executions.
  expectRun(test::runShiftAndScale(Config::defaults(), 5, 2), makeStats(0, 0, 1024, 8, 256, 0, 32));
}

}  // namespace
}  // namespace tessera::vta
