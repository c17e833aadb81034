// LLVM plumbing shared by compile() and its tests: target machines, the O3 pipeline, object
// emission. Internal to codegen/llvm (it exposes LLVM types).
#pragma once

#include <memory>
#include <string>

#include <llvm/IR/Module.h>
#include <llvm/IR/PassManager.h>
#include <llvm/Target/TargetMachine.h>

#include "codegen/llvm/target.h"

namespace tessera::codegen {

/// Registers LLVM's targets once per process (initializeLinkedTargets).
void initializeLLVM();
/// Registers the targets the executable links: every target of the shared libLLVM
/// (llvm_targets_all.cc), or those chosen for a static link (llvm_targets_static.cc). Each
/// executable gets exactly one of the two through tessera_codegen_llvm's link interface.
void initializeLinkedTargets();
/// A machine for `target` (position-independent code, aggressive optimization). Throws
/// DiagnosticError (code "target") for a triple LLVM does not know.
std::unique_ptr<llvm::TargetMachine> createTargetMachine(const target::Target& target);
/// Runs LLVM's O3 pipeline (new pass manager) with loop vectorization (no SLP vectorizer: it
/// miscompiles unrolled loop nests in LLVM 19, see the .cc) for `machine`, then the x86 store
/// rewrites below.
void optimizeModule(llvm::Module& module, llvm::TargetMachine& machine);
/// Appends InterleaveSpreadStores (interleave_spread_stores.cc): four masked stores of every 4th
/// byte at offsets 0-3 from one address (the int8 kernels' data repacking) become one
/// interleaving shuffle and one 64-byte store.
void addInterleaveSpreadStores(llvm::ModulePassManager& passes);
/// Appends WidenOddStores (widen_odd_stores.cc): a store of a byte vector whose length is no
/// multiple of 16 becomes 64-byte stores and one masked store. Needs AVX-512 BW.
void addWidenOddStores(llvm::ModulePassManager& passes);
/// What a store rewrite that `changed` a function keeps: everything when it did not, the CFG
/// analyses when it did (it adds and removes instructions, never blocks).
inline llvm::PreservedAnalyses storesRewritten(bool changed) {
  if (!changed) return llvm::PreservedAnalyses::all();
  llvm::PreservedAnalyses kept;
  kept.preserveSet<llvm::CFGAnalyses>();
  return kept;
}
/// The module as a relocatable object file.
std::string emitObject(llvm::Module& module, llvm::TargetMachine& machine);

}  // namespace tessera::codegen
