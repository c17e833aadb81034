// MutateComputeLocation (TVM's, probability 0.05): the candidates of a sample_compute_location
// depend on the decisions before it (a tile of one iteration is not a candidate), so they are
// found by replaying the candidate's trace up to that instruction; another one is drawn
// uniformly.
#include "tune/mutator.h"

namespace tessera::tune {

std::optional<Decision> mutateComputeLocation(const DesignSpace& space, const Decisions& decisions,
                                              size_t k, std::mt19937_64& rng) {
  const Knob& knob = space.knobs.at(k);
  if (knob.kind != Knob::Kind::kComputeLocation || !space.func) return std::nullopt;
  const tir::Trace trace = space.materialize(decisions);
  std::optional<std::vector<int64_t>> candidates = computeLocationsAt(space.func, trace, knob.inst);
  if (!candidates) return std::nullopt;
  std::vector<int64_t> others;
  for (int64_t c : *candidates)
    if (c != decisions[k][0]) others.push_back(c);
  if (others.empty()) return std::nullopt;
  return Decision{others[std::uniform_int_distribution<size_t>(0, others.size() - 1)(rng)]};
}

}  // namespace tessera::tune
