// The cycle model on hand-built streams whose schedules are worked out by hand in the comments:
// instruction costs, a dependency chain, overlap, a token stall, the critical path, and reports.
#include "vta/rt/timing.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "sim_rig.h"
#include "support/diagnostic.h"

namespace tessera::vta {
namespace {

using test::deps;
using test::finishInsn;
using test::gemmInsn;
using test::LoopArgs;
using test::MemArgs;
using test::memInsn;

// Parameters that make costs easy to add up by hand: no issue, latency or pipeline overhead, and
// one INP entry (16 bytes) per cycle, so a load of x entries takes x cycles, as does a GEMM of x
// micro-ops.
constexpr TimingParams kUnit{.dmaBytesPerCycle = 16,
                             .dmaLatencyCycles = 0,
                             .gemmCyclesPerUop = 1,
                             .aluCyclesPerUop = 1,
                             .computePipelineCycles = 0,
                             .issueCycles = 0};

Instruction loadInp(uint32_t x, DepFlags dep = {}) {
  return memInsn(Opcode::kLoad, MemType::kInp, MemArgs{.x = x, .stride = x}, dep);
}
Instruction gemm(uint32_t uops, DepFlags dep = {}) {
  return gemmInsn(LoopArgs{.uopEnd = uops}, false, dep);
}

constexpr size_t kLoad = 0, kCompute = 1, kStore = 2;

TEST(VtaTiming, InstructionCostsWithDefaultParameters) {
  const Config cfg;
  const TimingParams p;
  // LOAD INP 14 x 8: per row 32 latency + 14·16/8 = 28 bytes cycles; plus 1 issue.
  EXPECT_EQ(instructionCycles(cfg, memInsn(Opcode::kLoad, MemType::kInp, {.y = 8, .x = 14}), p),
            1u + 8 * (32 + 28));
  // LOAD WGT 9 x 8: 9·256 = 2304 bytes per row = 288 cycles.
  EXPECT_EQ(instructionCycles(cfg, memInsn(Opcode::kLoad, MemType::kWgt, {.y = 8, .x = 9}), p),
            1u + 8 * (32 + 288));
  // ACC_8BIT moves 16 DRAM bytes per 64-byte accumulator entry: 4 entries = 64 bytes = 8 cycles.
  EXPECT_EQ(instructionCycles(cfg, memInsn(Opcode::kLoad, MemType::kAcc8Bit, {.x = 4}), p),
            1u + 32 + 8);
  // STORE of one 16-byte OUT entry: 2 cycles of data.
  EXPECT_EQ(instructionCycles(cfg, memInsn(Opcode::kStore, MemType::kOut, {}), p), 1u + 32 + 2);
  // GEMM 8 x 7 x 126 micro-ops (seed 004): 1 issue + 4 pipeline + 7056.
  Instruction g = gemmInsn(LoopArgs{.uopBgn = 28, .uopEnd = 154, .iterOut = 8, .iterIn = 7});
  EXPECT_EQ(instructionCycles(cfg, g, p), 1u + 4 + 7056);
  // ALU 1 x 784 x 1 micro-ops at 2 cycles each.
  Instruction a = test::aluInsn(AluOpcode::kShr, true, 8, LoopArgs{.uopEnd = 1, .iterIn = 784});
  EXPECT_EQ(instructionCycles(cfg, a, p), 1u + 4 + 2 * 784);
  // NOPs and FINISH only issue.
  EXPECT_EQ(instructionCycles(cfg, Instruction::nop(Stage::kLoad, {}), p), 1u);
  EXPECT_EQ(instructionCycles(cfg, finishInsn(), p), 1u);
}

TEST(VtaTiming, SingleLoad) {
  // LOAD INP [0, 481) on the load module; FINISH [0, 1) on compute (it waits for nothing).
  const std::vector<Instruction> program = {
      memInsn(Opcode::kLoad, MemType::kInp, {.y = 8, .x = 14, .stride = 14}), finishInsn()};
  const TimingReport r = estimateTiming(Config{}, program);
  EXPECT_EQ(r.totalCycles, 481u);
  EXPECT_EQ(r.instructions[0].start, 0u);
  EXPECT_EQ(r.instructions[0].finish, 481u);
  EXPECT_EQ(r.modules[kLoad].busy, 481u);
  EXPECT_EQ(r.modules[kLoad].idle, 0u);
  EXPECT_DOUBLE_EQ(r.utilisation(Stage::kLoad), 1.0);
  EXPECT_EQ(r.modules[kCompute].busy, 1u);
  EXPECT_EQ(r.modules[kCompute].idle, 480u);
  EXPECT_EQ(r.modules[kStore].idle, 481u);
  EXPECT_EQ(r.criticalPath, std::vector<size_t>{0});
}

TEST(VtaTiming, ChainWithTokensTakesTheSumOfItsCosts) {
  // load -> compute -> store -> FINISH, each waiting for the previous one's token:
  // 481 + (1 + 4 + 24) + (1 + 32 + 2) + 1 = 546.
  const std::vector<Instruction> program = {
      memInsn(Opcode::kLoad, MemType::kInp, {.y = 8, .x = 14, .stride = 14},
              deps(false, false, false, true)),
      gemmInsn(LoopArgs{.uopEnd = 4, .iterOut = 2, .iterIn = 3}, false,
               deps(true, false, false, true)),
      memInsn(Opcode::kStore, MemType::kOut, {}, deps(true, false, true, false)),
      finishInsn(deps(false, true, false, false))};
  const TimingReport r = estimateTiming(Config{}, program);
  EXPECT_EQ(r.totalCycles, 481u + 29 + 35 + 1);
  EXPECT_EQ(r.instructions[1].start, 481u);
  EXPECT_EQ(r.instructions[1].waitedFor, 0);
  EXPECT_EQ(r.instructions[1].waitQueue, TokenQueue::kL2C);
  EXPECT_EQ(r.instructions[2].start, 510u);
  EXPECT_EQ(r.instructions[3].start, 545u);
  EXPECT_EQ(r.instructions[3].waitQueue, TokenQueue::kS2C);
  // Compute: busy 29 + 1, waits 481 on load->compute and 35 on store->compute.
  const ModuleTiming& c = r.modules[kCompute];
  EXPECT_EQ(c.busy, 30u);
  EXPECT_EQ(c.wait[int(TokenQueue::kL2C)], 481u);
  EXPECT_EQ(c.wait[int(TokenQueue::kS2C)], 35u);
  EXPECT_EQ(c.idle, 0u);
  EXPECT_EQ(r.modules[kStore].wait[int(TokenQueue::kC2S)], 510u);
  EXPECT_EQ(r.modules[kStore].idle, 1u);
  EXPECT_EQ(r.modules[kLoad].idle, 546u - 481);
  EXPECT_EQ(r.criticalPath, (std::vector<size_t>{0, 1, 2, 3}));
  EXPECT_EQ(r.gemmCycles, 24u);
}

TEST(VtaTiming, IndependentLoadsOverlapCompute) {
  // Two buffers: the second load needs no permission, so it runs while the first GEMM computes.
  // L0 [0,10) L1 [10,20); C0 [10,20) C1 [20,30); FINISH at 30 (serial would be 40).
  const std::vector<Instruction> program = {
      loadInp(10, deps(false, false, false, true)), loadInp(10, deps(false, false, false, true)),
      gemm(10, deps(true, false, false, false)), gemm(10, deps(true, false, false, false)),
      finishInsn()};
  const TimingReport r = estimateTiming(Config{}, program, kUnit);
  EXPECT_EQ(r.totalCycles, 30u);
  EXPECT_EQ(r.instructions[1].start, 10u);
  EXPECT_EQ(r.instructions[2].start, 10u);
  EXPECT_EQ(r.instructions[3].start, 20u);
  EXPECT_EQ(r.modules[kCompute].busy, 20u);
  EXPECT_EQ(r.modules[kCompute].wait[int(TokenQueue::kL2C)], 10u);
  EXPECT_EQ(r.gemmCycles, 20u);
  EXPECT_DOUBLE_EQ(r.gemmUtilisation(), 20.0 / 30.0);
  // C1's token was ready when compute became free, so its module predecessor bound it.
  EXPECT_EQ(r.instructions[3].waitedFor, -1);
  EXPECT_EQ(r.criticalPath, (std::vector<size_t>{0, 2, 3, 4}));
  const std::vector<CriticalSegment> seg = r.criticalSegments();
  ASSERT_EQ(seg.size(), 2u);
  EXPECT_EQ(seg[0].module, Stage::kLoad);
  EXPECT_EQ(seg[0].cycles, 10u);
  EXPECT_EQ(seg[1].module, Stage::kCompute);
  EXPECT_EQ(std::tuple(seg[1].first, seg[1].last, seg[1].instructions, seg[1].cycles),
            std::tuple(size_t{2}, size_t{4}, uint64_t{3}, uint64_t{20}));
}

TEST(VtaTiming, SharedBufferStallsTheLoadOnTheCompute) {
  // One buffer: the second load must wait for the first GEMM's compute->load token.
  // L0 [0,10), C0 [10,20), L1 waits 10 cycles then [20,30), C1 [30,40).
  const std::vector<Instruction> program = {
      loadInp(10, deps(false, false, false, true)), gemm(10, deps(true, false, true, false)),
      loadInp(10, deps(false, true, false, true)), gemm(10, deps(true, false, false, false)),
      finishInsn()};
  const TimingReport r = estimateTiming(Config{}, program, kUnit);
  EXPECT_EQ(r.totalCycles, 40u);
  EXPECT_EQ(r.instructions[2].start, 20u);
  EXPECT_EQ(r.instructions[2].waitedFor, 1);
  EXPECT_EQ(r.instructions[2].waitQueue, TokenQueue::kC2L);
  EXPECT_EQ(r.modules[kLoad].wait[int(TokenQueue::kC2L)], 10u);
  EXPECT_EQ(r.modules[kLoad].idle, 10u);
  EXPECT_EQ(r.modules[kCompute].wait[int(TokenQueue::kL2C)], 20u);
  EXPECT_EQ(r.criticalPath, (std::vector<size_t>{0, 1, 2, 3, 4}));
  uint64_t sum = 0;
  for (size_t i : r.criticalPath) sum += r.instructions[i].cost();
  EXPECT_EQ(sum, r.totalCycles);
}

TEST(VtaTiming, TokensPresentAtTheStartDoNotStall) {
  // A load popping compute->load finds the token left by an earlier run.
  const std::vector<Instruction> program = {loadInp(10, deps(false, true, false, false)),
                                            finishInsn()};
  TokenQueues initial;
  initial.c2l = 1;
  const TimingReport r = estimateTiming(Config{}, program, kUnit, initial);
  EXPECT_EQ(r.totalCycles, 10u);
  EXPECT_EQ(r.instructions[0].start, 0u);
  EXPECT_EQ(r.modules[kLoad].waitTotal(), 0u);
  EXPECT_THROW(estimateTiming(Config{}, program, kUnit), DiagnosticError);
}

TEST(VtaTiming, MissingTokenIsADeadlockDiagnostic) {
  const std::vector<Instruction> program = {gemm(4, deps(true, false, false, false)), finishInsn()};
  try {
    estimateTiming(Config{}, program);
    FAIL() << "no diagnostic";
  } catch (const DiagnosticError& e) {
    EXPECT_EQ(e.diagnostic().code, "vta_deadlock");
    EXPECT_NE(std::string(e.what()).find("instruction 0 (GEMM)"), std::string::npos) << e.what();
  }
}

TEST(VtaTiming, ReportTableAndJson) {
  const std::vector<Instruction> program = {
      loadInp(10, deps(false, false, false, true)), loadInp(10, deps(false, false, false, true)),
      gemm(10, deps(true, false, false, false)), gemm(10, deps(true, false, false, false)),
      finishInsn()};
  const TimingReport r = estimateTiming(Config{}, program, kUnit);
  const std::string text = r.format();
  EXPECT_NE(text.find("\ttotal_cycles    :               30\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\tcompute        3          20  66.7%           10            0\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("waits on load->compute             10"), std::string::npos) << text;
  EXPECT_NE(text.find("gemm_utilisation:            66.7%"), std::string::npos) << text;
  EXPECT_NE(text.find("critical path   : 4 instructions in 2 segments"), std::string::npos) << text;
  const nlohmann::json j = nlohmann::json::parse(r.toJson());
  EXPECT_EQ(j["total_cycles"], 30);
  EXPECT_EQ(j["modules"]["compute"]["busy_cycles"], 20);
  EXPECT_EQ(j["modules"]["compute"]["wait_cycles"]["load->compute"], 10);
  EXPECT_EQ(j["modules"]["load"]["idle_cycles"], 10);
  EXPECT_EQ(j["critical_path"]["instructions"], 4);
  EXPECT_EQ(j["critical_path"]["segments"][1]["module"], "compute");
  EXPECT_EQ(j["params"]["dma_bytes_per_cycle"], 16);
}

}  // namespace
}  // namespace tessera::vta
