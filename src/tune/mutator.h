// Fresh sampling of a design space's knobs and MetaSchedule's mutators over them. Tiles are
// perfect tilings: each prime factor of the extent goes to a uniformly chosen tile, redrawn while
// the innermost tile exceeds its limit (TVM's sampler draws stars-and-bars compositions per prime
// power; the support is the same). Mutators, with TVM's probabilities for llvm, renormalised over
// those that apply to the space:
//   MutateTileSize 0.90: a tile knob; move a divisor d > 1 of one factor to another factor
//   (keeping the innermost within its limit);
//   MutateUnroll 0.03: another index of a categorical knob (the unroll step's, in TVM);
//   MutateParallel 0.02: flip a Parallel or Unroll toggle (TVM changes the parallel extent; the
//   default schedules fuse their parallel loops themselves, so the choice here is on or off).
#pragma once

#include <random>

#include "tune/space.h"

namespace tessera::tune {

/// Every knob drawn afresh (categorical: uniformly; toggles: on).
Decisions sampleDecisions(const DesignSpace& space, std::mt19937_64& rng);

/// A random perfect tiling of `extent` into `n` factors, the innermost at most `maxInnermost`
/// (-1: no limit).
Decision samplePerfectTiling(int64_t extent, size_t n, int maxInnermost, std::mt19937_64& rng);

/// `decisions` with one mutator applied; nullopt when no mutator can change anything.
std::optional<Decisions> mutate(const DesignSpace& space, const Decisions& decisions,
                                std::mt19937_64& rng);

}  // namespace tessera::tune
