// Linux lets a process use the AMX tile registers (x86 Advanced Matrix Extensions) only after it
// asks: the tile data enlarges the state the kernel saves on every context switch, so it is
// granted per process (arch_prctl ARCH_REQ_XCOMP_PERM), and a tile instruction without it faults
// (SIGILL). Compiled code does not ask itself; the runtime asks once, when it binds code. The
// answer counts: without it the host target has no AMX (its int8 kernels come from the VNNI or
// AVX2 rows), and code that uses tiles refuses to run (runtime/module.h).
#pragma once

#include <string>

namespace tessera::runtime {

/// The environment variable that forces the refusal: set to anything but "" or "0", AMX is
/// treated as refused without asking the kernel (tests, and users who want the VNNI kernels).
inline constexpr const char* kAmxDenyEnv = "TESSERA_AMX_DENY";

/// Asks for AMX tile data once per process (later calls return the first answer). True when
/// granted; false when TESSERA_AMX_DENY is set (checked on every call), on other systems, on
/// kernels or processors without AMX, and when refused.
bool requestAmxTileData();

/// Why AMX tiles may not be used ("" when requestAmxTileData() grants them), for diagnostics.
std::string amxRefusal();

}  // namespace tessera::runtime
