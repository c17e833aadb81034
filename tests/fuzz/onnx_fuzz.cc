// libFuzzer target: the ONNX importer must turn any bytes into a module or a DiagnosticError,
// never a crash, a hang or a huge allocation. An imported module is also printed, so what the
// importer builds is well-formed enough for the printer. Each input is imported twice: as the
// C++ API does by default, and keeping dynamic input dims as `?` (what the CLI does), which takes
// the converters through their `?` paths (shape values followed into Reshape, among others).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "frontend/onnx/importer.h"
#include "relay/text/printer.h"
#include "support/diagnostic.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  for (const bool dynamicDims : {false, true}) {
    try {
      const tessera::relay::IRModule module = tessera::frontend::onnx::importOnnxBytes(
          std::string_view(reinterpret_cast<const char*>(data), size),
          {.dynamicDims = dynamicDims});
      (void)tessera::relay::printModule(module);
    } catch (const tessera::DiagnosticError&) {
    }
  }
  return 0;
}
