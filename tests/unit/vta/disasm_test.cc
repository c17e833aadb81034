// The disassembler's text for every instruction kind, with and without indices, and its handling
// of words that do not decode.
#include "vta/rt/disasm.h"

#include <gtest/gtest.h>

#include "sim_rig.h"

namespace tessera::vta {
namespace {

using test::deps;
using test::LoopArgs;
using test::MemArgs;

TEST(VtaDisasm, OneLinePerInstructionKind) {
  EXPECT_EQ(disassemble(Instruction::nop(Stage::kStore, deps(false, false, true, false))),
            "NOP-STORE         push_prev");
  EXPECT_EQ(disassemble(Instruction::nop(Stage::kCompute, deps(true, true, false, false))),
            "NOP-COMPUTE       pop_prev+pop_next");
  EXPECT_EQ(disassemble(test::memInsn(Opcode::kLoad, MemType::kInp,
                                      MemArgs{.sram = 0,
                                              .dram = 256,
                                              .y = 8,
                                              .x = 14,
                                              .stride = 14,
                                              .yPad0 = 1,
                                              .xPad0 = 1,
                                              .xPad1 = 1},
                                      deps(false, true, false, false))),
            "LOAD INP          pop_next            sram 0, dram 256, y 8, x 14, stride 14, "
            "pad y [1, 0] x [1, 1]");
  EXPECT_EQ(disassemble(test::memInsn(Opcode::kStore, MemType::kOut,
                                      MemArgs{.sram = 5, .dram = 9, .y = 1, .x = 1, .stride = 1})),
            "STORE OUT         -                   sram 5, dram 9, y 1, x 1, stride 1");
  EXPECT_EQ(disassemble(test::gemmInsn(LoopArgs{.uopBgn = 28,
                                                .uopEnd = 154,
                                                .iterOut = 8,
                                                .iterIn = 7,
                                                .dstOut = 98,
                                                .dstIn = 14,
                                                .srcOut = 0,
                                                .srcIn = 16,
                                                .wgtOut = 9,
                                                .wgtIn = 0},
                                       false, deps(false, false, true, false))),
            "GEMM              push_prev           uop [28, 154) out 8 (acc 98, inp 0, wgt 9) "
            "in 7 (acc 14, inp 16, wgt 0)");
  EXPECT_EQ(disassemble(test::gemmInsn(LoopArgs{.uopEnd = 14}, true)),
            "GEMM reset        -                   uop [0, 14) out 1 (acc 0, inp 0, wgt 0) in 1 "
            "(acc 0, inp 0, wgt 0)");
  EXPECT_EQ(disassemble(test::aluInsn(
                AluOpcode::kShr, true, 8,
                LoopArgs{.uopBgn = 280, .uopEnd = 281, .iterIn = 784, .dstIn = 1, .srcIn = 1},
                deps(false, false, false, true))),
            "ALU SHR imm 8     push_next           uop [280, 281) out 1 (dst 0, src 0) in 784 "
            "(dst 1, src 1)");
  EXPECT_EQ(disassemble(test::aluInsn(AluOpcode::kAdd, false, 0, LoopArgs{})),
            "ALU ADD           -                   uop [0, 1) out 1 (dst 0, src 0) in 1 (dst 0, "
            "src 0)");
  EXPECT_EQ(disassemble(test::finishInsn()), "FINISH            -");
}

TEST(VtaDisasm, ListingsNumberInstructionsAndSurviveBadWords) {
  const std::vector<Instruction> program = {
      Instruction::nop(Stage::kStore, deps(false, false, true, false)), test::finishInsn()};
  EXPECT_EQ(disassemble(program),
            "     0  NOP-STORE         push_prev\n"
            "     1  FINISH            -\n");
  const IsaLayout layout(Config::defaults());
  const std::vector<EncodedInstruction> words = {
      layout.encode(program[0]), {7, 0}, layout.encode(program[1])};
  const std::string text = disassemble(layout, words);
  EXPECT_NE(text.find("     1  <invalid: field opcode has unknown value 7"), std::string::npos)
      << text;
  EXPECT_NE(text.find("     2  FINISH"), std::string::npos) << text;
  EXPECT_EQ(disassembleUops(std::vector<Uop>{{1, 2, 3}}, 28),
            "        uop 28: dst 1 src 2 wgt 3\n");
}

}  // namespace
}  // namespace tessera::vta
