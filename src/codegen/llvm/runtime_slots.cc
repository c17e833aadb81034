// The runtime functions generated code calls, by slot name (abi.h). Taking their addresses here
// also makes every program that loads compiled code link them from the runtime library.
#include "codegen/llvm/abi.h"
#include "runtime/thread_pool.h"

namespace tessera::codegen {

const RuntimeSlot* runtimeSlots(int* count) {
  static const RuntimeSlot slots[] = {
      {"__TesseraBackendParallelLaunch", reinterpret_cast<void*>(&TesseraBackendParallelLaunch)},
      {"__TesseraBackendParallelBarrier", reinterpret_cast<void*>(&TesseraBackendParallelBarrier)},
      {"__TesseraBackendAllocWorkspace", reinterpret_cast<void*>(&TesseraBackendAllocWorkspace)},
      {"__TesseraBackendFreeWorkspace", reinterpret_cast<void*>(&TesseraBackendFreeWorkspace)},
      {"__TesseraAPISetLastError", reinterpret_cast<void*>(&TesseraAPISetLastError)},
      {"__TesseraAPISetLastErrorInt", reinterpret_cast<void*>(&TesseraAPISetLastErrorInt)},
  };
  *count = static_cast<int>(sizeof(slots) / sizeof(slots[0]));
  return slots;
}

}  // namespace tessera::codegen
