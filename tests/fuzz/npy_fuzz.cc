// libFuzzer target: the .npy reader must reject malformed bytes with a DiagnosticError, never
// crash.
#include <cstddef>
#include <cstdint>
#include <string>

#include "runtime/npy.h"
#include "support/diagnostic.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    tessera::NDArray a =
        tessera::parseNpy(std::string(reinterpret_cast<const char*>(data), size), "fuzz");
    (void)tessera::parseNpy(tessera::serializeNpy(a), "fuzz-roundtrip");
  } catch (const tessera::DiagnosticError&) {
  }
  return 0;
}
