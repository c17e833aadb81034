// Sampling primitives: sample_perfect_tile and sample_categorical. They change no IR; each draws
// from the schedule's PRNG (or replays a given decision) and records the decision in the trace.
// The distributions follow TVM's (specs/tir_relax.md §3.10) so a search explores the same space.
#include <algorithm>
#include <numeric>

#include "tir/schedule/instruction_kind_util.h"
#include "tir/schedule/schedule_state.h"

namespace tessera::tir {

// The names of the instructions this file records and replays, written once.
namespace {
constexpr char kSampleCategoricalInst[] = "SampleCategorical";
constexpr char kSamplePerfectTileInst[] = "SamplePerfectTile";
}  // namespace

namespace {

constexpr const char* kTile = "sample-perfect-tile";
constexpr const char* kCategorical = "sample-categorical";

std::vector<std::pair<int64_t, int>> primeFactors(int64_t n) {
  std::vector<std::pair<int64_t, int>> out;
  for (int64_t p = 2; p * p <= n; ++p) {
    int e = 0;
    while (n % p == 0) {
      n /= p;
      ++e;
    }
    if (e > 0) out.push_back({p, e});
  }
  if (n > 1) out.push_back({n, 1});
  return out;
}

int64_t uniformInt(std::mt19937_64& rng, int64_t lo, int64_t hi) {  // [lo, hi]
  return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}

// One draw of a perfect tiling of `extent` into `n` factors (before the innermost limit).
std::vector<int64_t> drawTiling(std::mt19937_64& rng, int64_t extent, int n) {
  std::vector<int64_t> tiles(n, 1);
  if (n == 1) {
    tiles[0] = extent;
    return tiles;
  }
  for (auto [p, e] : primeFactors(extent)) {
    if (n == 2) {
      // A huge prime goes wholly to one side; otherwise split the exponent uniformly.
      int x = p >= 65536 ? static_cast<int>(uniformInt(rng, 0, 1)) * e
                         : static_cast<int>(uniformInt(rng, 0, e));
      for (int i = 0; i < x; ++i) tiles[0] *= p;
      for (int i = 0; i < e - x; ++i) tiles[1] *= p;
      continue;
    }
    if (e == 1) {
      tiles[uniformInt(rng, 0, n - 1)] *= p;
      continue;
    }
    // Stars and bars: n-1 bars among e+n-1 slots, chosen without replacement.
    std::vector<int> slots(e + n - 1);
    std::iota(slots.begin(), slots.end(), 0);
    std::shuffle(slots.begin(), slots.end(), rng);
    std::vector<int> bars(slots.begin(), slots.begin() + (n - 1));
    std::sort(bars.begin(), bars.end());
    int prev = -1;
    for (int i = 0; i < n; ++i) {
      int end = i < n - 1 ? bars[i] : e + n - 1;
      int part = end - prev - 1;
      for (int k = 0; k < part; ++k) tiles[i] *= p;
      prev = end;
    }
  }
  return tiles;
}

// Replays a decision: innermost outward, a factor that does not divide the rest is replaced.
std::vector<int64_t> repairTiling(std::vector<int64_t> d, int64_t extent) {
  int64_t len = extent;
  for (size_t i = d.size(); i-- > 1;) {
    if (d[i] <= 0 || len % d[i] != 0) d[i] = len;
    len /= d[i];
  }
  d[0] = len;
  return d;
}

}  // namespace

std::vector<ExprRV> Schedule::samplePerfectTile(const LoopRV& loopRV, int n, int maxInnermostFactor,
                                                std::optional<std::vector<int64_t>> decision) {
  Impl& s = *impl_;
  const ForNode* loop = s.loop(kTile, loopRV);
  if (n < 1) throwScheduleError(kTile, "n must be at least 1, got " + std::to_string(n));
  if (maxInnermostFactor == 0 || maxInnermostFactor < -1) {
    throwScheduleError(kTile, "max_innermost_factor must be positive or -1, got " +
                                  std::to_string(maxInnermostFactor));
  }
  if (decision && static_cast<int>(decision->size()) != n) {
    throwScheduleError(kTile, "the decision has " + std::to_string(decision->size()) +
                                  " factors but n is " + std::to_string(n));
  }
  std::vector<int64_t> tiles;
  const int64_t* extent = asConstInt(loop->extent);
  if (!extent) {
    // A symbolic extent cannot be tiled perfectly: TVM answers [-1, 1, ..., 1].
    tiles.assign(n, 1);
    tiles[0] = -1;
  } else if (decision) {
    tiles = repairTiling(*decision, *extent);
  } else {
    do {
      tiles = drawTiling(s.rng, *extent, n);
    } while (maxInnermostFactor != -1 && tiles.back() > maxInnermostFactor);
  }
  std::vector<ExprRV> out;
  Instruction inst{.kind = kSamplePerfectTileInst,
                   .inputs = {loopRV},
                   .attrs = {AttrValue::integer(n), AttrValue::integer(maxInnermostFactor)}};
  std::vector<AttrValue> dec;
  for (int64_t t : tiles) {
    out.push_back(s.newExprRV(t));
    inst.outputs.push_back(out.back());
    dec.push_back(AttrValue::integer(t, DataType::int64()));
  }
  inst.decision = AttrValue::array(std::move(dec));
  s.record(std::move(inst));
  return out;
}

ExprRV Schedule::sampleCategorical(const std::vector<int64_t>& candidates,
                                   const std::vector<double>& probs,
                                   std::optional<int64_t> decision) {
  Impl& s = *impl_;
  if (candidates.empty() || candidates.size() != probs.size()) {
    throwScheduleError(kCategorical,
                       "candidates and probs must be non-empty and of equal length (got " +
                           std::to_string(candidates.size()) + " and " +
                           std::to_string(probs.size()) + ")");
  }
  double total = 0;
  for (double p : probs) {
    if (!(p >= 0)) throwScheduleError(kCategorical, "probabilities must be non-negative");
    total += p;
  }
  if (total <= 0) throwScheduleError(kCategorical, "the probabilities sum to zero");
  int64_t index = 0;
  if (decision) {
    if (*decision < 0 || *decision >= static_cast<int64_t>(candidates.size())) {
      throwScheduleError(kCategorical, "decision " + std::to_string(*decision) +
                                           " is outside [0, " + std::to_string(candidates.size()) +
                                           ")");
    }
    index = *decision;
  } else {
    index = std::discrete_distribution<int64_t>(probs.begin(), probs.end())(s.rng);
  }
  ExprRV out = s.newExprRV(candidates[index]);
  std::vector<AttrValue> cands, ps;
  for (int64_t c : candidates) cands.push_back(AttrValue::integer(c, DataType::int64()));
  for (double p : probs) ps.push_back(AttrValue::floating(p, DataType::float64()));
  s.record({.kind = kSampleCategoricalInst,
            .attrs = {AttrValue::array(std::move(cands)), AttrValue::array(std::move(ps))},
            .outputs = {out},
            .decision = AttrValue::integer(index, DataType::int64())});
  return out;
}

// --- how its instructions replay and print (listed in instruction_kinds.cc) -------------------

std::vector<InstructionKind> samplingKinds() {
  using namespace kinds;
  return {
      {.name = kSamplePerfectTileInst,
       .pythonName = "sample_perfect_tile",
       .pure = true,
       .inputs = {1, 1},
       .attrs = {2, 2},
       .listOutput = true,
       .apply =
           [](Schedule& s, const Instruction& i) {
             std::optional<std::vector<int64_t>> decision;
             if (i.decision) {
               decision.emplace();
               for (const AttrValue& d : i.decision->asArray()) decision->push_back(d.asInt());
             }
             return outs(s.samplePerfectTile(rvAt<LoopRV>(i, 0), static_cast<int>(intAttr(i, 0)),
                                             static_cast<int>(intAttr(i, 1)), decision));
           },
       .print =
           [](const Instruction& i, const Inputs& in) {
             return "loop=" + in[0] + ", n=" + pyAttr(i, 0) +
                    ", max_innermost_factor=" + pyAttr(i, 1);
           }},
      {.name = kSampleCategoricalInst,
       .pythonName = "sample_categorical",
       .pure = true,
       .inputs = {0, 0},
       .attrs = {2, 2},
       .apply =
           [](Schedule& s, const Instruction& i) {
             std::vector<int64_t> candidates;
             std::vector<double> probs;
             for (const AttrValue& c : attrAt(i, 0).asArray()) candidates.push_back(c.asInt());
             for (const AttrValue& p : attrAt(i, 1).asArray())
               probs.push_back(p.kind() == AttrValue::Kind::kInt ? p.asInt() : p.asFloat());
             std::optional<int64_t> decision;
             if (i.decision) decision = i.decision->asInt();
             return std::vector<InstOutput>{s.sampleCategorical(candidates, probs, decision)};
           },
       .print =
           [](const Instruction& i, const Inputs&) {
             return "candidates=" + pyAttr(i, 0) + ", probs=" + pyAttr(i, 1);
           }},
  };
}

}  // namespace tessera::tir
