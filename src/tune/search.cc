#include "tune/search.h"

#include <algorithm>
#include <cmath>

#include "lower/relay/schedule_provider.h"
#include "tir/schedule/attempt.h"
#include "tune/database.h"
#include "tune/postproc/postproc.h"

namespace tessera::tune {

SearchStrategy::SearchStrategy(tir::PrimFunc func, uint64_t workload,
                               std::vector<DesignSpace> spaces, SearchOptions options,
                               CostModel* model, std::ostream* log)
    : func_(std::move(func)),
      workload_(workload),
      spaces_(std::move(spaces)),
      options_(options),
      model_(model),
      log_(log),
      rng_(options.seed) {}

std::string SearchStrategy::keyOf(const Point& p) const {
  std::string key = std::to_string(p.first) + ":";
  for (const Decision& d : p.second) {
    for (int64_t v : d) key += std::to_string(v) + ",";
    key += ";";
  }
  return key;
}

std::optional<Candidate> SearchStrategy::realize(const Point& p, bool logRejection, bool verify) {
  const DesignSpace& space = spaces_[p.first];
  tir::Trace trace = space.materialize(p.second);
  if (space.postprocess) {
    // Replay, then the postprocessors, recorded after EnterPostproc: the candidate's trace is
    // the whole program, what the database stores and compile_tir replays.
    std::vector<postproc::Postproc> postprocs = postproc::defaultPostprocs();
    if (!verify) postprocs.pop_back();  // VerifyLowering: only for what is measured
    tir::Schedule sch(func_, 0);
    const Applicability answer = tir::attempt(sch, [&](tir::Schedule& s) {
      tir::applyTrace(s, trace);
      return postproc::applyPostprocs(s, postprocs);
    });
    if (!answer) {
      if (log_ && logRejection) *log_ << "rejected a candidate: " << answer.reason << "\n";
      return std::nullopt;
    }
    trace = sch.trace();
    // Scoring needs only the program; what is measured is replayed once more below, as the
    // database will replay it.
    if (!verify) return Candidate{p.first, p.second, std::move(trace), sch.func()};
  }
  lower::TracedSchedule scheduled = lower::applyTunedTrace(func_, trace);
  if (!scheduled.func) {
    if (log_ && logRejection) *log_ << "rejected a candidate: " << scheduled.answer.reason << "\n";
    return std::nullopt;
  }
  // The decisions the replay used (a stale compute location is repaired when replayed).
  std::optional<Decisions> used = space.decisionsOf(trace);
  return Candidate{p.first, used ? *used : p.second, std::move(trace), *scheduled.func};
}

std::vector<SearchStrategy::Point> SearchStrategy::randomPoints(size_t n) {
  std::vector<Point> out;
  if (spaces_.empty()) return out;
  // The generators (traced schedules, the rules) share the fresh samples equally, and each
  // picks its spaces uniformly (TVM has one generator per task): the rules make several
  // spaces of a kernel, and the default schedule's space must not drown among them.
  std::vector<std::vector<size_t>> groups(2);
  for (size_t s = 0; s < spaces_.size(); ++s) groups[spaces_[s].postprocess ? 1 : 0].push_back(s);
  std::erase_if(groups, [](const std::vector<size_t>& g) { return g.empty(); });
  for (size_t i = 0; i < n; ++i) {
    const std::vector<size_t>& g =
        groups[std::uniform_int_distribution<size_t>(0, groups.size() - 1)(rng_)];
    const size_t s = g[std::uniform_int_distribution<size_t>(0, g.size() - 1)(rng_)];
    out.push_back({s, sampleDecisions(spaces_[s], rng_)});
  }
  return out;
}

std::vector<SearchStrategy::Point> SearchStrategy::evolve(const std::vector<Point>& random) {
  const size_t size = static_cast<size_t>(std::max(options_.populationSize, 1));
  // The population: the best measured points, then fresh samples.
  std::vector<std::pair<double, Point>> best = measured_;
  std::stable_sort(best.begin(), best.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<Point> population;
  const size_t seeds = static_cast<size_t>(static_cast<double>(size) * options_.initMeasuredRatio);
  for (const auto& [secs, p] : best) {
    if (population.size() >= seeds || secs >= kFailedRunSeconds) break;
    population.push_back(p);
  }
  for (size_t i = 0; population.size() < size && i < random.size(); ++i)
    population.push_back(random[i]);

  std::map<std::string, std::pair<double, Point>> heap;  // unmeasured points by key
  for (int iter = 0; iter < options_.geneticIters && !population.empty(); ++iter) {
    std::vector<tir::PrimFunc> programs(population.size());
    if (model_->needsPrograms())
      for (size_t i = 0; i < population.size(); ++i)
        if (std::optional<Candidate> c = realize(population[i], false, false))
          programs[i] = c->func;
    std::vector<double> scores = model_->predict(workload_, programs);
    scores.resize(population.size(), 0.0);
    for (size_t i = 0; i < scores.size(); ++i) {
      if (model_->needsPrograms() && !programs[i]) scores[i] = 0;
      // Clipped at 0; a non-finite score (a diverged model) would make the parent draw below
      // undefined, so it counts as 0.
      scores[i] = std::isfinite(scores[i]) ? std::max(scores[i], 0.0) : 0.0;
      const std::string key = keyOf(population[i]);
      if (seen_.count(key)) continue;
      auto it = heap.find(key);
      if (it == heap.end() || it->second.first < scores[i]) heap[key] = {scores[i], population[i]};
    }
    // The next generation: parents by score, mutated with mutateProb, else copied once.
    double total = 0;
    for (double s : scores) total += s;
    std::vector<double> weights = scores;
    if (total <= 0) std::fill(weights.begin(), weights.end(), 1.0);
    std::discrete_distribution<size_t> pickParent(weights.begin(), weights.end());
    std::bernoulli_distribution doMutate(options_.mutateProb);
    std::set<size_t> copied;
    std::vector<Point> next;
    for (size_t slot = 0; slot < population.size(); ++slot) {
      size_t parent = 0;
      bool filled = false;
      for (int tries = 0; tries <= 10 && !filled; ++tries) {
        parent = std::min(pickParent(rng_), population.size() - 1);
        const Point& p = population[parent];
        if (doMutate(rng_)) {
          if (std::optional<Decisions> d = mutate(spaces_[p.first], p.second, rng_)) {
            next.push_back({p.first, *d});
            filled = true;
          }
        } else if (copied.insert(parent).second) {
          next.push_back(p);
          filled = true;
        }
      }
      if (!filled) next.push_back(population[parent]);
    }
    population = std::move(next);
  }
  std::vector<std::pair<double, Point>> ranked;
  for (auto& [key, entry] : heap) ranked.push_back(std::move(entry));
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<Point> out;
  for (auto& [score, p] : ranked) out.push_back(std::move(p));
  return out;
}

std::vector<Candidate> SearchStrategy::propose(size_t n) {
  std::vector<Candidate> picks;
  auto take = [&](const Point& p) {
    if (picks.size() >= n) return;
    const std::string key = keyOf(p);
    if (!seen_.insert(key).second) return;
    std::optional<Candidate> c = realize(p);
    if (!c) return;
    // A repaired point may be one measured already.
    if (c->decisions != p.second && !seen_.insert(keyOf({c->space, c->decisions})).second) return;
    picks.push_back(std::move(*c));
  };
  // Each space's own point first: the default schedule is always measured.
  if (!baseProposed_) {
    baseProposed_ = true;
    for (size_t s = 0; s < spaces_.size(); ++s) take({s, spaces_[s].base});
  }
  const size_t size = static_cast<size_t>(std::max(options_.populationSize, 1));
  const std::vector<Point> random = randomPoints(std::max(size, n));
  if (!options_.evolutionary) {
    for (const Point& p : random) take(p);
    return picks;
  }
  const std::vector<Point> best = evolve(random);
  // Epsilon-greedy: most picks are the model's best, a few are fresh samples.
  const size_t already = picks.size();
  const size_t wanted = n - std::min(n, already);
  const auto numRand =
      static_cast<size_t>(std::floor(static_cast<double>(wanted) * options_.epsGreedy));
  size_t b = 0, r = 0;
  while (picks.size() < already + wanted - numRand && b < best.size()) take(best[b++]);
  while (picks.size() < n && r < random.size()) take(random[r++]);
  while (picks.size() < n && b < best.size()) take(best[b++]);
  return picks;
}

bool SearchStrategy::addMeasured(const tir::Trace& trace, double seconds) {
  for (size_t s = 0; s < spaces_.size(); ++s) {
    std::optional<Decisions> d = spaces_[s].decisionsOf(trace);
    if (!d) continue;
    Point p{s, std::move(*d)};
    seen_.insert(keyOf(p));
    measured_.push_back({seconds, std::move(p)});
    return true;
  }
  return false;
}

void SearchStrategy::notify(const Candidate& candidate, double seconds) {
  measured_.push_back({seconds, {candidate.space, candidate.decisions}});
}

}  // namespace tessera::tune
