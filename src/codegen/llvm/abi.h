// The C calling convention of functions compiled by Tessera's LLVM backend (spec §4.3 adapted):
//
//   int32_t f(void** args, int32_t numArgs);
//
// `args[i]` is a `DLTensor*` for every parameter of the PrimFunc, in parameter order. A tensor
// parameter takes the tensor itself; a scalar parameter takes a rank-0 DLTensor of exactly the
// parameter's dtype whose data holds the value. The prologue checks, in this order: the argument
// count, non-null arguments, ndim, dtype, device (CPU), byte_offset == 0, every shape dimension
// (a constant must match; a symbolic variable is bound by its first whole-dimension occurrence and
// every later occurrence must be equal), compactness when strides are given, and a non-null data
// pointer for non-empty tensors. On failure the function sets a message readable with
// TesseraGetLastError() (e.g. "add.B.shape[0]: expected 16 (got 8)") and returns -1; on success it
// returns 0. Workspace allocation failure also returns -1.
//
// Generated code reaches the runtime (runtime/thread_pool.h) only through the function-pointer
// slots below, which the loader fills after loading the code (ORC JIT or dlopen). A shared
// library therefore has no undefined Tessera symbols and loads into any process that links the
// Tessera runtime, without exporting the executable's symbols.
#pragma once

#include <cstdint>

namespace tessera::codegen {

/// The signature of every exported function.
using PackedFunction = int32_t (*)(void** args, int32_t numArgs);

/// A runtime function slot: a global `void*` named `symbol` in generated code that must hold
/// `address` before any function runs.
struct RuntimeSlot {
  const char* symbol;
  void* address;
};

/// Every slot generated code may use, with the runtime function each one must point to.
const RuntimeSlot* runtimeSlots(int* count);

/// The global string naming the module's entry function when it has exactly one function.
inline constexpr const char* kEntryNameSymbol = "__tessera_main__";

}  // namespace tessera::codegen
