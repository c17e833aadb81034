// Linux lets a process use the AMX tile registers (x86 Advanced Matrix Extensions) only after it
// asks: the tile data enlarges the state the kernel saves on every context switch, so it is
// granted per process (arch_prctl ARCH_REQ_XCOMP_PERM), and a tile instruction without it faults
// (SIGILL). Compiled code does not ask itself; the runtime asks once, when it binds code.
#pragma once

namespace tessera::runtime {

/// Asks for AMX tile data once per process (later calls return the first answer). True when
/// granted; false on other systems, on kernels without AMX support, and when refused.
bool requestAmxTileData();

}  // namespace tessera::runtime
