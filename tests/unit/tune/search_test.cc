// Design spaces, mutators, search and the task scheduler: the default schedule's space of a
// model's dense kernel (its base point replays to the default schedule), deterministic proposals
// for a seed, tile mutations that stay perfect tilings, the log table against the spec's
// example, and a small tuning run of seed 002's space that exhausts it, then resumes.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include "codegen/llvm/target.h"
#include "lower/relay/schedule_provider.h"
#include "relay/strategy/schedule_kernel.h"
#include "relay/text/parser.h"
#include "test_util.h"
#include "tir/printer/printer.h"
#include "tune/model_tasks.h"
#include "tune/mutator.h"
#include "tune/rules/post_order_apply.h"
#include "tune/search.h"
#include "tune/task_scheduler.h"
#include "unit/scratch_dir.h"
#include "unit/tir/schedule_test_util.h"

namespace tessera::tune {
namespace {

target::Target oneCore() {
  target::Target t = codegen::hostTarget();
  t.numCores = 1;
  return t;
}

std::vector<TuneTask> denseTasks() {
  relay::IRModule m = relay::parseModule(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(16, 64), float32], %w: Tensor[(32, 64), float32]) {
  nn.relu(nn.dense(%x, %w, units=None))
})");
  return modelTasks(m, oneCore(), {{"w", test::randomTensor({32, 64}, DataType::float32(), 3)}});
}

TEST(TuneSpace, TheDefaultSchedulesSpaceHasItsTileSizesAsKnobs) {
  std::vector<TuneTask> tasks = denseTasks();
  ASSERT_EQ(tasks.size(), 1u);
  const DesignSpace& space = tasks[0].spaces.at(0);
  size_t splits = 0;
  for (const Knob& k : space.knobs) splits += k.kind == Knob::Kind::kSplit;
  EXPECT_GT(splits, 0u);
  // The base point is the default schedule, instruction for instruction.
  EXPECT_EQ(space.materialize(space.base).toJson(), space.trace.toJson());
  tir::Schedule replayed(tasks[0].func, 0);
  tir::applyTrace(replayed, space.materialize(space.base));
  EXPECT_EQ(tir::toScript(replayed.func()),
            tir::toScript(relay::strategy::scheduleKernel(tasks[0].func, oneCore())));
  // And a record of it is recognised as that point.
  EXPECT_EQ(space.decisionsOf(space.trace), space.base);
}

std::vector<std::string> proposals(const TuneTask& task, uint64_t seed) {
  RandomModel model(seed);
  SearchStrategy search(task.func, 1, task.spaces, {.seed = seed}, &model);
  std::vector<std::string> out;
  for (int round = 0; round < 2; ++round)
    for (const Candidate& c : search.propose(8)) {
      out.push_back(c.trace.toJson());
      search.notify(c, 1e-3);
    }
  return out;
}

TEST(TuneSpace, SpaceGenerationAndProposalsAreDeterministicForASeed) {
  std::vector<TuneTask> a = denseTasks(), b = denseTasks();
  EXPECT_EQ(a[0].spaces[0].trace.toJson(), b[0].spaces[0].trace.toJson());
  const std::vector<std::string> first = proposals(a[0], 5);
  EXPECT_EQ(first, proposals(b[0], 5));
  EXPECT_GE(first.size(), 8u);
  EXPECT_EQ(first[0], a[0].spaces[0].trace.toJson());  // the default schedule comes first
  EXPECT_NE(first, proposals(a[0], 6));
}

TEST(TuneMutator, TileMutationsKeepPerfectTilingsWithinTheLimit) {
  DesignSpace space =
      spaceFromFunction(tir::testing::matmul(), stochasticScheduleMM, "stochastic_schedule_mm", 1);
  ASSERT_EQ(space.knobs.size(), 1u);
  EXPECT_EQ(space.knobs[0].kind, Knob::Kind::kTile);
  EXPECT_EQ(space.knobs[0].extent, 128);
  std::mt19937_64 rng(9);
  std::set<Decision> seen;
  Decisions d = sampleDecisions(space, rng);
  for (int i = 0; i < 200; ++i) {
    std::optional<Decisions> m = mutate(space, d, rng);
    ASSERT_TRUE(m);
    EXPECT_NE(*m, d);
    d = *m;
    EXPECT_EQ(d[0][0] * d[0][1], 128);
    EXPECT_LE(d[0][1], 16);
    seen.insert(d[0]);
  }
  // Exactly the seed's five tilings of 128 with an innermost factor of at most 16.
  EXPECT_EQ(seen, (std::set<Decision>{{8, 16}, {16, 8}, {32, 4}, {64, 2}, {128, 1}}));
}

