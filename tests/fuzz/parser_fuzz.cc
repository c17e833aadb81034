// libFuzzer target: the Relay text parser (with type inference) must turn any byte sequence into a
// module or a DiagnosticError — never a crash, a hang, or an internal error.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "relay/text/parser.h"
#include "relay/text/printer.h"
#include "support/diagnostic.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    tessera::relay::IRModule module = tessera::relay::parseModule(text, "fuzz");
    // What parses must print and parse again.
    (void)tessera::relay::parseModule(tessera::relay::printRoundTrip(module), "fuzz-roundtrip");
  } catch (const tessera::DiagnosticError&) {
    // Expected for malformed input.
  }
  return 0;
}
