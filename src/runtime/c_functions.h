// The open registry of C functions that generated code may call. Compiled code does not link
// against the runtime: it reaches each runtime function through a global pointer slot of its own
// (`__TesseraBackendParallelLaunch`, `__VTALoadBuffer2D`, ...), and the loader fills every slot the
// code names from this registry. Each runtime library registers its functions here — the CPU
// runtime its parallel-for, workspace and error functions, the VTA runtime its device API — so a
// new target's runtime library plugs in without touching the loader or the code generator.
#pragma once

#include <string>
#include <vector>

namespace tessera::runtime {

/// Registers `address` as the function behind the slot `slot` (the symbol generated code
/// defines, e.g. "__TesseraBackendParallelLaunch"). Registering a slot again replaces it.
void registerCFunction(const std::string& slot, void* address);
/// The function registered for `slot`, or nullptr. The CPU runtime's functions are always there.
void* findCFunction(const std::string& slot);
/// Every registered slot, sorted.
std::vector<std::string> cFunctionSlots();

/// The slots of the CPU runtime (runtime/thread_pool.h), which every compiled module defines.
const std::vector<std::string>& cpuRuntimeSlots();

}  // namespace tessera::runtime
