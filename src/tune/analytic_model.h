// An analytic cost model: a candidate's cycles estimated from its lowered loop program on a
// simple out-of-order core (vector width and register count from the target; two FMA and two
// load ports, one store port, four-wide issue, four-cycle FMA latency). Each innermost loop's
// straight-line body is costed per iteration by its busiest resource, after the rewrites LLVM
// makes on it: loads invariant in the loop are hoisted, an element loaded and stored at an
// invariant address stays in a register (an accumulator, bounded by the FMA latency of its
// chain), repeated loads and stores of one address in a body are one, and live registers past the
// register file spill. A load that misses L1 on every run of its loop (a buffer larger than half
// of L1 whose addresses change with the enclosing loop) is bounded by the bandwidth from L2.
// Outer loops add their per-iteration overhead; a parallel loop divides by the cores. Strided
// vector accesses cost one load per lane.
//
// Used where a learned model has too little data (TVM's XGBoost model scores randomly below 100
// measured samples): it ranks register tiles and vectorization, which decide most of a CPU
// kernel's speed, before any measurement. Caches beyond that L2 bound are not modelled; the
// learned model takes over once trained (docs/design/tuning.md).
#pragma once

#include <memory>

#include "target/target.h"
#include "tune/cost_model.h"

namespace tessera::tune {

struct MachineModel {
  int vectorBytes = 32;
  int vectorRegisters = 16;
  int cores = 1;
  double fmaPerCycle = 2;
  double loadsPerCycle = 2;
  double storesPerCycle = 1;
  double issuePerCycle = 4;
  double fmaLatency = 4;
  /// L1 data cache (the smallest of the x86 cores seen: Zen 3/4; Zen 5 and recent Intel have 48).
  int l1Bytes = 32 * 1024;
  /// What a core sustains from L2 into L1 while it computes: well below the 64-byte line per
  /// cycle the port moves. Measured: a matmul tile streaming 256 bytes from L2 per 16 AVX-512
  /// FMAs (8 cycles at the peak) ran at 80-84% of it on Zen 5, about 25 bytes a cycle.
  double l2BytesPerCycle = 24;
  /// Micro-ops of a loop body beyond which it no longer issues from the op cache (issue halves).
  int opCacheOps = 512;
  /// A call of a math intrinsic (exp, log, tanh, ...) in vector micro-ops.
  double intrinsicOps = 12;

  static MachineModel of(const target::Target& target);
};

/// Estimated cycles of one call of `lowered` (a PrimFunc after tir::transform::lower).
double estimateCycles(const tir::PrimFunc& lowered, const MachineModel& machine);

/// The cost model over estimateCycles: scores are the fastest candidate's estimated cycles over
/// each candidate's (1 for the fastest of a batch; 0 when a candidate does not lower).
std::unique_ptr<CostModel> makeAnalyticModel(const target::Target& target);

}  // namespace tessera::tune
