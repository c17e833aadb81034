// MetaSchedule's XGBoost cost model (specs/tir_relax.md §6.7) over tune/features.h's per-store
// rows, through the system XGBoost's C API (the only library that sees XGBoost). A candidate's
// score is the sum of its rows' scores ("pack-sum"); the objective is the squared error between
// that sum and the candidate's normalised throughput (best cost of its workload / its cost),
// with gradient (pred - y) * y and hessian y per row, so fast programs weigh more. Trained from
// scratch on all samples once at least `warmupSamples` exist and the data grew by 20% since the
// last training; before that, the prior model's scores (tune/analytic_model.h), or uniform random
// numbers without one (TVM's behaviour).
#pragma once

#include <memory>
#include <ostream>

#include "tune/cost_model.h"

namespace tessera::tune {

struct XgbOptions {
  int warmupSamples = 100;
  /// TVM allows 10000. Most trainings of bench/results/2026-11-29-tuning-curve.md's runs (29 of
  /// 36, at 128-512 samples) reached this cap before early stopping.
  int maxRounds = 300;
  int earlyStoppingRounds = 50;
  int threads = 1;
  uint64_t seed = 43;
  std::ostream* log = nullptr;  ///< "XGB iter ..." lines every 25 rounds, "XGB stopped ..."
  /// Scores candidates until the first training (null: uniform random scores, TVM's).
  std::shared_ptr<CostModel> prior;
};

std::unique_ptr<CostModel> makeXgbModel(const XgbOptions& options);

}  // namespace tessera::tune
