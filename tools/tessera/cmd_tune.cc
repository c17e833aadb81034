// `tessera tune MODEL --trials N --db DIR`: MetaSchedule's tune over a model's kernels (the
// tuning tasks of `tessera compile`), recording every measurement in a tuning database that
// `tessera compile --db DIR` and `tessera run --db DIR` apply. Also `tessera tir --tune`.
#include <fstream>
#include <iostream>
#include <regex>

#include "cli.h"
#include "codegen/llvm/target.h"
#include "runtime/npy.h"
#include "runtime/thread_pool.h"
#include "support/diagnostic.h"
#include "tune/analytic_model.h"
#include "tune/cost_model.h"
#include "tune/model_tasks.h"
#ifdef TESSERA_HAVE_XGBOOST
#include "tune/xgb/xgb_model.h"
#endif
#include "tune_command.h"

namespace tessera::cli {

const char* const kTuneUsage =
    "usage: tessera tune MODEL --trials N --db DIR [--target TARGET] [--tasks REGEX]\n"
    "                          [--threads N] [--builders N] [--trials-per-round N]\n"
    "                          [--search NAME]\n"
    "                          [--cost-model NAME] [--task-scheduler NAME]\n"
    "                          [--seed N] [--timeout SEC] [--build-timeout SEC]\n"
    "                          [--number N] [--repeat N] [--min-repeat-ms MS]\n"
    "                          [--cooldown-ms MS] [--cache-flush-bytes N]\n"
    "                          [--input-shape NAME=D0,...] [--params FILE.npz]\n"
    "                          [--curve FILE.csv]\n"
    "\n"
    "Tunes the kernels of MODEL (Relay text or ONNX) as MetaSchedule's tune does: for each\n"
    "kernel `tessera compile` makes (a tuning task, weighted by its calls) the search proposes\n"
    "schedules from the design space of its default schedule, each is built, checked against\n"
    "the reference and timed in a child process; every measurement goes to the database in DIR.\n"
    "After each round: one line per trial, the task table and a progress line. Compile with\n"
    "`tessera compile MODEL -o OUT --db DIR` to use the best schedules (docs/user/tuning.md).\n"
    "  --trials N          measured candidates in all (the global budget)\n"
    "  --db DIR            the tuning database (created when missing; a run resumes from it)\n"
    "  --target TARGET     must carry -num-cores (default: the host, -num-cores = --threads)\n"
    "  --tasks REGEX       only the kernels whose names match\n"
    "  --threads N         threads the measured kernels run on (default: the runtime's)\n"
    "  --builders N        candidates compiled at a time, each in a child process (default:\n"
    "                      the hardware threads); they are measured one at a time afterwards\n"
    "  --trials-per-round N  candidates per round of a task (default 64)\n"
    "  --search NAME       evolutionary (default) or random\n"
    "  --cost-model NAME   xgb (default when built with XGBoost: learned from the measurements,\n"
    "                      the analytic model until 100 exist), analytic (cycles estimated\n"
    "                      from the lowered loops: register tiles, vectors, spills) or random\n"
    "  --task-scheduler NAME  round-robin (default) or gradient (TVM's: after one round per\n"
    "                      task, the task whose best latency is expected to fall the most)\n"
    "  --seed N            the search's seed (default 0)\n"
    "  --timeout SEC       a candidate running longer fails (default 30)\n"
    "  --build-timeout SEC  a candidate compiling longer fails (default 30)\n"
    "  --number N          calls per measurement, averaged (time_evaluator's number; default 3)\n"
    "  --repeat N          measurements per candidate, whose mean is its time (default 1)\n"
    "  --min-repeat-ms MS  time_evaluator's min_repeat_ms (default 100): `number` grows until\n"
    "                      a measurement lasts this long (0: it stays)\n"
    "  --cooldown-ms MS    pause before each candidate runs (default 0)\n"
    "  --cache-flush-bytes N  write N bytes before every measurement to evict the caches; with\n"
    "                      --number 1 --min-repeat-ms 0 every timed call starts cold, as a\n"
    "                      model's layer reads its weights (TVM's enable_cpu_cache_flush)\n"
    "  --input-shape NAME=D0,D1,...  shape of an ONNX graph input (repeatable)\n"
    "  --params FILE.npz   bind these arrays to @main's parameters of the same names\n"
    "  --curve FILE.csv    write the search-efficiency curve: one row per measured candidate,\n"
    "                      trial,task,task_trial,seconds,best_seconds_task,elapsed_s\n";

namespace {

int parseInt(const std::optional<std::string>& text, const char* flag, int fallback, int min) {
  if (!text) return fallback;
  try {
    size_t used = 0;
    const int v = std::stoi(*text, &used);
    if (used == text->size() && v >= min) return v;
  } catch (const std::exception&) {
  }
  throw UsageError{std::string(flag) + " expects an integer of at least " + std::to_string(min)};
}

double parseDouble(const std::optional<std::string>& text, const char* flag, double fallback) {
  if (!text) return fallback;
  try {
    size_t used = 0;
    const double v = std::stod(*text, &used);
    if (used == text->size() && v >= 0) return v;
  } catch (const std::exception&) {
  }
  throw UsageError{std::string(flag) + " expects a non-negative number"};
}

std::string gflops(int64_t flops, double seconds) {
  if (seconds <= 0 || seconds >= tune::kFailedRunSeconds) return "N/A";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f GFLOP/s (%.3f us)",
                static_cast<double>(flops) / seconds / 1e9, seconds * 1e6);
  return buf;
}

}  // namespace

