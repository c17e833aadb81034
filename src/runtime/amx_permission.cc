// The AMX permission request (runtime/amx_permission.h).
#include "runtime/amx_permission.h"

#if defined(__linux__) && defined(__x86_64__)
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace tessera::runtime {

bool requestAmxTileData() {
#if defined(__linux__) && defined(__x86_64__)
  // From the kernel's uapi headers (asm/prctl.h, the XSAVE feature numbers), which glibc does not
  // expose.
  constexpr long kArchReqXcompPerm = 0x1023;
  constexpr long kXfeatureXtiledata = 18;
  static const bool granted = syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtiledata) == 0;
  return granted;
#else
  return false;
#endif
}

}  // namespace tessera::runtime
