// Simulator semantics per instruction kind (spec §4.3-§4.8) on hand-written streams: padding
// geometry, strided rows, ACC_8BIT sign extension, store truncation, GEMM loops and wrap-around,
// every ALU operation, counters (pads and resets not counted), skip mode and token ordering.
#include <gtest/gtest.h>

#include <climits>

#include "sim_rig.h"
#include "vta_test_util.h"

namespace tessera::vta {
namespace {

using test::deps;
using test::LoopArgs;
using test::MemArgs;

constexpr uint8_t kPoison = 0xA5;

TEST(VtaSim, PaddedStridedLoadGeometryAndCounters) {
  test::SimRig rig;
  std::vector<uint8_t> dram(20 * 16);
  for (size_t e = 0; e < 20; ++e) std::fill_n(dram.begin() + e * 16, 16, uint8_t(e + 1));
  const uint32_t base = uint32_t(rig.put(dram) / 16);
  // 3 rows of 3 entries from every 5th entry, starting at entry 1; pads y [1, 2], x [2, 1].
  rig.run({test::memInsn(Opcode::kLoad, MemType::kInp,
                         MemArgs{.sram = 10,
                                 .dram = base + 1,
                                 .y = 3,
                                 .x = 3,
                                 .stride = 5,
                                 .yPad0 = 1,
                                 .yPad1 = 2,
                                 .xPad0 = 2,
                                 .xPad1 = 1}),
           test::finishInsn()});
  EXPECT_EQ(rig.sim.stats().inpLoadNbytes, 3u * 3 * 16);  // padding is not counted
  auto sram = rig.sim.inpSram();
  const int width = 6, height = 6;
  for (int r = 0; r < height; ++r) {
    for (int c = 0; c < width; ++c) {
      const bool data = r >= 1 && r < 4 && c >= 2 && c < 5;
      const uint8_t expected = data ? uint8_t(1 + 1 + (r - 1) * 5 + (c - 2) + 0) : 0;
      const size_t entry = 10 + size_t(r) * width + c;
      EXPECT_EQ(sram[entry * 16], expected) << "row " << r << " col " << c;
      EXPECT_EQ(sram[entry * 16 + 15], expected);
    }
  }
  EXPECT_EQ(sram[9 * 16], kPoison);  // before and after the block: untouched
  EXPECT_EQ(sram[(10 + 36) * 16], kPoison);
}

TEST(VtaSim, Acc8BitLoadSignExtendsAndCountsSramBytes) {
  test::SimRig rig;
  std::vector<int8_t> bytes(32);
  for (int i = 0; i < 32; ++i) bytes[i] = int8_t(i * 37 - 128);
  bytes[0] = -128;
  bytes[1] = -1;
  bytes[2] = 127;
  const uint32_t base = uint32_t(rig.put(bytes) / 16);  // ACC_8BIT DRAM entries are 16 bytes
  rig.run({test::memInsn(Opcode::kLoad, MemType::kAcc8Bit,
                         MemArgs{.sram = 3, .dram = base, .y = 1, .x = 2, .stride = 2}),
           test::finishInsn()});
  EXPECT_EQ(rig.sim.stats().accLoadNbytes, 2u * 64);  // the SRAM entry size, not 16
  auto acc = rig.sim.accSram();
  for (int i = 0; i < 32; ++i) EXPECT_EQ(acc[3 * 16 + i], int32_t(bytes[i])) << i;
}

TEST(VtaSim, StoreNarrowsByTruncationAndUsesDenseSramRows) {
  test::SimRig rig;
  std::vector<int32_t> lanes = {200, -129, 127, 128, -128, 256, 65535, -1,
                                0,   1,    -2,  300, -300, 511, -512,  INT32_MIN};
  std::vector<int32_t> values;
  for (int e = 0; e < 4; ++e) {
    for (int32_t v : lanes) values.push_back(v + e);
  }
  const uint32_t src = uint32_t(rig.put(values) / 64);
  const uint64_t outPhys = rig.dram.allocate(16 * 6);
  // Two rows of two entries: SRAM rows are dense (entries 0,1 then 2,3), DRAM rows 3 apart.
  rig.run({test::memInsn(Opcode::kLoad, MemType::kAcc,
                         MemArgs{.sram = 0, .dram = src, .y = 1, .x = 4, .stride = 4},
                         deps(false, false, false, true)),
           test::memInsn(
               Opcode::kStore, MemType::kOut,
               MemArgs{.sram = 0, .dram = uint32_t(outPhys / 16), .y = 2, .x = 2, .stride = 3},
               deps(true, false, true, false)),
           test::finishInsn(deps(false, true, false, false))});
  EXPECT_EQ(rig.sim.stats().outStoreNbytes, 4u * 16);
  const std::vector<int8_t> out = rig.get<int8_t>(outPhys, 16 * 6);
  const int dramEntry[4] = {0, 1, 3, 4};
  for (int e = 0; e < 4; ++e) {
    for (int l = 0; l < 16; ++l) {
      EXPECT_EQ(out[dramEntry[e] * 16 + l], int8_t(test::truncate(values[e * 16 + l], 8)))
          << "entry " << e << " lane " << l;
    }
  }
  EXPECT_EQ(out[2 * 16], 0);  // the gap between DRAM rows is not written
}

TEST(VtaSim, GemmLoopsResetAndCounters) {
  test::SimRig rig;
  const auto inp = test::randomInts(4 * 16, -128, 127, 21);
  const auto wgt = test::randomInts(2 * 256, -128, 127, 22);
  std::vector<int8_t> inpBytes(inp.begin(), inp.end()), wgtBytes(wgt.begin(), wgt.end());
  const uint32_t inpBase = uint32_t(rig.put(inpBytes) / 16);
  const uint32_t wgtBase = uint32_t(rig.put(wgtBytes) / 256);
  const uint32_t uopBase = rig.putUops({{0, 0, 0}, {1, 1, 1}});
  const LoopArgs loops{.uopBgn = 0, .uopEnd = 2, .iterOut = 2, .dstOut = 2, .srcOut = 2};
  rig.run(
      {test::memInsn(Opcode::kLoad, MemType::kInp, MemArgs{.dram = inpBase, .x = 4, .stride = 4}),
       test::memInsn(Opcode::kLoad, MemType::kWgt, MemArgs{.dram = wgtBase, .x = 2, .stride = 2},
                     deps(false, false, false, true)),
       test::memInsn(Opcode::kLoad, MemType::kUop, MemArgs{.dram = uopBase, .x = 2, .stride = 2},
                     deps(true, false, false, false)),
       test::gemmInsn(loops, /*reset=*/true), test::gemmInsn(loops), test::gemmInsn(loops),
       test::finishInsn()});
  // acc[d] = 2 · Σ_k inp[s][k] · wgt[w][o][k] with (d, s, w) = (0,0,0), (1,1,1), (2,2,0), (3,3,1).
  const int map[4][2] = {{0, 0}, {1, 1}, {2, 0}, {3, 1}};
  auto acc = rig.sim.accSram();
  for (int d = 0; d < 4; ++d) {
    for (int o = 0; o < 16; ++o) {
      int32_t sum = 0;
      for (int k = 0; k < 16; ++k)
        sum += inp[map[d][0] * 16 + k] * wgt[map[d][1] * 256 + o * 16 + k];
      EXPECT_EQ(acc[d * 16 + o], 2 * sum) << d << "," << o;
    }
  }
  EXPECT_EQ(rig.sim.stats().gemmCounter, 8u);  // 2 GEMMs × 2 × 1 × 2; the reset is not counted
  EXPECT_EQ(rig.sim.stats().uopLoadNbytes, 8u);
  EXPECT_EQ(rig.sim.uopSram()[1], (Uop{1, 1, 1}));
}

TEST(VtaSim, GemmAccumulatorWrapsAround) {
  test::SimRig rig;
  std::vector<int32_t> big(16, INT32_MAX);
  const uint32_t accBase = uint32_t(rig.put(big) / 64);
  const uint32_t inpBase = uint32_t(rig.put(std::vector<int8_t>(16, 1)) / 16);
  const uint32_t wgtBase = uint32_t(rig.put(std::vector<int8_t>(256, 1)) / 256);
  const uint32_t uopBase = rig.putUops({{0, 0, 0}});
  rig.run({test::memInsn(Opcode::kLoad, MemType::kInp, MemArgs{.dram = inpBase}),
           test::memInsn(Opcode::kLoad, MemType::kWgt, MemArgs{.dram = wgtBase},
                         deps(false, false, false, true)),
           test::memInsn(Opcode::kLoad, MemType::kAcc, MemArgs{.dram = accBase},
                         deps(true, false, false, false)),
           test::memInsn(Opcode::kLoad, MemType::kUop, MemArgs{.dram = uopBase}),
           test::gemmInsn(LoopArgs{}), test::finishInsn()});
  for (int o = 0; o < 16; ++o) EXPECT_EQ(rig.sim.accSram()[o], INT32_MIN + 15);
}

int32_t expectedAlu(AluOpcode op, int32_t x, int32_t y) {
  switch (op) {
    case AluOpcode::kMin:
      return std::min(x, y);
    case AluOpcode::kMax:
      return std::max(x, y);
    case AluOpcode::kAdd:
      return test::truncate(int64_t{x} + y, 32);
    case AluOpcode::kShr:
      return y >= 0 ? x >> y : test::truncate(int64_t(uint64_t(uint32_t(x)) << -y), 32);
    case AluOpcode::kMul:
      return test::truncate(int64_t{x} * y, 32);
  }
  return 0;
}

TEST(VtaSim, AluOperationsImmediateAndTensor) {
  test::SimRig rig;
  const std::vector<int32_t> x = {INT32_MAX, INT32_MIN, -1, 0,     1,    1000, -1000, 77,
                                  -77,       123456,    -5, 65536, -100, 31,   12,    -31};
  const std::vector<int32_t> y = {1, -1, 31, -31, 0, 5, -5, 2, -2, 16, -16, 3, 7, -7, 30, 1};
  struct Case {
    AluOpcode op;
    bool useImm;
    int32_t imm;
  };
  const std::vector<Case> cases = {
      {AluOpcode::kMin, true, -3}, {AluOpcode::kMax, true, -3},  {AluOpcode::kAdd, true, 5},
      {AluOpcode::kShr, true, 2},  {AluOpcode::kShr, true, -3},  {AluOpcode::kMul, true, -7},
      {AluOpcode::kShr, true, 31}, {AluOpcode::kShr, true, -31}, {AluOpcode::kMin, false, 0},
      {AluOpcode::kMax, false, 0}, {AluOpcode::kAdd, false, 0},  {AluOpcode::kShr, false, 0},
      {AluOpcode::kMul, false, 0}};
  const uint32_t yEntry = uint32_t(cases.size());
  std::vector<int32_t> acc;
  for (size_t c = 0; c < cases.size(); ++c) acc.insert(acc.end(), x.begin(), x.end());
  acc.insert(acc.end(), y.begin(), y.end());
  const uint32_t accBase = uint32_t(rig.put(acc) / 64);
  std::vector<Uop> uops;
  for (uint32_t c = 0; c < cases.size(); ++c) uops.push_back({c, yEntry, 0});
  const uint32_t uopBase = rig.putUops(uops);
  std::vector<Instruction> program = {
      test::memInsn(Opcode::kLoad, MemType::kAcc,
                    MemArgs{.dram = accBase, .x = yEntry + 1, .stride = yEntry + 1}),
      test::memInsn(
          Opcode::kLoad, MemType::kUop,
          MemArgs{.dram = uopBase, .x = uint32_t(uops.size()), .stride = uint32_t(uops.size())})};
  for (uint32_t c = 0; c < cases.size(); ++c) {
    program.push_back(test::aluInsn(cases[c].op, cases[c].useImm, cases[c].imm,
                                    LoopArgs{.uopBgn = c, .uopEnd = c + 1}));
  }
  // In place with source == destination: x + x.
  program.push_back(
      test::memInsn(Opcode::kLoad, MemType::kUop,
                    MemArgs{.sram = 100, .dram = rig.putUops({{yEntry, yEntry, 0}})}));
  program.push_back(
      test::aluInsn(AluOpcode::kAdd, false, 0, LoopArgs{.uopBgn = 100, .uopEnd = 101}));
  program.push_back(test::finishInsn());
  rig.run(program);
  auto out = rig.sim.accSram();
  for (size_t c = 0; c < cases.size(); ++c) {
    for (int l = 0; l < 16; ++l) {
      const int32_t operand = cases[c].useImm ? cases[c].imm : y[l];
      EXPECT_EQ(out[c * 16 + l], expectedAlu(cases[c].op, x[l], operand))
          << aluOpcodeName(cases[c].op) << (cases[c].useImm ? " imm " : " tensor ") << operand
          << " on " << x[l];
    }
  }
  for (int l = 0; l < 16; ++l) EXPECT_EQ(out[yEntry * 16 + l], 2 * y[l]);
  EXPECT_EQ(rig.sim.stats().aluCounter, cases.size() + 1);
}

TEST(VtaSim, AluLoopNestAndCounter) {
  test::SimRig rig;
  const uint32_t accBase = uint32_t(rig.put(std::vector<int32_t>(64 * 16, 1)) / 64);
  const uint32_t uopBase = rig.putUops({{0, 0, 0}, {1, 0, 0}});
  // dst = uop.dst + 10·o + 2·i for o < 2, i < 3: entries {0,1,2,3,4,5,10,...,15}.
  rig.run(
      {test::memInsn(Opcode::kLoad, MemType::kAcc, MemArgs{.dram = accBase, .x = 64, .stride = 64}),
       test::memInsn(Opcode::kLoad, MemType::kUop, MemArgs{.dram = uopBase, .x = 2, .stride = 2}),
       test::aluInsn(
           AluOpcode::kAdd, true, 4,
           LoopArgs{.uopBgn = 0, .uopEnd = 2, .iterOut = 2, .iterIn = 3, .dstOut = 10, .dstIn = 2}),
       test::finishInsn()});
  EXPECT_EQ(rig.sim.stats().aluCounter, 12u);
  for (int e = 0; e < 20; ++e) {
    const bool touched = e < 6 || (e >= 10 && e < 16);
    EXPECT_EQ(rig.sim.accSram()[e * 16], touched ? 5 : 1) << e;
  }
}

TEST(VtaSim, SkipExecutionCountsButOnlyLoadsMicroOps) {
  test::SimRig rig;
  rig.sim.setSkipExecution(true);
  const uint32_t inpBase = uint32_t(rig.put(std::vector<int8_t>(16, 3)) / 16);
  const uint32_t uopBase = rig.putUops({{7, 8, 9}});
  rig.run({test::memInsn(Opcode::kLoad, MemType::kInp, MemArgs{.dram = inpBase}),
           test::memInsn(Opcode::kLoad, MemType::kUop, MemArgs{.dram = uopBase}),
           test::gemmInsn(LoopArgs{.iterOut = 3}), test::finishInsn()});
  EXPECT_EQ(rig.sim.stats(), test::makeStats(16, 0, 0, 4, 0, 3, 0));
  EXPECT_EQ(rig.sim.inpSram()[0], kPoison);
  EXPECT_EQ(rig.sim.uopSram()[0], (Uop{7, 8, 9}));
}

TEST(VtaSim, TokensOrderModulesNotStreamPosition) {
  // The STORE comes before the ALU in the stream but waits for its compute->store token.
  test::SimRig rig;
  const uint32_t accBase = uint32_t(rig.put(std::vector<int32_t>(16, 10)) / 64);
  const uint32_t uopBase = rig.putUops({{0, 0, 0}});
  const uint64_t outPhys = rig.dram.allocate(16);
  rig.run({test::memInsn(Opcode::kLoad, MemType::kAcc, MemArgs{.dram = accBase}),
           test::memInsn(Opcode::kStore, MemType::kOut, MemArgs{.dram = uint32_t(outPhys / 16)},
                         deps(true, false, true, false)),
           test::memInsn(Opcode::kLoad, MemType::kUop, MemArgs{.dram = uopBase}),
           test::aluInsn(AluOpcode::kAdd, true, 5, LoopArgs{}, deps(false, false, false, true)),
           test::finishInsn(deps(false, true, false, false))});
  EXPECT_EQ(rig.get<int8_t>(outPhys, 16), std::vector<int8_t>(16, 15));
  EXPECT_TRUE(rig.sim.tokens().empty());
}

TEST(VtaSim, StatsAreResettableAndPrintable) {
  test::SimRig rig;
  const uint32_t inpBase = uint32_t(rig.put(std::vector<int8_t>(32, 1)) / 16);
  for (int run = 1; run <= 2; ++run) {
    rig.run(
        {test::memInsn(Opcode::kLoad, MemType::kInp, MemArgs{.dram = inpBase, .x = 2, .stride = 2}),
         test::finishInsn()});
    EXPECT_EQ(rig.sim.stats().inpLoadNbytes, 32u * run);  // cumulative across runs
  }
  EXPECT_EQ(rig.sim.stats().toJson(),
            "{\"inp_load_nbytes\": 64, \"wgt_load_nbytes\": 0, \"acc_load_nbytes\": 0, "
            "\"uop_load_nbytes\": 0, \"out_store_nbytes\": 0, \"gemm_counter\": 0, "
            "\"alu_counter\": 0}");
  rig.sim.clearStats();
  EXPECT_EQ(rig.sim.stats(), Stats{});
}

TEST(VtaSim, PackedFourBitLanes) {
  // int4 inputs and weights: lanes packed two per byte, low nibble first; outputs int4 too.
  test::SimRig rig(test::configInt4());
  const auto inp = test::randomInts(16, -8, 7, 31);
  const auto wgt = test::randomInts(256, -8, 7, 32);
  const uint32_t inpBase = uint32_t(rig.put(test::packLanes(inp, 4)) / 8);
  const uint32_t wgtBase = uint32_t(rig.put(test::packLanes(wgt, 4)) / 128);
  const uint32_t uopBase = rig.putUops({{0, 0, 0}});
  const uint64_t outPhys = rig.dram.allocate(8);
  rig.run({test::memInsn(Opcode::kLoad, MemType::kInp, MemArgs{.dram = inpBase}),
           test::memInsn(Opcode::kLoad, MemType::kWgt, MemArgs{.dram = wgtBase},
                         deps(false, false, false, true)),
           test::memInsn(Opcode::kLoad, MemType::kUop, MemArgs{.dram = uopBase},
                         deps(true, false, false, false)),
           test::gemmInsn(LoopArgs{}, true),
           test::gemmInsn(LoopArgs{}, false, deps(false, false, false, true)),
           test::memInsn(Opcode::kStore, MemType::kOut, MemArgs{.dram = uint32_t(outPhys / 8)},
                         deps(true, false, true, false)),
           test::finishInsn(deps(false, true, false, false))});
  const auto out = test::unpackLanes(rig.get<uint8_t>(outPhys, 8), 4, 16);
  for (int o = 0; o < 16; ++o) {
    int32_t sum = 0;
    for (int k = 0; k < 16; ++k) sum += inp[k] * wgt[o * 16 + k];
    EXPECT_EQ(out[o], test::truncate(sum, 4)) << o;
  }
}

}  // namespace
}  // namespace tessera::vta
