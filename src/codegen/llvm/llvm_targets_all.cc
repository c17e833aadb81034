// LLVM's targets for executables that link the shared libLLVM (the libraries' tests): every
// target that libLLVM was built with, so a module can be cross-compiled for any of them.
#include <llvm/Support/TargetSelect.h>

#include "codegen/llvm/llvm_backend.h"

namespace tessera::codegen {

void initializeLinkedTargets() {
  llvm::InitializeAllTargetInfos();
  llvm::InitializeAllTargets();
  llvm::InitializeAllTargetMCs();
  llvm::InitializeAllAsmPrinters();
}

}  // namespace tessera::codegen
