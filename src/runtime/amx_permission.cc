// The AMX permission request (runtime/amx_permission.h).
#include "runtime/amx_permission.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>

#if defined(__linux__) && defined(__x86_64__)
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace tessera::runtime {
namespace {

bool deniedByEnvironment() {
  const char* v = std::getenv(kAmxDenyEnv);
  return v != nullptr && *v != '\0' && std::strcmp(v, "0") != 0;
}

// The kernel's answer, asked once: 0 when granted, else the errno of the refusal (-1 where the
// request does not exist).
int kernelAnswer() {
#if defined(__linux__) && defined(__x86_64__)
  // From the kernel's uapi headers (asm/prctl.h, the XSAVE feature numbers), which glibc does not
  // expose.
  constexpr long kArchReqXcompPerm = 0x1023;
  constexpr long kXfeatureXtiledata = 18;
  static const int answer =
      syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtiledata) == 0 ? 0 : errno;
  return answer;
#else
  return -1;
#endif
}

}  // namespace

bool requestAmxTileData() {
  return !deniedByEnvironment() && kernelAnswer() == 0;
}

std::string amxRefusal() {
  if (deniedByEnvironment()) return std::string(kAmxDenyEnv) + " is set";
  const int answer = kernelAnswer();
  if (answer == 0) return "";
  if (answer < 0) return "AMX permission can only be requested on Linux x86-64";
  return std::string("the kernel refused arch_prctl(ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA): ") +
         std::strerror(answer);
}

}  // namespace tessera::runtime
