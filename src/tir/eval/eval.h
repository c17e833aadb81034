// Reference evaluator for TensorIR: runs a PrimFunc at any stage (blocks and loops after
// create_prim_func or a schedule, or the flat loop program after lowering) on NDArrays. It is the
// oracle that schedule primitives, lowering passes and compiled code are checked against.
#pragma once

#include <vector>

#include "runtime/ndarray.h"
#include "tir/function.h"

namespace tessera::tir {

/// Runs `func` with one NDArray per tensor parameter (in parameter order; scalar parameters are
/// not supported). Output buffers are written in place. Symbolic shape variables are bound from
/// the arguments' shapes. Throws DiagnosticError on a shape/dtype mismatch or an out-of-bounds
/// access (naming the buffer and index).
void evaluate(const PrimFunc& func, const std::vector<NDArray>& args);

}  // namespace tessera::tir