TuneFlags parseTuneFlags(Args& args) {
  TuneFlags f;
  const std::optional<std::string> trials = args.value("--trials");
  const std::optional<std::string> db = args.value("--db");
  if (!trials) throw UsageError{"--trials N is required"};
  if (!db) throw UsageError{"--db DIR is required"};
  f.db = *db;
  f.options.maxTrialsGlobal = parseInt(trials, "--trials", 0, 1);
  f.options.trialsPerIter = parseInt(args.value("--trials-per-round"), "--trials-per-round", 64, 1);
  f.options.build.workers = parseInt(args.value("--builders"), "--builders", 0, 1);
  f.options.build.timeoutSec = parseDouble(args.value("--build-timeout"), "--build-timeout", 30);
  f.options.search.seed = static_cast<uint64_t>(parseInt(args.value("--seed"), "--seed", 0, 0));
  f.options.measure.timeoutSec = parseDouble(args.value("--timeout"), "--timeout", 30);
  f.options.measure.number = parseInt(args.value("--number"), "--number", 3, 1);
  f.options.measure.repeat = parseInt(args.value("--repeat"), "--repeat", 1, 1);
  f.options.measure.minRepeatMs =
      parseDouble(args.value("--min-repeat-ms"), "--min-repeat-ms", 100);
  f.options.measure.cooldownMs = parseDouble(args.value("--cooldown-ms"), "--cooldown-ms", 0);
  f.options.measure.cacheFlushBytes =
      parseInt(args.value("--cache-flush-bytes"), "--cache-flush-bytes", 0, 0);
  const std::string search = args.value("--search").value_or("evolutionary");
  if (search != "evolutionary" && search != "random")
    throw UsageError{"--search expects evolutionary or random"};
  f.options.search.evolutionary = search == "evolutionary";
#ifdef TESSERA_HAVE_XGBOOST
  f.costModel = args.value("--cost-model").value_or("xgb");
#else
  f.costModel = args.value("--cost-model").value_or("random");
#endif
  f.options.scheduler = args.value("--task-scheduler").value_or("round-robin");
  if (f.options.scheduler != "round-robin" && f.options.scheduler != "gradient")
    throw UsageError{"--task-scheduler expects round-robin or gradient"};
  if (f.costModel != "xgb" && f.costModel != "analytic" && f.costModel != "random")
    throw UsageError{"--cost-model expects xgb, analytic or random"};
  const int threads = parseInt(args.value("--threads"), "--threads", 0, 1);
  const std::optional<std::string> targetText = args.value("--target");
  if (targetText) {
    f.target = codegen::withHostDefaults(target::Target::parse(*targetText));
    tune::requireNumCores(f.target);  // TVM's message, before anything is loaded
  } else {
    f.target = codegen::hostTarget();
    f.target.numCores = threads > 0 ? threads : runtime::defaultNumThreads();
  }
  f.options.measure.threads = threads > 0 ? threads : f.target.numCores;
  f.inputShapes = args.values("--input-shape");
  if (std::optional<std::string> p = args.value("--params")) f.params = readNpz(*p);
  f.curve = args.value("--curve").value_or("");
  return f;
}

tune::TuneResult runTuning(std::vector<tune::TuneTask> tasks, const TuneFlags& flags) {
  tune::Database database(flags.db);
  for (const std::string& w : database.warnings()) std::cerr << "warning: " << w << "\n";
  std::unique_ptr<tune::CostModel> model;
  if (flags.costModel == "xgb") {
#ifdef TESSERA_HAVE_XGBOOST
    // One thread: OpenMP workers left spinning in this process would disturb the measurements.
    model = tune::makeXgbModel(
        {.threads = 1, .log = &std::cout, .prior = tune::makeAnalyticModel(flags.target)});
#else
    throwDiagnostic("tune",
                    "this tessera was built without XGBoost (install libxgboost-dev and rebuild); "
                    "use --cost-model analytic or random");
#endif
  } else if (flags.costModel == "analytic") {
    model = tune::makeAnalyticModel(flags.target);
  } else {
    model = std::make_unique<tune::RandomModel>(flags.options.search.seed);
  }
  tune::TuneOptions options = flags.options;
  options.log = &std::cout;
  std::ofstream curve;
  if (!flags.curve.empty()) {
    curve.open(flags.curve);
    if (!curve) throwDiagnostic("tune", "cannot write " + flags.curve);
    options.curve = &curve;
  }
  std::cout << "Tuning " << tasks.size() << " task(s) with the " << model->name()
            << " cost model for " << flags.target.str() << "; database " << flags.db << " ("
            << database.numRecords() << " records)\n";
  std::vector<int64_t> flops;
  for (const tune::TuneTask& t : tasks) flops.push_back(tune::estimateFlops(t.func));
  tune::TuneResult result = tune::tune(std::move(tasks), flags.target, database, *model, options);
  std::cout << "Default vs tuned:\n";
  for (size_t i = 0; i < result.tasks.size(); ++i)
    std::cout << "  " << result.tasks[i].name << ": default "
              << gflops(flops[i], result.defaultSeconds[i]) << ", tuned "
              << gflops(flops[i], result.tasks[i].bestSeconds) << "\n";
  return result;
}

int cmdTune(Args& args) {
  TuneFlags flags = parseTuneFlags(args);
  const std::string filter = args.value("--tasks").value_or("");
  const std::vector<std::string> files = args.positionals();
  if (files.size() != 1) throw UsageError{"expected exactly one MODEL"};
  std::vector<tune::TuneTask> tasks =
      tune::modelTasks(loadModule(files[0], flags.inputShapes), flags.target, flags.params, filter);
  runTuning(std::move(tasks), flags);
  return kExitOk;
}

}  // namespace tessera::cli
