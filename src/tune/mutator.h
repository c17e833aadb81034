// Fresh sampling of a design space's knobs and MetaSchedule's mutators over them. Tiles are
// perfect tilings drawn as TVM's sample_perfect_tile draws them (per prime power: a uniform split
// point for two tiles, else a uniform tile for a prime and a stars-and-bars composition for a
// higher power), redrawn while the innermost tile exceeds its limit. Mutators, with TVM's
// probabilities for llvm, renormalised over those that apply to the space:
//   MutateTileSize 0.90: a tile knob; move a divisor d > 1 of one factor to another factor
//   (keeping the innermost within its limit);
//   MutateComputeLocation 0.05: another candidate of a sample_compute_location, the candidates
//   found by replaying the trace up to it with the current decisions;
//   MutateUnroll 0.03: another index of a categorical knob (the unroll step's, in TVM);
//   MutateParallel 0.02: in rule-made spaces, a meta_schedule.parallel limit that makes the
//   postprocessor fuse a different number of leading loops (TVM's); in the default schedule's
//   space, flip a Parallel or Unroll toggle (those schedules fuse their parallel loops
//   themselves, so the choice there is on or off).
#pragma once

#include <random>

#include "tune/space.h"

namespace tessera::tune {

/// Every knob drawn afresh (categorical and compute locations: uniformly; toggles: on; the
/// parallel limit: the rule's).
Decisions sampleDecisions(const DesignSpace& space, std::mt19937_64& rng);

/// A random perfect tiling of `extent` into `n` factors, the innermost at most `maxInnermost`
/// (-1: no limit).
Decision samplePerfectTiling(int64_t extent, size_t n, int maxInnermost, std::mt19937_64& rng);

/// MutateComputeLocation of knob `k`: a different candidate location; nullopt when there is none.
std::optional<Decision> mutateComputeLocation(const DesignSpace& space, const Decisions& decisions,
                                              size_t k, std::mt19937_64& rng);
/// MutateParallel of knob `k` (kParallel): a limit giving another parallel plan; nullopt when
/// every limit up to the rule's gives the same plan.
std::optional<Decision> mutateParallel(const DesignSpace& space, const Decisions& decisions,
                                       size_t k, std::mt19937_64& rng);

/// `decisions` with one mutator applied; nullopt when no mutator can change anything.
std::optional<Decisions> mutate(const DesignSpace& space, const Decisions& decisions,
                                std::mt19937_64& rng);

}  // namespace tessera::tune
