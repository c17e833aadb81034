// Lowering a fused module to VM code, for what a graph executor cannot run: `if` on run-time
// values and loops written as (tail-)recursive functions. Every global function becomes a VM
// function; each call of a primitive function becomes allocations of its outputs and a call of its
// kernel (shared with lowerGraphToTIR: kernel_set.h); `if` becomes a conditional jump; a call of a
// global function an invoke, or a tail call (the frame reused) in tail position.
#pragma once

#include <vector>

#include "lower/relay/kernel_set.h"
#include "relay/module.h"
#include "runtime/vm/vm_executable.h"
#include "target/target.h"

namespace tessera::lower {

/// A module as VM code: the executable (without compiled kernels yet) and its kernels.
struct LoweredVM {
  runtime::vm::Executable exec;      ///< exec.kernels is set once the kernels are compiled
  std::vector<GraphKernel> kernels;  ///< in order of first use, not yet scheduled
};

/// True when the module needs the VM rather than a graph executor: @main holds an `if`, calls
/// another global function (after inlining only recursive ones remain), has a `?` dim in a
/// parameter or a call's type, or calls an op whose output shape comes from the data.
bool needsVM(const relay::IRModule& optimized);

/// Lowers every global function of an optimized module (FuseOps done). `target` as for
/// lowerGraphToTIR: null for the generic computes. Constants (packed where a kernel takes them
/// packed) go to the executable's constant pool. DiagnosticError (code "vm_compile") for what the
/// VM cannot run yet: non-static shapes, data-dependent output shapes, closures (a function value
/// that is not a global function or a primitive call).
LoweredVM lowerToVM(const relay::IRModule& optimized, const target::Target* target);

}  // namespace tessera::lower
