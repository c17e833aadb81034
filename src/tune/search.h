// The search over a task's design spaces (MetaSchedule's ReplayTrace and EvolutionarySearch).
// Random search proposes fresh samples (the default schedule's spaces and the rule-made ones
// get half of them each when a task has both). Evolutionary search keeps a population seeded with
// the best measured candidates (the database's and this run's), fills it with fresh samples,
// evolves it for a few generations (parents drawn by cost-model score, mutated with probability
// 0.85), and proposes the best-scored unmeasured candidates, with an epsilon-greedy share of fresh
// samples. Both propose each space's base point (the default schedule) first, so a tuned kernel
// is never slower than the default one. Candidates whose trace does not replay are rejected
// (with the reason logged) and cost no trial.
#pragma once

#include <map>
#include <memory>
#include <ostream>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "tune/cost_model.h"
#include "tune/mutator.h"
#include "tune/space.h"

namespace tessera::tune {

struct SearchOptions {
  bool evolutionary = true;  ///< false: random search
  int populationSize = 64;   ///< TVM's is 512; this search's scoring is cheaper per candidate
  double initMeasuredRatio = 0.2;
  int geneticIters = 4;
  double mutateProb = 0.85;
  double epsGreedy = 0.05;
  uint64_t seed = 0;
};

/// A proposed candidate: a point of one space, its trace, and the kernel it schedules.
struct Candidate {
  size_t space = 0;
  Decisions decisions;
  tir::Trace trace;
  tir::PrimFunc func;
};

class SearchStrategy {
 public:
  /// `func` is the unscheduled kernel, `model` scores candidates (not owned; may be shared).
  SearchStrategy(tir::PrimFunc func, uint64_t workload, std::vector<DesignSpace> spaces,
                 SearchOptions options, CostModel* model, std::ostream* log = nullptr);

  /// A candidate measured earlier (a database record): never proposed again, a seed of the
  /// population. False when its trace is not a point of any space.
  bool addMeasured(const tir::Trace& trace, double seconds);
  /// Up to `n` unmeasured candidates; fewer (or none) once the spaces are exhausted.
  std::vector<Candidate> propose(size_t n);
  /// The measurement of a proposed candidate (kFailedRunSeconds when it failed).
  void notify(const Candidate& candidate, double seconds);

  const std::vector<DesignSpace>& spaces() const { return spaces_; }

 private:
  using Point = std::pair<size_t, Decisions>;
  std::string keyOf(const Point& p) const;
  /// The point's trace replayed on the kernel and postprocessed (a rule-made space's; `verify`:
  /// with VerifyLowering); nullopt (logged when asked) when it fails.
  std::optional<Candidate> realize(const Point& p, bool logRejection = true, bool verify = true);
  std::vector<Point> randomPoints(size_t n);
  std::vector<Point> evolve(const std::vector<Point>& random);

  tir::PrimFunc func_;
  uint64_t workload_;
  std::vector<DesignSpace> spaces_;
  SearchOptions options_;
  CostModel* model_;
  std::ostream* log_;
  std::mt19937_64 rng_;
  std::set<std::string> seen_;  // measured or proposed
  std::vector<std::pair<double, Point>> measured_;
  bool baseProposed_ = false;
};

}  // namespace tessera::tune
