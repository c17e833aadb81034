// LLVM's targets for executables that link LLVM's static libraries (the `tessera` CLI): only
// those listed in TESSERA_STATIC_LLVM_TARGETS at configure time (llvm_static_targets.def, one
// TESSERA_LLVM_TARGET(Name) line each). Naming a target here is what links its code in; the
// others are left out, with their static initialisers and relocations (see codegen.md).
#include "codegen/llvm/llvm_backend.h"

#define TESSERA_LLVM_TARGET(T)                     \
  extern "C" void LLVMInitialize##T##TargetInfo(); \
  extern "C" void LLVMInitialize##T##Target();     \
  extern "C" void LLVMInitialize##T##TargetMC();   \
  extern "C" void LLVMInitialize##T##AsmPrinter();
#include "llvm_static_targets.def"
#undef TESSERA_LLVM_TARGET

namespace tessera::codegen {

void initializeLinkedTargets() {
#define TESSERA_LLVM_TARGET(T)     \
  LLVMInitialize##T##TargetInfo(); \
  LLVMInitialize##T##Target();     \
  LLVMInitialize##T##TargetMC();   \
  LLVMInitialize##T##AsmPrinter();
#include "llvm_static_targets.def"
#undef TESSERA_LLVM_TARGET
}

}  // namespace tessera::codegen
