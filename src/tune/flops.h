// EstimateTIRFlops (TVM's tir.analysis.estimate_tir_flops), for the task table's GFLOPS column:
// every store's arithmetic (add, sub, mul, div, mod, floordiv, floormod, min, max; no
// comparisons, no index arithmetic) times the product of the enclosing loop extents (1 for a
// symbolic extent), at least 1. The 128^3 matmul gives 2 * 128^3.
#pragma once

#include <cstdint>

#include "tir/function.h"

namespace tessera::tune {

int64_t estimateFlops(const tir::PrimFunc& func);

/// Executions of stores summed over the function (the same walk without the per-store arithmetic):
/// how much work the reference evaluator would do.
int64_t estimateStoreExecutions(const tir::PrimFunc& func);

}  // namespace tessera::tune
