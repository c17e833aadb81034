// The analytic cost model (tune/analytic_model.h): cycle estimates of small loop programs whose
// cost can be derived by hand, the ranking of seed 002's 128^3 matmul schedules that the tuner
// must tell apart (measured on Zen 3: a 4x16 register tile at 90% of the FMA peak, the same tile
// without unrolling at 26%, 16 accumulators that spill at 35%), and the XGBoost model scoring
// with it until trained.
#include <gtest/gtest.h>

#include <cmath>

#include "codegen/llvm/target.h"
#include "tir/transform/lower.h"
#include "tune/analytic_model.h"
#include "tune/postproc/postproc.h"
#include "tune/rules/post_order_apply.h"
#include "unit/tune/rule_kernels.h"
#ifdef TESSERA_HAVE_XGBOOST
#include "tune/xgb/xgb_model.h"
#endif

namespace tessera::tune {
namespace {

target::Target avx2() {
  target::Target t = target::Target::parse("llvm -mcpu=znver3 -mattr=+avx2,+fma -num-cores=1");
  return t;
}

target::Target avx512() {
  return target::Target::parse(
      "llvm -mcpu=znver4 -mattr=+avx512f,+avx512bw,+avx512vl,+avx2,+fma -num-cores=1");
}

// A point of the matmul's first rule-made space (MultiLevelTiling without a write cache):
// tiles of i (4), j (4) and k (2), the parallel limit, the unroll index, postprocessed.
tir::PrimFunc matmulPoint(const Decisions& d, const target::Target& target = avx2()) {
  const tir::PrimFunc mm = testing::matmul(128, 128, 128);
  const std::vector<DesignSpace> spaces = rules::ruleSpaces(mm, target, 0);
  tir::Schedule sch(mm, 0);
  const Applicability ok = tir::attempt(sch, [&](tir::Schedule& s) {
    tir::applyTrace(s, spaces.at(0).materialize(d));
    return postproc::applyPostprocs(s, postproc::defaultPostprocs());
  });
  EXPECT_TRUE(ok) << ok.reason;
  return sch.func();
}

double percentOfPeak(const tir::PrimFunc& scheduled, const MachineModel& m) {
  const double cycles = estimateCycles(tir::transform::lower(scheduled), m);
  const double fmaPerCycle = m.fmaPerCycle * m.vectorBytes / 4;  // float lanes
  return 100.0 * 128 * 128 * 128 / fmaPerCycle / cycles;
}

double percentOfPeak(const tir::PrimFunc& scheduled) {
  return percentOfPeak(scheduled, MachineModel::of(avx2()));
}

TEST(AnalyticModel, MachineFromTheTarget) {
  const MachineModel m = MachineModel::of(avx2());
  EXPECT_EQ(m.vectorBytes, 32);
  EXPECT_EQ(m.vectorRegisters, 16);
  EXPECT_EQ(m.cores, 1);
  const MachineModel z4 = MachineModel::of(
      target::Target::parse("llvm -mcpu=znver4 -mattr=+avx512f,+avx2 -num-cores=2"));
  EXPECT_EQ(z4.vectorBytes, 64);
  EXPECT_EQ(z4.vectorRegisters, 32);
  EXPECT_EQ(z4.cores, 2);
}

TEST(AnalyticModel, RegisterTileNearThePeakAndItsVariantsBelow) {
  // i = [2, 1, 16, 4], j = [1, 1, 8, 16], k = [1, 128]: a 4 x 16 tile (8 accumulators) under
  // the whole reduction; with unroll step 16 the 4 rows are unrolled.
  const double tile =
      percentOfPeak(matmulPoint({{2, 1, 16, 4}, {1, 1, 8, 16}, {1, 128}, {16}, {1}}));
  EXPECT_GT(tile, 90);
  EXPECT_LE(tile, 100);
  // Unroll step 0: the rows stay a loop, so every update loads and stores its row.
  const double rolled =
      percentOfPeak(matmulPoint({{2, 1, 16, 4}, {1, 1, 8, 16}, {1, 128}, {16}, {0}}));
  EXPECT_LT(rolled, tile / 2);
  // A 2 x 32 tile with k outside it: 16 accumulators and their operands overflow 16 registers.
  const double spilled =
      percentOfPeak(matmulPoint({{32, 2, 2, 1}, {2, 1, 2, 32}, {128, 1}, {16}, {2}}));
  EXPECT_LT(spilled, tile * 0.6);
  // An 8-deep unrolled reduction whose 16 updated vectors cannot all stay in registers.
  const double reused =
      percentOfPeak(matmulPoint({{1, 1, 64, 2}, {2, 1, 2, 32}, {16, 8}, {16}, {2}}));
  EXPECT_LT(reused, tile * 0.6);
}

TEST(AnalyticModel, WideTilesThatStreamTheirPanelFromL2RankBelowTallOnes) {
  // Two 16-accumulator tiles of seed 002's matmul on AVX-512 (the bests of two tuning runs on
  // Zen 5): 8 rows x 32 columns ran at 93-97% of the FMA peak, 4 rows x 64 columns at 80-84%.
  // Each run of the reduction reads a B panel of 128 rows by the tile's width, a new one each
  // time (B, 64 KiB, is larger than L1): 2 lines per 16 FMAs for the tall tile, 4 for the wide
  // one, which is what L2 cannot feed. Registers and ports alone rate them alike.
  const MachineModel m = MachineModel::of(avx512());
  const tir::PrimFunc tall =
      matmulPoint({{16, 1, 8, 1}, {2, 2, 2, 16}, {32, 4}, {16}, {2}}, avx512());
  const tir::PrimFunc wide =
      matmulPoint({{32, 1, 4, 1}, {1, 2, 2, 32}, {128, 1}, {16}, {1}}, avx512());
  EXPECT_GT(percentOfPeak(tall, m), 90);
  EXPECT_LT(percentOfPeak(wide, m), percentOfPeak(tall, m) * 0.95);
  MachineModel noCaches = m;
  noCaches.l2BytesPerCycle = INFINITY;
  EXPECT_GT(percentOfPeak(wide, noCaches), percentOfPeak(tall, noCaches) * 0.95);
}

TEST(AnalyticModel, UnvectorizedLoopsCostPerElement) {
  // The plain matmul: scalar multiply-adds, the reduction innermost (its init a conditional
  // store in the same loop), one accumulator whose chain of 128 updates bounds it at the FMA
  // latency (4 cycles each).
  const MachineModel m = MachineModel::of(avx2());
  const double plain = estimateCycles(tir::transform::lower(testing::matmul(128, 128, 128)), m);
  EXPECT_GE(plain, 128.0 * 128 * 128 * m.fmaLatency);
  EXPECT_LT(plain, 128.0 * 128 * 128 * m.fmaLatency * 1.2);
}

TEST(AnalyticModel, ElementwiseLoopIsVectorizedByLlvm) {
  // relu(C) over 128 x 128 after the matmul: a serial loop of contiguous scalar accesses, which
  // LLVM's loop vectorizer widens by 8 floats on AVX2.
  using namespace te;
  Tensor a = placeholder({128, 128}, DataType::float32(), "A");
  Tensor r = topi::relu(a);
  const tir::PrimFunc relu = createPrimFunc({a, r});
  const MachineModel m = MachineModel::of(avx2());
  const double cycles = estimateCycles(tir::transform::lower(relu), m);
  // 2048 vector iterations of one load, one max and one store: store-bound at a cycle each,
  // plus 128 outer iterations.
  EXPECT_GE(cycles, 2048);
  EXPECT_LT(cycles, 2048 * 1.2);
}

TEST(AnalyticModel, ScoresRankAndMarkWhatDoesNotLower) {
  std::unique_ptr<CostModel> model = makeAnalyticModel(avx2());
  EXPECT_EQ(model->name(), "analytic");
  EXPECT_TRUE(model->needsPrograms());
  const std::vector<tir::PrimFunc> programs = {
      matmulPoint({{2, 1, 16, 4}, {1, 1, 8, 16}, {1, 128}, {16}, {0}}),
      matmulPoint({{2, 1, 16, 4}, {1, 1, 8, 16}, {1, 128}, {16}, {1}}), nullptr};
  const std::vector<double> scores = model->predict(1, programs);
  ASSERT_EQ(scores.size(), 3u);
  EXPECT_DOUBLE_EQ(scores[1], 1.0);  // the fastest of the batch
  EXPECT_GT(scores[0], 0.0);
  EXPECT_LT(scores[0], 0.5);
  EXPECT_EQ(scores[2], 0.0);
}

#ifdef TESSERA_HAVE_XGBOOST
TEST(AnalyticModel, XgbScoresWithItsPriorUntilTrained) {
  std::shared_ptr<CostModel> prior = makeAnalyticModel(avx2());
  std::unique_ptr<CostModel> xgb = makeXgbModel({.warmupSamples = 100, .prior = prior});
  const std::vector<tir::PrimFunc> programs = {
      matmulPoint({{2, 1, 16, 4}, {1, 1, 8, 16}, {1, 128}, {16}, {0}}),
      matmulPoint({{2, 1, 16, 4}, {1, 1, 8, 16}, {1, 128}, {16}, {1}})};
  EXPECT_EQ(xgb->predict(1, programs), prior->predict(1, programs));
  xgb->update(1, programs, {2e-4, 1e-4});  // two samples: still below the warm-up
  EXPECT_EQ(xgb->predict(1, programs), prior->predict(1, programs));
}
#endif

}  // namespace
}  // namespace tessera::tune
