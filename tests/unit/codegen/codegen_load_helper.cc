// Test helper: loads a library written by CompiledModule::exportLibrary in a fresh process and
// runs one function on .npy files, writing every argument back (outputs are written in place).
// Usage: codegen_load_helper LIB FUNCTION ARG0.npy [ARG1.npy ...]; exits 1 with the error.
#include <cstdio>
#include <exception>
#include <vector>

#include "codegen/llvm/build.h"
#include "runtime/npy.h"

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s LIB FUNCTION ARG.npy...\n", argv[0]);
    return 2;
  }
  try {
    tessera::codegen::CompiledModule module = tessera::codegen::loadLibrary(argv[1]);
    std::vector<tessera::NDArray> args;
    for (int i = 3; i < argc; ++i) args.push_back(tessera::readNpy(argv[i]));
    module.call(argv[2], args);
    for (int i = 3; i < argc; ++i) tessera::writeNpy(argv[i], args[i - 3]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
