// Per-store features of a scheduled candidate for the cost model: a subset of TVM's
// PerStoreFeature (specs/tir_relax.md §6.8), computed on the scheduled function (blocks kept;
// each block's iteration variables followed to the loops that bind them). One row per
// BufferStore, every value through slog(x) = log2(|x| + 1):
//   arithmetic (6): float add/sub, float mul, float div/mod, float min/max/compare, integer
//     arithmetic, calls — each counted in the stored value and multiplied by the loop product;
//   loop kinds (9): for vectorized, unrolled and parallel loops around the store: how many, the
//     product of their extents, the innermost one's extent;
//   buffers (5 x 8): the stored and loaded buffers, the 5 that touch the most bytes, each: is
//     read, is written, unique bytes touched (extents of the loops its indices depend on),
//     bytes accessed (all loops), reuse (accessed / unique), stride of the innermost loop in it,
//     unique bytes touched by the innermost loop and by the innermost two (the working sets a
//     tile size changes; TVM's reuse distances and cache lines play this part);
//   loop nest (6): product of all loop extents, number of loops, auto_unroll_max_step in effect,
//     the extents of the three innermost loops.
// TVM's group 3 (arithmetic-intensity curve), group 4 (allocations), cache-line counts and reuse
// distances are not computed.
#pragma once

#include <vector>

#include "tir/function.h"

namespace tessera::tune {

inline constexpr int kNumFeatures = 6 + 9 + 5 * 8 + 6;

/// One row of kNumFeatures values per BufferStore of `scheduled`, in program order.
std::vector<std::vector<float>> perStoreFeatures(const tir::PrimFunc& scheduled);

}  // namespace tessera::tune