TEST(TuneTable, MatchesTheSpecsExample) {
  EXPECT_EQ(formatTaskTable({{"main", 4194304, 1, 52.0827e-6, 64, true}}),
            " ID | Name |    FLOP | Weight | Speed (GFLOPS) | Latency (us) | Weighted Latency (us) "
            "| Trials | Done \n"
            "-------------------------------------------------------------------------------------"
            "-----------------\n"
            "  0 | main | 4194304 |      1 |        80.5316 |      52.0827 |               52.0827 "
            "|     64 |    Y \n"
            "-------------------------------------------------------------------------------------"
            "-----------------\n"
            "Total trials: 64\n"
            "Total latency (us): 52.0827\n");
  const std::string none = formatTaskTable({{"conv", 10, 2, 0, 3, false}});
  EXPECT_NE(none.find("|            N/A |          N/A |                   N/A |      3 |      \n"),
            std::string::npos)
      << none;
}

TEST(TuneRun, SeedSpaceIsExhaustedThenResumedFromTheDatabase) {
  const ScratchDir scratch("tune_run");
  const std::string dir = scratch.str();
  const tir::PrimFunc mm = tir::testing::matmul(64, 64, 64);
  auto tasks = [&] {
    return std::vector<TuneTask>{
        {"main", mm, 1, {spaceFromFunction(mm, stochasticScheduleMM, "stochastic_schedule_mm")}}};
  };
  TuneOptions options{.maxTrialsGlobal = 20, .trialsPerIter = 4};
  options.measure = {.number = 1, .repeat = 1, .minRepeatMs = 0, .timeoutSec = 60};
  std::ostringstream log;
  options.log = &log;
  RandomModel model;
  {
    Database db(dir);
    TuneResult r = tune(tasks(), oneCore(), db, model, options);
    // 64 = 2^6 split in two with an innermost factor of at most 16: five programs.
    EXPECT_EQ(r.tasks[0].trials, 5);
    EXPECT_TRUE(r.tasks[0].done);
    EXPECT_GT(r.tasks[0].bestSeconds, 0);
    EXPECT_GT(r.defaultSeconds[0], 0);
    EXPECT_EQ(db.numRecords(), 5u);
  }
  EXPECT_NE(log.str().find("[Task #0: main] Trial #4: GFLOPs: "), std::string::npos) << log.str();
  EXPECT_NE(log.str().find("Task #0 has finished. Remaining task(s): 0"), std::string::npos);
  // A second run finds everything measured: no trial, and the best comes from the database.
  Database db(dir);
  std::ostringstream again;
  options.log = &again;
  TuneResult r = tune(tasks(), oneCore(), db, model, options);
  EXPECT_EQ(r.tasks[0].trials, 0);
  EXPECT_GT(r.tasks[0].bestSeconds, 0);
  EXPECT_NE(again.str().find("5 record(s) from the database"), std::string::npos) << again.str();
  EXPECT_EQ(db.numRecords(), 5u);
  std::optional<tir::PrimFunc> best = compileTir(db, mm, oneCore());
  ASSERT_TRUE(best);
}

TEST(TuneSpace, AModelsTasksHaveTheDefaultSpaceFirstThenTheRuleMadeOnes) {
  std::vector<TuneTask> tasks = denseTasks();
  ASSERT_GE(tasks[0].spaces.size(), 2u);
  EXPECT_EQ(tasks[0].spaces[0].name, "default");
  EXPECT_FALSE(tasks[0].spaces[0].postprocess);
  EXPECT_EQ(tasks[0].spaces[1].name, "post-order-apply #0");
  EXPECT_TRUE(tasks[0].spaces[1].postprocess);
}

