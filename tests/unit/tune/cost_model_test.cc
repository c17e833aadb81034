// The cost model's inputs and the XGBoost model: one feature row per store, rows that tell loop
// kinds apart, and (when built with XGBoost) a model trained on a few measured programs that
// ranks the fastest first.
#include <gtest/gtest.h>

#include "tune/features.h"
#include "tune/space.h"
#include "unit/tir/schedule_test_util.h"
#ifdef TESSERA_HAVE_XGBOOST
#include "codegen/llvm/target.h"
#include "relay/text/parser.h"
#include "test_util.h"
#include "tune/model_tasks.h"
#include "tune/search.h"
#include "tune/xgb/xgb_model.h"
#endif

namespace tessera::tune {
namespace {

tir::PrimFunc seedProgram(std::vector<int64_t> decision, bool vectorize = false) {
  tir::Schedule sch(tir::testing::matmul(), 0);
  tir::BlockRV c = sch.getBlock("C", "main");
  std::vector<tir::LoopRV> l = sch.getLoops(c);
  std::vector<tir::ExprRV> f = sch.samplePerfectTile(l[1], 2, 16, decision);
  std::vector<tir::LoopRV> j = sch.split(l[1], {f[0], f[1]});
  sch.reorder({l[0], j[0], l[2], j[1]});
  sch.decomposeReduction(c, l[2]);
  if (vectorize) sch.parallel(l[0]);
  return sch.func();
}

TEST(TuneFeatures, OneRowPerStoreThatSeesTheSchedule) {
  const std::vector<std::vector<float>> plain = perStoreFeatures(tir::testing::matmul());
  ASSERT_EQ(plain.size(), 2u);  // the init and the update
  for (const auto& row : plain) EXPECT_EQ(row.size(), static_cast<size_t>(kNumFeatures));
  const auto a = perStoreFeatures(seedProgram({8, 16}));
  const auto b = perStoreFeatures(seedProgram({8, 16}, /*parallel=*/true));
  ASSERT_EQ(a.size(), 2u);
  EXPECT_NE(a, b);
  // The update's float multiply-adds: 128^3 of each, through slog.
  EXPECT_FLOAT_EQ(a[1][0], std::log2(128.0 * 128 * 128 + 1));
  EXPECT_NE(perStoreFeatures(seedProgram({8, 16})), perStoreFeatures(seedProgram({64, 2})));
}

#ifdef TESSERA_HAVE_XGBOOST
TEST(TuneXgbModel, LearnsWhichProgramIsFastest) {
  std::unique_ptr<CostModel> model = makeXgbModel({.warmupSamples = 5});
  const std::vector<std::vector<int64_t>> all = {{8, 16}, {16, 8}, {32, 4}, {64, 2}, {128, 1}};
  std::vector<tir::PrimFunc> programs;
  for (const auto& d : all) programs.push_back(seedProgram(d));
  // Pretend wider inner tiles are faster (as they are on a vector machine).
  const std::vector<double> seconds = {1e-5, 2e-5, 4e-5, 8e-5, 1.6e-4};
  const std::vector<double> before = model->predict(1, programs);  // random until trained
  EXPECT_EQ(before.size(), 5u);
  model->update(1, programs, seconds);
  const std::vector<double> scores = model->predict(1, programs);
  // Ordered as the measurements; the slowest may tie (TVM's objective weighs rows by their
  // label, so slow programs barely move the trees).
  for (size_t i = 1; i < scores.size(); ++i) EXPECT_GE(scores[i - 1], scores[i]) << i;
  EXPECT_GT(scores[0], scores[1]);
  EXPECT_GT(scores[1], scores[4]);
}

TEST(TuneXgbModel, RetrainsAsMeasurementsArrive) {
  std::unique_ptr<CostModel> model = makeXgbModel({.warmupSamples = 5});
  const std::vector<std::vector<int64_t>> all = {{8, 16}, {16, 8}, {32, 4}, {64, 2}, {128, 1}};
  std::vector<tir::PrimFunc> programs;
  for (const auto& d : all) programs.push_back(seedProgram(d));
  programs.push_back(tir::PrimFunc());  // a candidate that did not replay: no rows
  for (int round = 0; round < 12; ++round) {
    std::vector<double> seconds;
    for (size_t i = 0; i < programs.size(); ++i)
      seconds.push_back(i == 2 && round % 3 == 0 ? 1e10 : 1e-5 * (1 + (i * 7 + round) % 5));
    model->update(round % 2, programs, seconds);
    EXPECT_EQ(model->predict(round % 2, programs).size(), programs.size());
  }
}

TEST(TuneXgbModel, GuidesTheEvolutionarySearchOfADenseKernel) {
  relay::IRModule m = relay::parseModule(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(16, 64), float32], %w: Tensor[(32, 64), float32]) {
  nn.dense(%x, %w, units=None)
})");
  target::Target t = codegen::hostTarget();
  t.numCores = 1;
  std::vector<TuneTask> tasks =
      modelTasks(m, t, {{"w", test::randomTensor({32, 64}, DataType::float32(), 3)}});
  std::unique_ptr<CostModel> model = makeXgbModel({.warmupSamples = 8});
  SearchStrategy search(tasks[0].func, 1, tasks[0].spaces, {.populationSize = 16}, model.get());
  for (int round = 0; round < 4; ++round) {
    std::vector<tir::PrimFunc> programs;
    std::vector<double> seconds;
    for (const Candidate& c : search.propose(8)) {
      // A stand-in for measuring: wider innermost tiles are faster.
      const double secs = 1e-3 / static_cast<double>(c.decisions.at(0).back());
      search.notify(c, secs);
      programs.push_back(c.func);
      seconds.push_back(secs);
    }
    model->update(1, programs, seconds);
  }
}

TEST(TuneXgbModel, ASmallTuningRunWithTheLearnedModel) {
  relay::IRModule m = relay::parseModule(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(32, 128), float32], %w: Tensor[(64, 128), float32]) {
  nn.dense(%x, %w, units=None)
})");
  target::Target t = codegen::hostTarget();
  t.numCores = 1;
  std::vector<TuneTask> tasks =
      modelTasks(m, t, {{"w", test::randomTensor({64, 128}, DataType::float32(), 3)}});
  std::unique_ptr<CostModel> model = makeXgbModel({.warmupSamples = 8});
  TuneOptions options{.maxTrialsGlobal = 32, .trialsPerIter = 8};
  options.search.populationSize = 16;
  options.measure = {.number = 1, .repeat = 1, .minRepeatMs = 0, .timeoutSec = 60};
  Database db;
  TuneResult r = tune(tasks, t, db, *model, options);
  EXPECT_GT(r.tasks[0].trials, 8);
  EXPECT_GT(r.tasks[0].bestSeconds, 0);
  EXPECT_LE(r.tasks[0].bestSeconds, r.defaultSeconds[0]);
}
#endif

}  // namespace
}  // namespace tessera::tune
