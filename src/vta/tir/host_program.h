// The host side of a VTA program: a PrimFunc lowered with addVtaLowerPasses holds loops, scalar
// arithmetic and calls of VTA's runtime API (DMA, micro-op kernels, dependency tokens,
// synchronize). runOnVta executes it against a command queue — what TVM's generated host code
// does through the runtime's C functions — so the instructions it produces run on the simulator.
#pragma once

#include <vector>

#include "tir/function.h"
#include "vta/rt/runtime.h"

namespace tessera::vta {

/// Runs `func` with its tensor parameters bound, in order, to device buffers of `queue`.
/// DiagnosticError (code "vta_host") for statements a VTA host program cannot hold (host
/// allocations, unknown calls) and for micro-op kernels capturing more than one value.
void runOnVta(const tir::PrimFunc& func, CommandQueue& queue,
              const std::vector<DeviceBuffer>& args);

}  // namespace tessera::vta
