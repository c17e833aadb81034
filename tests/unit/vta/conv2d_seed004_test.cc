// Seed 004: the lowered ResNet-18 layer-9 convolution, transcribed statement by statement from the
// seed's final `vta.lower` listing into runtime calls. Its output must equal the plain reference
// (conv, >> 8, clip [0, 127], packed layout) and its counters the seed's printed statistics.
#include <algorithm>

#include <gtest/gtest.h>

#include "vta/rt/disasm.h"
#include "vta/rt/reference_programs.h"
#include "vta/rt/runtime.h"
#include "vta_test_util.h"

namespace tessera::vta {
namespace {

// The listing, with its cse_var names; `cthread_s` loops are the two virtual threads.
void seed004Listing(CommandQueue& q, DeviceBuffer data, DeviceBuffer kernel, DeviceBuffer res) {
  UopKernelCache resetSite, gemmSite, shrSite, maxSite, minSite;  // one per coproc_uop_scope
  q.depPush(3, 2);
  q.depPush(3, 2);
  for (int i2Outer = 0; i2Outer < 2; ++i2Outer) {
    for (int cthreadS = 0; cthreadS < 2; ++cthreadS) {
      q.depPop(3, 2);
      q.pushGemmOp(resetSite, cthreadS, [&](int32_t t) {
        q.uopLoopBegin(8, 98, 0, 0);
        q.uopLoopBegin(7, 14, 0, 0);
        for (int jInit = 0; jInit < 14; ++jInit) q.uopPush(0, 1, t * 784 + jInit, 0, 0, 0, 0, 0);
        q.uopLoopEnd();
        q.uopLoopEnd();
      });
      q.depPush(2, 1);
    }
    for (int icOuter = 0; icOuter < 16; ++icOuter) {
      const int cseVar6 = i2Outer * 7;
      const int cseVar5 = icOuter * 9;
      const int cseVar4 = std::max(1 - cseVar6, 0);
      const int cseVar3 = std::max(cseVar6 - 6, 0);
      const int cseVar2 = 9 - cseVar4 - cseVar3;
      const int cseVar1 = icOuter * 196 + i2Outer * 98 + cseVar4 * 14 - 14;
      q.depPop(2, 1);
      q.loadBuffer2D(data, cseVar1, 14, cseVar2, 14, 1, cseVar4, 1, cseVar3, 0, MemType::kInp);
      q.loadBuffer2D(kernel, cseVar5, 9, 8, 144, 0, 0, 0, 0, 0, MemType::kWgt);
      q.depPush(1, 2);
      q.depPop(2, 1);
      q.loadBuffer2D(data, cseVar1, 14, cseVar2, 14, 1, cseVar4, 1, cseVar3, 144, MemType::kInp);
      q.loadBuffer2D(kernel, cseVar5 + 1152, 9, 8, 144, 0, 0, 0, 0, 72, MemType::kWgt);
      q.depPush(1, 2);
      for (int cthreadS = 0; cthreadS < 2; ++cthreadS) {
        q.depPop(1, 2);
        q.pushGemmOp(gemmSite, cthreadS, [&](int32_t t) {
          q.uopLoopBegin(8, 98, 0, 9);
          q.uopLoopBegin(7, 14, 16, 0);
          for (int dy = 0; dy < 3; ++dy) {
            for (int dx = 0; dx < 3; ++dx) {
              for (int j = 0; j < 14; ++j) {
                q.uopPush(0, 0, t * 784 + j, t * 144 + dy * 16 + j + dx, t * 72 + dy * 3 + dx, 0, 0,
                          0);
              }
            }
          }
          q.uopLoopEnd();
          q.uopLoopEnd();
        });
        q.depPush(2, 1);
      }
    }
    q.depPop(2, 1);
    q.depPop(2, 1);
    for (int cthreadS = 0; cthreadS < 2; ++cthreadS) {
      auto aluKernel = [&](UopKernelCache& site, int opcode, int32_t imm) {
        q.pushAluOp(site, cthreadS, [&](int32_t t) {
          const int cseVar7 = t * 784;
          q.uopLoopBegin(784, 1, 1, 0);
          q.uopPush(1, 0, cseVar7, cseVar7, 0, opcode, 1, imm);
          q.uopLoopEnd();
        });
      };
      aluKernel(shrSite, 3, 8);
      aluKernel(maxSite, 1, 0);
      aluKernel(minSite, 0, 127);
      q.depPush(2, 3);
    }
    for (int cthreadS = 0; cthreadS < 2; ++cthreadS) {
      q.depPop(2, 3);
      for (int i1Inner = 0; i1Inner < 8; ++i1Inner) {
        for (int i2Inner = 0; i2Inner < 7; ++i2Inner) {
          for (int i3Inner = 0; i3Inner < 14; ++i3Inner) {
            const int cseVar8 = i2Inner * 14;
            q.storeBuffer2D(cthreadS * 784 + i1Inner * 98 + cseVar8 + i3Inner, MemType::kOut, res,
                            cthreadS * 1568 + i1Inner * 196 + i2Outer * 98 + cseVar8 + i3Inner, 1,
                            1, 1);
          }
        }
      }
      q.depPush(3, 2);
    }
  }
  q.depPop(3, 2);
  q.depPop(3, 2);
  q.synchronize();
}

struct Seed004Data {
  std::vector<int32_t> dataNchw, kernelOihw, expected;
};

const Seed004Data& seedData() {
  static const Seed004Data d = [] {
    Seed004Data s;
    s.dataNchw = test::randomInts(1 * 256 * 14 * 14, -128, 127, 4);
    s.kernelOihw = test::randomInts(256 * 256 * 3 * 3, -128, 127, 5);
    s.expected =
        test::referenceConv2d(s.dataNchw, s.kernelOihw, 1, 256, 14, 14, 256, 3, 1, 8, 127, 1, 16);
    return s;
  }();
  return d;
}

// Runs `program` on a fresh queue with the seed's random tensors; returns the packed output.
template <typename Program>
std::vector<int32_t> runSeed004(CommandQueue& q, Program program) {
  const Seed004Data& d = seedData();
  DeviceBuffer data = test::upload(q, test::packData(d.dataNchw, 1, 256, 14, 14, 1, 16), 8);
  DeviceBuffer kernel = test::upload(q, test::packKernel(d.kernelOihw, 256, 256, 3, 16, 16), 8);
  DeviceBuffer res = q.bufferAlloc(256 * 14 * 14);
  program(q, data, kernel, res);
  return test::download(q, res, 8, 256 * 14 * 14);
}

TEST(VtaSeed004, ConvOutputCountersAndInstructionCount) {
  CommandQueue q;
  const std::vector<int32_t> out = runSeed004(q, seed004Listing);
  EXPECT_EQ(out, seedData().expected);
  EXPECT_EQ(q.stats(), test::makeStats(114688, 1179648, 0, 1144, 50176, 451584, 9408))
      << q.stats().format();
  EXPECT_EQ(q.stats().format(),
            "\tinp_load_nbytes :           114688\n"
            "\twgt_load_nbytes :          1179648\n"
            "\tacc_load_nbytes :                0\n"
            "\tuop_load_nbytes :             1144\n"
            "\tout_store_nbytes:            50176\n"
            "\tgemm_counter    :           451584\n"
            "\talu_counter     :             9408\n");
  // 3366 = 64 LOAD INP + 64 LOAD WGT + 10 LOAD UOP + 68 GEMM (4 reset) + 12 ALU + 3136 STORE
  //        + 5 load NOPs + 3 compute NOPs + 3 store NOPs + 1 FINISH (spec §5.8).
  const test::InsnCounts counts = test::countInstructions(q.lastRun());
  test::InsnCounts expected;
  expected.loadInp = 64;
  expected.loadWgt = 64;
  expected.loadUop = 10;
  expected.gemm = 68;
  expected.gemmReset = 4;
  expected.alu = 12;
  expected.store = 3136;
  expected.loadNop = 5;
  expected.computeNop = 3;
  expected.storeNop = 3;
  expected.finish = 1;
  EXPECT_EQ(counts, expected) << test::describe(counts);
  EXPECT_EQ(q.lastRun().size(), 3366u);
  EXPECT_TRUE(q.simulator().tokens().empty());
}

TEST(VtaSeed004, StreamMatchesTheWorkedTrace) {
  CommandQueue q;
  runSeed004(q, seed004Listing);
  const std::vector<Instruction>& s = q.lastRun();
  ASSERT_EQ(s.size(), 3366u);
  auto flags = [](const Instruction& i) {
    std::string f;
    if (i.dep.popPrev) f += "pop_prev ";
    if (i.dep.popNext) f += "pop_next ";
    if (i.dep.pushPrev) f += "push_prev ";
    if (i.dep.pushNext) f += "push_next ";
    return f;
  };
  // Spec §5.8, instructions 0..13.
  EXPECT_TRUE(s[0].isNop() && s[0].opcode == Opcode::kStore);
  EXPECT_EQ(flags(s[0]), "push_prev ");
  EXPECT_TRUE(s[1].isNop() && s[1].opcode == Opcode::kStore);
  EXPECT_EQ(flags(s[1]), "push_prev ");
  EXPECT_EQ(s[2].memType, MemType::kUop);
  EXPECT_EQ(flags(s[2]), "pop_next ");
  EXPECT_EQ(s[2].sramBase, 0u);
  EXPECT_EQ(s[2].xSize, 14u);
  EXPECT_EQ(s[3].opcode, Opcode::kGemm);
  EXPECT_TRUE(s[3].resetReg);
  EXPECT_EQ(flags(s[3]), "push_prev ");
  EXPECT_EQ(std::tuple(s[3].uopBgn, s[3].uopEnd, s[3].iterOut, s[3].dstFactorOut, s[3].iterIn,
                       s[3].dstFactorIn),
            std::tuple(0u, 14u, 8u, 98u, 7u, 14u));
  EXPECT_EQ(std::tuple(s[4].sramBase, s[4].xSize), std::tuple(14u, 14u));
  EXPECT_EQ(flags(s[4]), "pop_next ");
  EXPECT_EQ(std::tuple(s[5].uopBgn, s[5].uopEnd), std::tuple(14u, 28u));
  EXPECT_EQ(s[6].memType, MemType::kInp);
  EXPECT_EQ(flags(s[6]), "pop_next ");
  EXPECT_EQ(std::tuple(s[6].sramBase, s[6].ySize, s[6].yPad0, s[6].yPad1, s[6].xSize, s[6].xStride,
                       s[6].xPad0, s[6].xPad1),
            std::tuple(0u, 8u, 1u, 0u, 14u, 14u, 1u, 1u));
  EXPECT_EQ(s[7].memType, MemType::kWgt);
  EXPECT_EQ(flags(s[7]), "push_next ");
  EXPECT_EQ(std::tuple(s[7].sramBase, s[7].ySize, s[7].xSize, s[7].xStride),
            std::tuple(0u, 8u, 9u, 144u));
  EXPECT_EQ(s[8].sramBase, 144u);
  EXPECT_EQ(flags(s[8]), "pop_next ");
  EXPECT_EQ(s[9].sramBase, 72u);
  EXPECT_EQ(s[9].dramBase - s[7].dramBase, 1152u);
  EXPECT_EQ(std::tuple(s[10].memType, s[10].sramBase, s[10].xSize),
            std::tuple(MemType::kUop, 28u, 126u));
  EXPECT_EQ(flags(s[10]), "pop_prev ");
  EXPECT_EQ(s[11].opcode, Opcode::kGemm);
  EXPECT_EQ(flags(s[11]), "push_prev ");
  EXPECT_EQ(std::tuple(s[11].uopBgn, s[11].uopEnd, s[11].iterOut, s[11].dstFactorOut,
                       s[11].srcFactorOut, s[11].wgtFactorOut, s[11].iterIn, s[11].dstFactorIn,
                       s[11].srcFactorIn, s[11].wgtFactorIn),
            std::tuple(28u, 154u, 8u, 98u, 0u, 9u, 7u, 14u, 16u, 0u));
  EXPECT_EQ(std::tuple(s[12].sramBase, s[12].xSize), std::tuple(154u, 126u));
  EXPECT_EQ(std::tuple(s[13].uopBgn, s[13].uopEnd), std::tuple(154u, 280u));
  // Instructions 3359..3365: the drain pops and the completion protocol.
  const std::vector<std::pair<std::string, std::string>> tail = {{"LOAD NOP", "pop_next "},
                                                                 {"STORE NOP", "push_prev "},
                                                                 {"LOAD NOP", "pop_next "},
                                                                 {"LOAD NOP", "push_next "},
                                                                 {"LOAD NOP", "pop_next "},
                                                                 {"LOAD NOP", "pop_prev pop_next "},
                                                                 {"FINISH", ""}};
  const std::vector<Stage> tailModules = {Stage::kCompute, Stage::kStore,   Stage::kLoad,
                                          Stage::kLoad,    Stage::kCompute, Stage::kCompute,
                                          Stage::kCompute};
  for (size_t i = 0; i < tail.size(); ++i) {
    const Instruction& insn = s[3359 + i];
    std::string name(opcodeName(insn.opcode));
    if (insn.isNop()) name += " NOP";
    EXPECT_EQ(name, tail[i].first) << 3359 + i;
    EXPECT_EQ(flags(insn), tail[i].second) << 3359 + i;
    EXPECT_EQ(insn.module(), tailModules[i]) << 3359 + i;
  }
}

TEST(VtaSeed004, GeneralisedProgramEqualsTheListing) {
  // The configuration-generic conv2d (used for non-default configs, the recorder and the bench)
  // emits exactly the listing's stream for the seed workload.
  CommandQueue listing;
  runSeed004(listing, seed004Listing);
  CommandQueue general;
  const std::vector<int32_t> out =
      runSeed004(general, [](CommandQueue& q, DeviceBuffer d, DeviceBuffer k, DeviceBuffer r) {
        reference::conv2d(q, reference::Conv2dWorkload::seed004(q.config()), d, k, r);
      });
  ASSERT_EQ(general.lastRun().size(), listing.lastRun().size());
  for (size_t i = 0; i < listing.lastRun().size(); ++i) {
    ASSERT_EQ(general.lastRun()[i], listing.lastRun()[i])
        << i << ": " << disassemble(general.lastRun()[i]) << " vs "
        << disassemble(listing.lastRun()[i]);
  }
  EXPECT_EQ(out, seedData().expected);
  EXPECT_EQ(general.stats(), listing.stats());
}

}  // namespace
}  // namespace tessera::vta
