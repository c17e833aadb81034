// The task scheduler (MetaSchedule's round-robin and gradient-based TaskSchedulers) and tune(): for
// each task a search over its design spaces; rounds of candidates proposed, built, measured one at
// a time in a child process (tune/measure.h), committed to the database and fed back to the search
// and the cost model. After each round it logs one line per trial, TVM's task table and a progress
// line. A task stops at its trial budget or when its spaces are exhausted; the run stops at the
// global budget. Records already in the database for a task's workload and target are never
// measured again, seed its population and train the cost model (a resumed run goes on where the
// last one stopped, its model trained on what the database holds).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "target/target.h"
#include "tune/cost_model.h"
#include "tune/database.h"
#include "tune/measure.h"
#include "tune/search.h"
#include "tune/space.h"
#include "tune/task_table.h"

namespace tessera::tune {

struct TuneTask {
  std::string name;
  tir::PrimFunc func;  ///< unscheduled
  int weight = 1;      ///< calls in the model
  std::vector<DesignSpace> spaces;
};

struct TuneOptions {
  int maxTrialsGlobal = 64;
  int maxTrialsPerTask = 0;  ///< 0: maxTrialsGlobal
  int trialsPerIter = 64;
  /// "round-robin" or "gradient" (TVM's default: alpha 0.2, window 3, after one pass over all).
  std::string scheduler = "round-robin";
  SearchOptions search;
  MeasureOptions measure;
  /// The builder pool: a round's candidates are built in child processes (`build.workers` at a
  /// time, each with a timeout), then measured one at a time.
  BuildOptions build;
  std::ostream* log = nullptr;  ///< trial lines, tables, progress (null: silent)
  /// The search-efficiency curve as CSV (null: none): the header
  /// `trial,task,task_trial,seconds,best_seconds_task,elapsed_s`, then one row per measured
  /// candidate in measurement order: `trial` counts this run's measurements from 0, `task` is the
  /// task's name, `task_trial` its own count, `seconds` the median run time (empty when the
  /// candidate failed), `best_seconds_task` the task's best so far, records resumed from the
  /// database included (empty while it has none), `elapsed_s` seconds since tune() began.
  std::ostream* curve = nullptr;
};

/// The measured best of each task and how many trials it took.
struct TuneResult {
  std::vector<TaskRow> tasks;
  /// Per task, the measured median of its first space's base point (the default schedule);
  /// 0 when this run did not measure it (a resumed run).
  std::vector<double> defaultSeconds;
  std::string table;  ///< the last table printed
};

/// Tunes `tasks` for `target` (llvm, host-compatible, with num-cores: TVM's error otherwise),
/// committing every measurement to `database`.
TuneResult tune(std::vector<TuneTask> tasks, const target::Target& target, Database& database,
                CostModel& model, const TuneOptions& options);

/// TVM's check: a CPU target for tuning must say how many cores it runs on. Throws
/// DiagnosticError (code "tune") with TVM's message when `target` has no num-cores.
void requireNumCores(const target::Target& target);

}  // namespace tessera::tune
