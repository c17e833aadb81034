// The reference programs under non-default configurations (BATCH 2, BLOCK 32, BLOCK 8 with small
// SRAMs, 4-bit lanes): outputs against the plain reference and counters from closed-form
// formulas in the configuration's entry sizes.
#include <gtest/gtest.h>

#include "support/diagnostic.h"

#include "vta_workload_runs.h"

namespace tessera::vta {
namespace {

struct NamedConfig {
  std::string name;
  Config cfg;
};

// Keeps CTest's test names readable (gtest would otherwise print the parameter's bytes).
void PrintTo(const NamedConfig& c, std::ostream* os) {
  *os << c.name;
}

class VtaNonDefault : public ::testing::TestWithParam<NamedConfig> {};

// Counters of reference::conv2d in closed form (spec §7.1's derivation, generalised).
Stats expectedConvStats(const Config& cfg, const reference::Conv2dWorkload& w) {
  const uint64_t icBlocks = w.inChannels / cfg.blockIn();
  const uint64_t batchTiles = w.batch / cfg.batch();
  const uint64_t ocTiles = w.outChannels / (cfg.blockOut() * w.ocBlocks * w.threads);
  const uint64_t rowTiles = w.outHeight() / w.hBlock;
  const uint64_t kk = uint64_t(w.kernel) * w.kernel;
  uint64_t inputRows = 0;  // rows actually read over all row tiles (padding excluded)
  for (uint64_t t = 0; t < rowTiles; ++t) {
    const int first = int(t) * w.hBlock - w.pad, last = first + w.hBlock + w.kernel - 1;
    inputRows += uint64_t(std::min(last, w.height) - std::max(first, 0));
  }
  const uint64_t perRowTile = batchTiles * ocTiles * icBlocks * w.threads;
  const uint64_t loads = perRowTile * rowTiles;
  const uint64_t accTile = uint64_t(w.ocBlocks) * w.hBlock * w.outWidth();
  Stats s;
  s.inpLoadNbytes = perRowTile * inputRows * w.width * cfg.inpElemBytes();
  s.wgtLoadNbytes = loads * w.ocBlocks * kk * cfg.wgtElemBytes();
  s.uopLoadNbytes = uint64_t(w.threads) * (w.outWidth() + kk * w.outWidth() + 3) * 4;
  s.outStoreNbytes = batchTiles * (w.outChannels / cfg.blockOut()) * w.outHeight() * w.outWidth() *
                     cfg.outElemBytes();
  s.gemmCounter = loads * accTile * kk;
  s.aluCounter = batchTiles * ocTiles * rowTiles * w.threads * 3 * accTile;
  return s;
}

TEST_P(VtaNonDefault, MatmulTutorial) {
  const Config& cfg = GetParam().cfg;
  const test::RunResult r = test::runMatmulTutorial(cfg);
  EXPECT_EQ(r.out, r.expected);
  EXPECT_EQ(r.stats, test::makeStats(16 * cfg.inpElemBytes(), 256 * cfg.wgtElemBytes(), 0, 8,
                                     16 * cfg.outElemBytes(), 256, 0));
  EXPECT_EQ(r.stream.size(), 56u);  // the stream's shape does not depend on the configuration
}

TEST_P(VtaNonDefault, BlockedMatmul) {
  const Config& cfg = GetParam().cfg;
  const int64_t iBlock = 256 / cfg.blockIn(), oBlock = 256 / cfg.blockOut();
  if (iBlock * oBlock > cfg.wgtBuffDepth()) {
    // The 256x256 weight tile does not fit this weight SRAM: the simulator must say so.
    try {
      test::runBlockedMatmul(cfg);
      FAIL() << "expected an SRAM overflow";
    } catch (const DiagnosticError& e) {
      EXPECT_NE(std::string(e.what()).find("LOAD WGT"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("beyond the WGT buffer depth"), std::string::npos);
    }
    return;
  }
  const test::RunResult r = test::runBlockedMatmul(cfg);
  EXPECT_EQ(r.out, r.expected);
  const uint64_t tiles = uint64_t(1024 / 256) * (1024 / 256);
  EXPECT_EQ(r.stats, test::makeStats(tiles * iBlock * cfg.inpElemBytes(),
                                     tiles * iBlock * oBlock * cfg.wgtElemBytes(), 0, 20,
                                     4 * oBlock * cfg.outElemBytes(), tiles * iBlock * oBlock,
                                     3 * 4 * oBlock));
}

TEST_P(VtaNonDefault, SmallConv2d) {
  const Config& cfg = GetParam().cfg;
  const reference::Conv2dWorkload w = test::smallConv2d(cfg);
  const test::RunResult r = test::runConv2d(cfg, w);
  EXPECT_EQ(r.out, r.expected);
  EXPECT_EQ(r.stats, expectedConvStats(cfg, w)) << r.stats.format();
}

TEST_P(VtaNonDefault, UnitPrograms) {
  const Config& cfg = GetParam().cfg;
  const uint64_t acc = cfg.accElemBytes(), out = cfg.outElemBytes();
  auto check = [](const test::RunResult& r, const Stats& s) {
    EXPECT_EQ(r.out, r.expected);
    EXPECT_EQ(r.stats, s) << r.stats.format();
  };
  check(test::runSaveLoadOut(cfg), test::makeStats(0, 0, 36 * acc, 0, 36 * out, 0, 0));
  check(test::runPaddedLoad(cfg, 1, 1, 1, 1), test::makeStats(0, 0, 15 * acc, 0, 35 * out, 0, 0));
  check(test::runGemm(cfg, false),
        test::makeStats(4 * cfg.inpElemBytes(), 4 * cfg.wgtElemBytes(), 0, 20, 16 * out, 16, 48));
  check(test::runGemm(cfg, true),
        test::makeStats(4 * cfg.inpElemBytes(), 8 * cfg.wgtElemBytes(), 0, 40, 16 * out, 16, 48));
  check(test::runAluImm(cfg, AluOpcode::kShr, 2, true),
        test::makeStats(0, 0, 64 * acc, 4, 64 * out, 0, 64));
  check(test::runAluTensor(cfg, AluOpcode::kAdd),
        test::makeStats(0, 0, 128 * acc, 4, 64 * out, 0, 64));
  check(test::runRelu(cfg), test::makeStats(0, 0, 80 * acc, 8, 80 * out, 0, 160));
  check(test::runShiftAndScale(cfg, 3, 1), test::makeStats(0, 0, 16 * acc, 8, 16 * out, 0, 32));
}

INSTANTIATE_TEST_SUITE_P(Configs, VtaNonDefault,
                         ::testing::Values(NamedConfig{"Batch2", test::configBatch2()},
                                           NamedConfig{"Block32", test::configBlock32()},
                                           NamedConfig{"Block8", test::configBlock8()},
                                           NamedConfig{"Int4", test::configInt4()}),
                         [](const auto& info) { return info.param.name; });

TEST(VtaNonDefaultSeed004, Block32FullConvolution) {
  // The full seed-004 layer with 32-wide blocks: oc_block = 128 / 32 = 4, 8 input-channel blocks.
  const Config cfg = test::configBlock32();
  const reference::Conv2dWorkload w = reference::Conv2dWorkload::seed004(cfg);
  const test::RunResult r = test::runConv2d(cfg, w);
  EXPECT_EQ(r.out, r.expected);
  EXPECT_EQ(r.stats, test::makeStats(114688, 1179648, 0, 1144, 50176, 112896, 4704))
      << r.stats.format();
  EXPECT_EQ(r.stats, expectedConvStats(cfg, w));
}

TEST(VtaNonDefaultSeed004, Batch2FullConvolution) {
  // BATCH 2 halves the accumulator depth, so each thread owns 4 output-channel blocks.
  const Config cfg = test::configBatch2();
  reference::Conv2dWorkload w = reference::Conv2dWorkload::seed004(cfg);
  w.ocBlocks = 4;
  const test::RunResult r = test::runConv2d(cfg, w);
  EXPECT_EQ(r.out, r.expected);
  EXPECT_EQ(r.stats, expectedConvStats(cfg, w)) << r.stats.format();
}

}  // namespace
}  // namespace tessera::vta