TEST(TuneRun, TheRuleMadeSpacesTuneAPlainMatmulAndItsRecordsReplay) {
  // Seed 002's plain matmul (smaller), no default schedule: the rules' spaces only.
  const tir::PrimFunc mm = tir::testing::matmul(64, 64, 64);
  const uint64_t key = lower::workloadKey(mm);
  TuneOptions options{.maxTrialsGlobal = 24, .trialsPerIter = 12};
  options.measure = {.number = 1, .repeat = 1, .minRepeatMs = 0, .timeoutSec = 60};
  options.search.populationSize = 16;
  std::ostringstream log;
  options.log = &log;
  RandomModel model(3);
  Database db;
  TuneResult r =
      tune({{"main", mm, 1, rules::ruleSpaces(mm, oneCore())}}, oneCore(), db, model, options);
  EXPECT_EQ(r.tasks[0].trials, 24) << log.str();
  EXPECT_GT(r.tasks[0].bestSeconds, 0);
  EXPECT_NE(log.str().find("[post-order-apply #0: 5 knobs]"), std::string::npos) << log.str();
  // Every candidate was built, checked against the reference and timed: all records are valid,
  // each a whole program (postprocessing recorded after EnterPostproc).
  const std::vector<TuningRecord> records = db.records(key, recordTarget(oneCore()));
  ASSERT_EQ(records.size(), 24u);
  std::set<std::string> distinct;
  for (const TuningRecord& rec : records) {
    EXPECT_TRUE(rec.valid()) << rec.trace.str();
    const std::string json = rec.trace.toJson();
    EXPECT_NE(json.find("[\"EnterPostproc\",[],[],[]]"), std::string::npos);
    distinct.insert(json);
  }
  EXPECT_EQ(distinct.size(), 24u);  // nothing measured twice
  // compile_tir replays the best record: the same program as replaying its JSON by hand.
  std::optional<tir::PrimFunc> best = compileTir(db, mm, oneCore());
  ASSERT_TRUE(best);
  tir::Schedule sch(mm, 0);
  tir::applyTrace(sch,
                  tir::Trace::fromJson(db.topK(key, recordTarget(oneCore()), 1)[0].trace.toJson()));
  EXPECT_EQ(tir::toScript(*best), tir::toScript(sch.func()));
  tir::testing::expectSameResults(mm, *best);
}

TEST(TuneRun, TheGradientSchedulerVisitsEveryTaskThenFollowsTheGains) {
  auto task = [](const std::string& name, int64_t n, int weight) {
    const tir::PrimFunc mm = tir::testing::matmul(n, n, n);
    return TuneTask{name, mm, weight, {spaceFromFunction(mm, stochasticScheduleMM, "mm")}};
  };
  TuneOptions options{.maxTrialsGlobal = 8, .trialsPerIter = 2, .scheduler = "gradient"};
  options.measure = {.number = 1, .repeat = 1, .minRepeatMs = 0, .timeoutSec = 60};
  std::ostringstream log;
  options.log = &log;
  RandomModel model;
  Database db;
  TuneResult r = tune({task("small", 16, 1), task("large", 64, 8)}, oneCore(), db, model, options);
  // One round each first, then the heavier, slower task gets the rounds until its five
  // programs are measured; the last trial goes to the small one.
  EXPECT_EQ(r.tasks[0].trials, 3);
  EXPECT_EQ(r.tasks[1].trials, 5);
  const std::string text = log.str();
  const size_t firstSmall = text.find("TaskScheduler picks Task #0");
  const size_t secondSmall = text.find("TaskScheduler picks Task #0", firstSmall + 1);
  EXPECT_LT(text.find("Task #1 has finished"), secondSmall) << text;
  options.scheduler = "fastest";
  EXPECT_THROW(tune({task("small", 16, 1)}, oneCore(), db, model, options), DiagnosticError);
}

TEST(TuneRun, ATargetWithoutNumCoresIsRefusedWithTVMsMessage) {
  Database db;
  RandomModel model;
  target::Target t = codegen::hostTarget();
  t.numCores = 0;
  try {
    tune({}, t, db, model, {});
    FAIL();
  } catch (const DiagnosticError& e) {
    EXPECT_EQ(e.diagnostic().message.rfind("Target does not have attribute \"num-cores\"", 0), 0u);
  }
}

}  // namespace
}  // namespace tessera::tune
