// Malformed instruction streams (spec §4.9): each problem is a DiagnosticError whose context names
// the instruction and whose message names the field; the simulator never crashes or hangs, and
// recovers for the next run.
#include <random>

#include <gtest/gtest.h>

#include "sim_rig.h"
#include "support/diagnostic.h"
#include "vta_test_util.h"

namespace tessera::vta {
namespace {

using test::deps;
using test::LoopArgs;
using test::MemArgs;

void expectError(test::SimRig& rig, const std::vector<Instruction>& program,
                 const std::string& code, const std::string& context, const std::string& fragment) {
  try {
    rig.run(program);
    ADD_FAILURE() << "expected " << code << ": " << fragment;
  } catch (const DiagnosticError& e) {
    EXPECT_EQ(e.diagnostic().code, code) << e.what();
    EXPECT_NE(e.diagnostic().context.find(context), std::string::npos) << e.what();
    EXPECT_NE(e.diagnostic().message.find(fragment), std::string::npos) << e.what();
  }
}

TEST(VtaSimErrors, BadOpcodeInTheEncodedStream) {
  test::SimRig rig;
  std::vector<EncodedInstruction> words = {rig.layout.encode(test::finishInsn())};
  words.insert(words.begin(), EncodedInstruction{6, 0});
  try {
    rig.sim.run(words);
    FAIL();
  } catch (const DiagnosticError& e) {
    EXPECT_EQ(e.diagnostic().code, "vta_decode");
    EXPECT_EQ(e.diagnostic().context, "instruction 0");
    EXPECT_NE(e.diagnostic().message.find("field opcode has unknown value 6"), std::string::npos);
  }
}

TEST(VtaSimErrors, SramOverflowOfALoad) {
  test::SimRig rig;
  const uint32_t base = uint32_t(rig.put(std::vector<int8_t>(16 * 16)) / 16);
  // 2040 + 4 × 2 padded entries = 2048 fits; one more pad column does not.
  rig.run(
      {test::memInsn(Opcode::kLoad, MemType::kInp,
                     MemArgs{.sram = 2040, .dram = base, .y = 2, .x = 3, .stride = 3, .xPad0 = 1}),
       test::finishInsn()});
  expectError(
      rig,
      {test::finishInsn(deps(false, false, false, false)),
       test::memInsn(
           Opcode::kLoad, MemType::kInp,
           MemArgs{
               .sram = 2040, .dram = base, .y = 2, .x = 3, .stride = 3, .xPad0 = 1, .xPad1 = 1})},
      "vta_sim", "instruction 1 (LOAD INP)", "field sram_base");
}

TEST(VtaSimErrors, DramAccessOutsideAnAllocation) {
  test::SimRig rig;
  const uint32_t base = uint32_t(rig.put(std::vector<int8_t>(4 * 16)) / 16);
  // Row 1 starts 4 entries in and needs 2: past the 64-byte allocation.
  expectError(rig,
              {test::memInsn(Opcode::kLoad, MemType::kInp,
                             MemArgs{.dram = base, .y = 2, .x = 2, .stride = 3}),
               test::finishInsn()},
              "vta_sim", "instruction 0 (LOAD INP)", "field dram_base");
  expectError(rig,
              {test::memInsn(Opcode::kLoad, MemType::kWgt, MemArgs{.dram = 0}), test::finishInsn()},
              "vta_sim", "instruction 0 (LOAD WGT)", "not inside one allocation");
  const uint64_t out = rig.dram.allocate(16);
  expectError(rig,
              {test::memInsn(Opcode::kStore, MemType::kOut,
                             MemArgs{.dram = uint32_t(out / 16), .x = 2, .stride = 2}),
               test::finishInsn()},
              "vta_sim", "instruction 0 (STORE OUT)", "field dram_base");
}

TEST(VtaSimErrors, ComputeIndexOutOfRange) {
  test::SimRig rig;
  const uint32_t uops = rig.putUops({{100, 0, 0}, {5, 2040, 1000}});
  const auto load =
      test::memInsn(Opcode::kLoad, MemType::kUop, MemArgs{.dram = uops, .x = 2, .stride = 2});
  // dst 100 + 7·300 = 2200 >= 2048.
  expectError(rig,
              {load, test::gemmInsn(LoopArgs{.uopEnd = 1, .iterOut = 8, .dstOut = 300}),
               test::finishInsn()},
              "vta_sim", "instruction 1 (GEMM)", "field dst_factor_out/dst_factor_in");
  // src 2040 + 1·8 = 2048 (input depth 2048).
  expectError(rig,
              {load, test::gemmInsn(LoopArgs{.uopBgn = 1, .uopEnd = 2, .iterIn = 2, .srcIn = 8}),
               test::finishInsn()},
              "vta_sim", "instruction 1 (GEMM)", "input index 2048");
  // wgt 1000 + 3·10 = 1030 >= 1024.
  expectError(rig,
              {load, test::gemmInsn(LoopArgs{.uopBgn = 1, .uopEnd = 2, .iterOut = 4, .wgtOut = 10}),
               test::finishInsn()},
              "vta_sim", "instruction 1 (GEMM)", "weight index 1030");
  // A reset GEMM ignores src and wgt, so the same loop is fine there.
  rig.run({load,
           test::gemmInsn(LoopArgs{.uopBgn = 1, .uopEnd = 2, .iterOut = 4, .wgtOut = 10}, true),
           test::finishInsn()});
  // ALU sources index the accumulator.
  expectError(rig,
              {load,
               test::aluInsn(AluOpcode::kAdd, false, 0,
                             LoopArgs{.uopBgn = 1, .uopEnd = 2, .iterIn = 2, .srcIn = 8}),
               test::finishInsn()},
              "vta_sim", "instruction 1 (ALU ADD)", "accumulator index 2048");
  expectError(rig, {load, test::gemmInsn(LoopArgs{.uopBgn = 3, .uopEnd = 2}), test::finishInsn()},
              "vta_sim", "instruction 1 (GEMM)", "field uop_bgn");
  expectError(rig,
              {load, test::gemmInsn(LoopArgs{.uopBgn = 0, .uopEnd = 8193}), test::finishInsn()},
              "vta_sim", "instruction 1 (GEMM)", "field uop_end");
}

TEST(VtaSimErrors, StoreAndLoadMemoryTypes) {
  test::SimRig rig;
  const uint64_t out = rig.dram.allocate(64);
  expectError(rig,
              {test::memInsn(Opcode::kStore, MemType::kAcc, MemArgs{.dram = uint32_t(out / 16)}),
               test::finishInsn()},
              "vta_sim", "instruction 0 (STORE ACC)", "field memory_type must be OUT");
  expectError(rig,
              {test::memInsn(Opcode::kStore, MemType::kOut,
                             MemArgs{.dram = uint32_t(out / 16), .xPad0 = 1}),
               test::finishInsn()},
              "vta_sim", "instruction 0 (STORE OUT)", "must be 0 in a STORE");
  expectError(
      rig,
      {test::memInsn(Opcode::kStore, MemType::kOut,
                     MemArgs{.sram = 2047, .dram = uint32_t(out / 16), .x = 2, .stride = 2}),
       test::finishInsn()},
      "vta_sim", "instruction 0 (STORE OUT)", "run past the accumulator depth");
  expectError(rig,
              {test::memInsn(Opcode::kLoad, MemType::kOut, MemArgs{.dram = uint32_t(out / 16)}),
               test::finishInsn()},
              "vta_sim", "instruction 0 (LOAD OUT)", "only valid in STORE");
}

TEST(VtaSimErrors, DeadlockNamesTheBlockedInstructions) {
  test::SimRig rig;
  // The GEMM waits for a load->compute token nobody pushes.
  expectError(rig,
              {test::gemmInsn(LoopArgs{.uopEnd = 0}, false, deps(true, false, false, false)),
               test::finishInsn()},
              "vta_deadlock", "instruction 0 (GEMM)", "compute module waits at instruction 0");
  // Two modules waiting on each other.
  expectError(
      rig,
      {test::memInsn(Opcode::kLoad, MemType::kInp, MemArgs{.x = 0}, deps(false, true, false, true)),
       test::memInsn(Opcode::kLoad, MemType::kUop, MemArgs{.x = 0}, deps(true, false, true, false)),
       test::finishInsn()},
      "vta_deadlock", "instruction 0", "load module waits at instruction 0");
  EXPECT_TRUE(rig.sim.tokens().empty());
}

TEST(VtaSimErrors, UnbalancedTokensAtFinish) {
  test::SimRig rig;
  expectError(rig,
              {test::memInsn(Opcode::kLoad, MemType::kInp, MemArgs{.x = 0},
                             deps(false, false, false, true)),
               test::finishInsn()},
              "vta_sim", "instruction stream", "unbalanced dependency tokens");
  EXPECT_TRUE(rig.sim.tokens().empty());  // the failed run leaves nothing behind
  // The runtime's automatic mid-program runs may carry tokens over.
  std::vector<EncodedInstruction> words = {
      rig.layout.encode(test::memInsn(Opcode::kLoad, MemType::kInp, MemArgs{.x = 0},
                                      deps(false, false, false, true))),
      rig.layout.encode(test::finishInsn())};
  rig.sim.run(words, RunOptions{.allowLeftoverTokens = true});
  EXPECT_EQ(rig.sim.tokens().l2c, 1u);
}

TEST(VtaSimErrors, MissingFinishAndWorkAfterFinish) {
  test::SimRig rig;
  expectError(rig, {test::memInsn(Opcode::kLoad, MemType::kInp, MemArgs{.x = 0})}, "vta_sim",
              "instruction stream", "ended without FINISH");
  expectError(rig, {test::finishInsn(), test::gemmInsn(LoopArgs{.uopEnd = 0})}, "vta_sim",
              "instruction 1 (GEMM)", "FINISH completed the run before it");
}

TEST(VtaSimErrors, FlagsTowardsAMissingStage) {
  test::SimRig rig;
  expectError(rig,
              {test::memInsn(Opcode::kLoad, MemType::kWgt, MemArgs{.x = 0},
                             deps(true, false, false, false)),
               test::finishInsn()},
              "vta_sim", "instruction 0 (NOP-LOAD)", "field pop_prev");
  expectError(rig,
              {test::memInsn(Opcode::kStore, MemType::kOut, MemArgs{.x = 0},
                             deps(false, false, false, true)),
               test::finishInsn()},
              "vta_sim", "instruction 0 (NOP-STORE)", "field push_next");
}

TEST(VtaSimErrors, ShiftOutOfRange) {
  test::SimRig rig;
  const uint32_t uops = rig.putUops({{0, 1, 0}});
  const uint32_t acc = uint32_t(rig.put(std::vector<int32_t>(32, 40)) / 64);
  const auto loads = {
      test::memInsn(Opcode::kLoad, MemType::kUop, MemArgs{.dram = uops}),
      test::memInsn(Opcode::kLoad, MemType::kAcc, MemArgs{.dram = acc, .x = 2, .stride = 2})};
  std::vector<Instruction> imm(loads);
  imm.push_back(test::aluInsn(AluOpcode::kShr, true, 32, LoopArgs{}));
  imm.push_back(test::finishInsn());
  expectError(rig, imm, "vta_sim", "instruction 2 (ALU SHR)", "field imm: SHR amount 32");
  std::vector<Instruction> tensor(loads);
  tensor.push_back(test::aluInsn(AluOpcode::kShr, false, 0, LoopArgs{}));
  tensor.push_back(test::finishInsn());
  expectError(rig, tensor, "vta_sim", "instruction 2 (ALU SHR)", "SHR operand 40");
}

TEST(VtaSimErrors, InvalidConfigurationsAndUnencodableInstructions) {
  Config bad;
  bad.logAccWidth = 4;
  Dram dram;
  EXPECT_THROW(Simulator(bad, dram), DiagnosticError);
  test::SimRig rig;
  Instruction gemm = test::gemmInsn(LoopArgs{.iterOut = 1u << 20});
  try {
    rig.sim.runDecoded(std::vector{gemm, test::finishInsn()});
    FAIL();
  } catch (const DiagnosticError& e) {
    EXPECT_EQ(e.diagnostic().code, "vta_isa");
    EXPECT_EQ(e.diagnostic().context, "instruction 0 (GEMM)");
    EXPECT_NE(e.diagnostic().message.find("field iter_out"), std::string::npos);
  }
}

TEST(VtaSimErrors, RandomStreamsNeverCrash) {
  // Random but encodable instructions with small loop counts: every run either completes or
  // raises a DiagnosticError; afterwards a valid program still runs.
  test::SimRig rig;
  const uint64_t scratch = rig.dram.allocate(1 << 16);
  std::mt19937 gen(99);
  auto pick = [&](uint32_t hi) { return std::uniform_int_distribution<uint32_t>(0, hi)(gen); };
  int completed = 0, diagnosed = 0;
  for (int trial = 0; trial < 300; ++trial) {
    std::vector<Instruction> program;
    const int n = int(pick(12)) + 1;
    for (int k = 0; k < n; ++k) {
      Instruction i;
      i.opcode = Opcode(pick(4));
      i.dep = deps(pick(1), pick(1), pick(1), pick(1));
      if (i.opcode == Opcode::kLoad || i.opcode == Opcode::kStore) {
        i = test::memInsn(i.opcode, MemType(pick(5)),
                          MemArgs{.sram = pick(2100),
                                  .dram = uint32_t(scratch / 256) + pick(300),
                                  .y = pick(3),
                                  .x = pick(4),
                                  .stride = pick(5),
                                  .yPad0 = pick(2),
                                  .xPad1 = pick(2)},
                          i.dep);
      } else if (i.opcode == Opcode::kGemm || i.opcode == Opcode::kAlu) {
        const LoopArgs a{.uopBgn = pick(8),
                         .uopEnd = pick(8),
                         .iterOut = pick(3),
                         .iterIn = pick(3),
                         .dstOut = pick(900),
                         .dstIn = pick(3),
                         .srcOut = pick(900),
                         .srcIn = pick(3),
                         .wgtOut = pick(500)};
        i = i.opcode == Opcode::kGemm
                ? test::gemmInsn(a, pick(1), i.dep)
                : test::aluInsn(AluOpcode(pick(4)), pick(1), int32_t(pick(40)) - 20, a, i.dep);
      }
      program.push_back(i);
    }
    try {
      rig.run(program);
      ++completed;
    } catch (const DiagnosticError&) {
      ++diagnosed;
    }
  }
  EXPECT_EQ(completed + diagnosed, 300);
  EXPECT_GT(diagnosed, 0);
  rig.run({test::finishInsn()});
}

}  // namespace
}  // namespace tessera::vta
