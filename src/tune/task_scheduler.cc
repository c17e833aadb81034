#include "tune/task_scheduler.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>

#include "lower/relay/schedule_provider.h"
#include "support/diagnostic.h"
#include "tune/flops.h"

namespace tessera::tune {

namespace {

struct TaskState {
  TuneTask task;
  uint64_t key = 0;
  int workload = 0;
  int64_t flops = 1;
  std::unique_ptr<SearchStrategy> search;
  std::optional<MeasureInput> input;
  int trials = 0;
  double best = kFailedRunSeconds;  // best median
  bool done = false;
  double defaultSeconds = 0;
  std::vector<double> history;  // best latency after each of its rounds
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::string fixed4(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4f", v);
  return buf;
}

// The gradient-based pick (§6.11): each live task's expected latency gain per round, from the
// slope of its best latency over the last `window` rounds and its best latency per round so
// far, times its weight; the largest wins, ties by a fair draw.
size_t gradientPick(const std::vector<TaskState>& states, std::mt19937_64& rng) {
  constexpr double kAlpha = 0.2;
  constexpr size_t kWindow = 3;
  std::vector<size_t> best;
  double top = -INFINITY;
  for (size_t i = 0; i < states.size(); ++i) {
    const TaskState& s = states[i];
    if (s.done) continue;
    double g = -1e9;
    const size_t m = s.history.size();
    if (m > 0 && s.history.back() < kFailedRunSeconds) {
      const double bm = s.history.back();
      const double g1 = m >= kWindow + 1 ? (s.history[m - 1 - kWindow] - bm) / kWindow : 0.0;
      const double g2 = bm / static_cast<double>(m);
      g = (kAlpha * g1 + (1 - kAlpha) * g2) * s.task.weight;
    }
    if (g > top) {
      top = g;
      best.clear();
    }
    if (g == top) best.push_back(i);
  }
  if (best.empty()) return states.size();
  return best[std::uniform_int_distribution<size_t>(0, best.size() - 1)(rng)];
}

}  // namespace

void requireNumCores(const target::Target& target) {
  if (target.kind == target::TargetKind::kLlvm && target.numCores <= 0)
    throwDiagnostic("tune",
                    "Target does not have attribute \"num-cores\", physical core number must be "
                    "defined! For example, on the local machine, the target must be \"llvm "
                    "-num-cores N\"");
}

TuneResult tune(std::vector<TuneTask> tasks, const target::Target& target, Database& database,
                CostModel& model, const TuneOptions& options) {
  requireNumCores(target);
  std::ostream* log = options.log;
  const std::string targetKey = recordTarget(target);
  const int perTask =
      options.maxTrialsPerTask > 0 ? options.maxTrialsPerTask : options.maxTrialsGlobal;
  const auto start = std::chrono::steady_clock::now();
  std::vector<TaskState> states;
  for (size_t i = 0; i < tasks.size(); ++i) {
    TaskState s;
    s.task = std::move(tasks[i]);
    s.key = lower::workloadKey(s.task.func);
    s.workload = database.commitWorkload(s.task.func);
    s.flops = estimateFlops(s.task.func);
    SearchOptions search = options.search;
    search.seed = options.search.seed + i;
    s.search =
        std::make_unique<SearchStrategy>(s.task.func, s.key, s.task.spaces, search, &model, log);
    // Resume: what the database holds for this workload is measured already.
    // The cost model learns from them again (its training data is the database's records).
    size_t resumed = 0;
    std::vector<tir::PrimFunc> programs;
    std::vector<double> seconds;
    for (const TuningRecord& r : database.records(s.key, targetKey)) {
      const double secs = r.valid() ? median(r.runSecs) : kFailedRunSeconds;
      if (s.search->addMeasured(r.trace, secs)) ++resumed;
      if (r.valid()) s.best = std::min(s.best, secs);
      if (!model.needsPrograms()) continue;
      lower::TracedSchedule replayed = lower::applyTunedTrace(s.task.func, r.trace);
      if (!replayed.func) continue;
      programs.push_back(*replayed.func);
      seconds.push_back(secs);
    }
    if (!programs.empty()) model.update(s.key, programs, seconds);
    if (log) {
      *log << "Task #" << i << ": \"" << s.task.name << "\": " << s.task.spaces.size()
           << " design space(s)";
      for (const DesignSpace& d : s.task.spaces)
        *log << " [" << d.name << ": " << d.knobs.size() << " knobs]";
      if (resumed) *log << ", " << resumed << " record(s) from the database";
      *log << "\n";
    }
    states.push_back(std::move(s));
  }
  auto rows = [&] {
    std::vector<TaskRow> out;
    for (const TaskState& s : states)
      out.push_back({s.task.name, s.flops, s.task.weight, s.best, s.trials, s.done});
    return out;
  };
  TuneResult result;
  auto printTable = [&] {
    result.table = formatTaskTable(rows());
    if (log) *log << result.table;
  };
  auto finish = [&](size_t i) {
    states[i].done = true;
    size_t remaining = 0;
    for (const TaskState& s : states) remaining += !s.done;
    if (log) *log << "Task #" << i << " has finished. Remaining task(s): " << remaining << "\n";
    printTable();
  };

  int trialsSoFar = 0;
  size_t next = 0, picks = 0;
  std::mt19937_64 pickRng(options.search.seed);
  if (options.scheduler != "round-robin" && options.scheduler != "gradient")
    throwDiagnostic("tune",
                    "unknown task scheduler '" + options.scheduler + "' (round-robin or gradient)");
  LocalRunner runner(options.measure);
  std::ostream* curve = options.curve;
  if (curve) *curve << "trial,task,task_trial,seconds,best_seconds_task,elapsed_s\n" << std::flush;
  int measured = 0;
  while (trialsSoFar < options.maxTrialsGlobal) {
    // Round-robin over the tasks that are not finished; the gradient-based scheduler too, for
    // its first pass over the tasks.
    size_t i = states.size();
    if (options.scheduler == "gradient" && picks >= states.size()) {
      i = gradientPick(states, pickRng);
    } else {
      for (size_t k = 0; k < states.size(); ++k) {
        const size_t c = (next + k) % states.size();
        if (!states[c].done) {
          i = c;
          break;
        }
      }
    }
    if (i == states.size()) break;
    next = i + 1;
    ++picks;
    TaskState& s = states[i];
    if (log) *log << "TaskScheduler picks Task #" << i << ": \"" << s.task.name << "\"\n";
    if (s.trials >= perTask) {
      finish(i);
      continue;
    }
    const int n = std::min(
        {options.trialsPerIter, perTask - s.trials, options.maxTrialsGlobal - trialsSoFar});
    std::vector<Candidate> candidates = s.search->propose(static_cast<size_t>(n));
    if (candidates.empty()) {
      finish(i);
      continue;
    }
    if (!s.input) s.input = makeMeasureInput(s.task.func, target, 1, options.measure.threads);
    trialsSoFar += static_cast<int>(candidates.size());
    if (log) *log << "Sending " << candidates.size() << " sample(s) to builder\n";
    std::vector<tir::PrimFunc> scheduled;
    for (const Candidate& c : candidates) scheduled.push_back(c.func);
    const std::vector<BuildResult> builds = buildCandidates(scheduled, target, options.build);
    if (log) *log << "Sending " << candidates.size() << " sample(s) to runner\n";
    std::vector<tir::PrimFunc> programs;
    std::vector<double> seconds;
    for (size_t c = 0; c < candidates.size(); ++c) {
      RunResult r = runner.run(builds[c], *s.input);
      const int trial = s.trials++;
      TuningRecord record{candidates[c].trace, r.runSecs, targetKey, argInfoOf(s.task.func)};
      if (!r.ok()) record.runSecs = {kFailedRunSeconds};
      database.commitRecord(s.workload, record);
      const double secs = r.ok() ? median(r.runSecs) : kFailedRunSeconds;
      s.search->notify(candidates[c], secs);
      programs.push_back(candidates[c].func);
      seconds.push_back(secs);
      if (r.ok()) s.best = std::min(s.best, secs);
      if (candidates[c].space == 0 && candidates[c].decisions == s.task.spaces[0].base)
        s.defaultSeconds = secs;
      if (curve) {
        char row[160];
        const double elapsed =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        auto sci = [](double v) {
          if (v >= kFailedRunSeconds) return std::string();
          char buf[32];
          std::snprintf(buf, sizeof buf, "%.6e", v);
          return std::string(buf);
        };
        std::snprintf(row, sizeof row, ",%d,%s,%s,%.3f\n", trial, sci(secs).c_str(),
                      sci(s.best).c_str(), elapsed);
        *curve << measured << "," << s.task.name << row;
      }
      ++measured;
      if (!log) continue;
      *log << "[Task #" << i << ": " << s.task.name << "] Trial #" << trial << ": ";
      if (!r.ok()) {
        *log << "Error in " << (builds[c].module ? "running" : "building") << ": " << r.error
             << "\n";
        continue;
      }
      const double gflops = static_cast<double>(s.flops) / secs / 1e9;
      *log << "GFLOPs: " << fixed4(gflops) << ". Time: " << fixed4(secs * 1e6)
           << " us. Best GFLOPs: " << fixed4(static_cast<double>(s.flops) / s.best / 1e9) << "\n";
    }
    if (curve) *curve << std::flush;
    model.update(s.key, programs, seconds);
    s.history.push_back(s.best);
    if (log) *log << "[Updated] Task #" << i << ": \"" << s.task.name << "\"\n";
    printTable();
    if (log) {
      double total = 0;
      bool any = false;
      for (const TaskState& t : states)
        if (t.best < kFailedRunSeconds) {
          total += t.best * t.task.weight;
          any = true;
        }
      const double elapsed =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      *log << "[progress] elapsed " << fixed4(elapsed) << " s, trials " << trialsSoFar << "/"
           << options.maxTrialsGlobal << ", best total latency "
           << (any ? fixed4(total * 1e6) + " us" : std::string("N/A")) << "\n";
    }
  }
  for (size_t i = 0; i < states.size(); ++i)
    if (!states[i].done) states[i].done = true;
  result.tasks = rows();
  for (const TaskState& s : states) result.defaultSeconds.push_back(s.defaultSeconds);
  result.table = formatTaskTable(result.tasks);
  if (log) *log << result.table;
  return result;
}

}  // namespace tessera::tune
