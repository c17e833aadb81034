// libFuzzer target: the TVMScript parser (TensorIR and Relax) must turn any byte sequence into a
// module or a DiagnosticError — never a crash, a hang, or an internal error — and what it reads
// must print, parse and print again to the same text.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "relax/printer.h"
#include "relax/script_parser.h"
#include "support/diagnostic.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const std::string printed = tessera::relax::toScript(tessera::relax::parseScript(text, "fuzz"));
    const std::string again =
        tessera::relax::toScript(tessera::relax::parseScript(printed, "fuzz-roundtrip"));
    if (again != printed) std::abort();
  } catch (const tessera::DiagnosticError&) {
    // Expected for malformed input.
  }
  return 0;
}
