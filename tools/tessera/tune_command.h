// The tuning flags shared by `tessera tune` and `tessera tir --tune`, and the run itself.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "cli.h"
#include "runtime/ndarray.h"
#include "target/target.h"
#include "tune/flops.h"
#include "tune/task_scheduler.h"

namespace tessera::cli {

struct TuneFlags {
  std::string db;
  std::string costModel;  ///< "xgb" or "random"
  target::Target target;  ///< resolved, with num-cores
  tune::TuneOptions options;
  std::vector<std::string> inputShapes;
  std::map<std::string, NDArray> params;
  std::string curve;  ///< --curve FILE.csv: the search-efficiency curve (empty: none)
};

/// --trials, --db (required), --target, --threads, --trials-per-round, --search, --cost-model,
/// --seed,
/// --timeout, --number, --repeat, --min-repeat-ms, --input-shape, --params, --curve.
TuneFlags parseTuneFlags(Args& args);

/// Tunes `tasks` into the database, printing the log, the tables and, at the end, each task's
/// default and tuned GFLOP/s.
tune::TuneResult runTuning(std::vector<tune::TuneTask> tasks, const TuneFlags& flags);

}  // namespace tessera::cli
