// Seed 002's tuning walk-through in C++: the 128x128x128 matmul as a plain PrimFunc (block "C"),
// the seed's random_search over stochastic_schedule_mm printing each attempt's time and trace,
// then tune_tir with that space (ScheduleFn) on "llvm -num-cores=1": 64 trials, the task table,
// compile_tir from the database, the tuned function and its speed against the plain one.
// With --rules, the random search is skipped and tune_tir searches the rule-made spaces
// (post-order-apply: multi-level tiling, parallel-vectorize-unroll; no default schedule in the
// population) for --trials N (64); --seed N seeds the search; --cost-model random|analytic|xgb
// ranks the candidates (random, the seed's, by default; analytic: tune/analytic_model.h; xgb
// when built with XGBoost, the analytic model until trained) and --curve FILE.csv writes
// `tessera tune --curve`'s rows: bench/tuning_spaces.sh and bench/tuning_curve.py use them.
// Usage: tune_matmul [WORK_DIR] [--rules] [--trials N] [--seed N] [--cost-model NAME]
// [--curve FILE.csv] (WORK_DIR: the database; default: a fresh directory under /tmp).
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include "codegen/llvm/target.h"
#include "te/create_prim_func.h"
#include "te/reduce.h"
#include "te/tensor.h"
#include "tir/printer/printer.h"
#include "tune/analytic_model.h"
#include "tune/database.h"
#include "tune/flops.h"
#include "tune/measure.h"
#include "tune/rules/post_order_apply.h"
#include "tune/space.h"
#include "tune/task_scheduler.h"
#ifdef TESSERA_HAVE_XGBOOST
#include "tune/xgb/xgb_model.h"
#endif

using namespace tessera;

namespace {

tir::PrimFunc matmul128() {
  using namespace te;
  Tensor A = placeholder({128, 128}, DataType::float32(), "A");
  Tensor B = placeholder({128, 128}, DataType::float32(), "B");
  IterVar k = reduceAxis(0, 128, "k");
  Tensor C = compute(
      {128, 128}, [&](Var i, Var j) { return sum(A(i, k.var) * B(k.var, j), {k}); },
      ComputeOptions{.name = "C", .indexNames = {"i", "j"}});
  return createPrimFunc({A, B, C});
}

double seconds(const tune::RunResult& r) {
  return r.ok() ? r.runSecs.front() : 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string dir =
      (std::filesystem::temp_directory_path() / ("tessera_tune_matmul_" + std::to_string(getpid())))
          .string();
  bool useRules = false;
  int trials = 64;
  uint64_t seed = 0;
  std::string costModel = "random", curvePath;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--rules") {
      useRules = true;
    } else if (arg == "--trials" && i + 1 < argc) {
      trials = std::atoi(argv[++i]);
      if (trials <= 0) {
        std::cerr << "tune_matmul: --trials needs a positive count\n";
        return 2;
      }
    } else if (arg == "--seed" && i + 1 < argc) {
      seed = std::strtoull(argv[++i], nullptr, 10);
    } else if (arg == "--cost-model" && i + 1 < argc) {
      costModel = argv[++i];
    } else if (arg == "--curve" && i + 1 < argc) {
      curvePath = argv[++i];
    } else if (!arg.empty() && arg[0] != '-') {
      dir = arg;
    } else {
      std::cerr << "usage: tune_matmul [WORK_DIR] [--rules] [--trials N] [--seed N] "
                   "[--cost-model random|analytic|xgb] [--curve FILE.csv]\n";
      return 2;
    }
  }
  const tir::PrimFunc mm = matmul128();
  target::Target target = codegen::hostTarget();
  target.numCores = 1;  // the seed's "llvm --num-cores=1"
  // TVM's default EvaluatorConfig (number 3, min_repeat_ms 100): a shorter window is one
  // preemption away from a measurement several times too slow on a shared machine.
  const tune::MeasureOptions measure{.threads = 1};
  tune::LocalRunner runner(measure);
  const tune::MeasureInput input = tune::makeMeasureInput(mm, target, 1, 1);

  // random_search(mod, num_trials=10)
  for (int i = 0; i < 10 && !useRules; ++i) {
    tir::Schedule sch(mm, i);
    tune::stochasticScheduleMM(sch);
    tune::RunResult r = runner.run(tune::buildCandidate(sch.func(), target), input);
    std::printf("==========Attempt %d,time-cost:%.9f ms=======\n%s", i, seconds(r) * 1e3,
                sch.trace().str().c_str());
  }

  // tune_tir(mod, target, work_dir, max_trials_global=64, num_trials_per_iter=64,
  //          space=ScheduleFn(stochastic_schedule_mm))
  std::cout << "Logging directory: " << dir << "\n";
  tune::Database database(dir);
  std::unique_ptr<tune::CostModel> model;
  if (costModel == "random") {
    model = std::make_unique<tune::RandomModel>(seed);
  } else if (costModel == "analytic") {
    model = tune::makeAnalyticModel(target);
  } else if (costModel == "xgb") {
#ifdef TESSERA_HAVE_XGBOOST
    model = tune::makeXgbModel(
        {.threads = 1, .log = &std::cout, .prior = tune::makeAnalyticModel(target)});
#else
    std::cerr << "tune_matmul: built without XGBoost; use --cost-model random or analytic\n";
    return 2;
#endif
  } else {
    std::cerr << "tune_matmul: --cost-model expects random, analytic or xgb\n";
    return 2;
  }
  tune::TuneOptions options{.maxTrialsGlobal = trials, .trialsPerIter = 64, .log = &std::cout};
  std::ofstream curve;
  if (!curvePath.empty()) {
    curve.open(curvePath);
    if (!curve) {
      std::cerr << "tune_matmul: cannot write " << curvePath << "\n";
      return 1;
    }
    options.curve = &curve;
  }
  options.measure = measure;
  options.search.seed = seed;
  std::vector<tune::TuneTask> tasks = {
      {"main", mm, 1,
       useRules ? tune::rules::ruleSpaces(mm, target, static_cast<int64_t>(seed))
                : std::vector<tune::DesignSpace>{tune::spaceFromFunction(
                      mm, tune::stochasticScheduleMM, "stochastic_schedule_mm")}}};
  tune::tune(tasks, target, database, *model, options);

  // compile_tir(database, mod, target): the best record replayed.
  std::optional<tir::PrimFunc> best = tune::compileTir(database, mm, target);
  if (!best) {
    std::cerr << "no valid record\n";
    return 1;
  }
  std::cout << tir::toScript(*best);
  const int64_t flops = tune::estimateFlops(mm);
  const tune::MeasureOptions timing{.number = 100, .repeat = 3, .minRepeatMs = 50, .threads = 1};
  tune::LocalRunner timer(timing);
  const double plain = seconds(timer.run(tune::buildCandidate(mm, target), input));
  const double tuned = seconds(timer.run(tune::buildCandidate(*best, target), input));
  std::printf("plain: %.3f us (%.2f GFLOP/s); tuned: %.3f us (%.2f GFLOP/s)\n", plain * 1e6,
              flops / plain / 1e9, tuned * 1e6, flops / tuned / 1e9);
  return 0;
}
