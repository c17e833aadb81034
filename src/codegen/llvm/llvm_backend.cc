// Target machines, the optimization pipeline and object emission.
#include "codegen/llvm/llvm_backend.h"

#include <mutex>

#include <llvm/IR/LegacyPassManager.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/raw_ostream.h>

#include "support/diagnostic.h"

namespace tessera::codegen {

void initializeLLVM() {
  static std::once_flag once;
  std::call_once(once, initializeLinkedTargets);
}

std::unique_ptr<llvm::TargetMachine> createTargetMachine(const target::Target& target) {
  initializeLLVM();
  std::string error;
  const llvm::Target* llvmTarget = llvm::TargetRegistry::lookupTarget(target.triple, error);
  if (llvmTarget == nullptr) {
    throwDiagnostic("target", "LLVM cannot generate code for '" + target.triple + "': " + error);
  }
  llvm::TargetOptions options;
  // Contract a * b + c into fused multiply-adds (as TVM's LLVM targets do): twice the arithmetic
  // throughput in every reduction, and one rounding instead of two. Results differ from the
  // reference interpreter's by rounding only, which the differential tests allow for floats.
  options.AllowFPOpFusion = llvm::FPOpFusion::Fast;
  std::unique_ptr<llvm::TargetMachine> machine(llvmTarget->createTargetMachine(
      target.triple, target.cpu, target.features, options, llvm::Reloc::PIC_, std::nullopt,
      llvm::CodeGenOptLevel::Aggressive));
  if (!machine) throwDiagnostic("target", "cannot create a target machine for " + target.str());
  return machine;
}

void optimizeModule(llvm::Module& module, llvm::TargetMachine& machine) {
  llvm::PipelineTuningOptions tuning;
  tuning.LoopVectorization = true;
  // No SLP vectorizer: LLVM 19's miscompiles fully unrolled plain loop nests. On softmax along
  // axis 2 of (2, 2, 6, 3) it gathered the per-column sums of the last nest into vectors with
  // repeated lanes and then shuffled in the wrong lanes (and poison), so outputs were divided by
  // a neighbour's sum (`opt -passes=slp-vectorizer` alone reproduces it on the IR we emit; the
  // IR before it is right). Our schedules vectorize in TIR (Ramp/Broadcast) and the loop
  // vectorizer still runs, so SLP only vectorized unrolled scalar code (e.g. Winograd's small
  // transforms, which may lose some speed). Re-enable it only with an LLVM that passes
  // CodegenLowered.MiddleAxisReductionsOfUnrolledLoops and the PlainCompiledMatchesInterpreter
  // cases.
  tuning.SLPVectorization = false;
  tuning.LoopUnrolling = true;
  tuning.LoopInterleaving = true;
  llvm::PassBuilder builder(&machine, tuning);
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  builder.registerModuleAnalyses(mam);
  builder.registerCGSCCAnalyses(cgam);
  builder.registerFunctionAnalyses(fam);
  builder.registerLoopAnalyses(lam);
  builder.crossRegisterProxies(lam, fam, cgam, mam);
  // Store rewrites for x86 after every IR optimization, so that nothing splits what they join.
  const bool x86 = machine.getTargetTriple().getArch() == llvm::Triple::x86_64;
  const bool maskedBytes = x86 && machine.getMCSubtargetInfo()->checkFeatures("+avx512bw");
  builder.registerOptimizerLastEPCallback(
      [x86, maskedBytes](llvm::ModulePassManager& last, llvm::OptimizationLevel) {
        if (x86) addInterleaveSpreadStores(last);
        if (maskedBytes) addWidenOddStores(last);
      });
  llvm::ModulePassManager passes =
      builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
  passes.run(module, mam);
}

std::string emitObject(llvm::Module& module, llvm::TargetMachine& machine) {
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream out(buffer);
  llvm::legacy::PassManager passes;
  if (machine.addPassesToEmitFile(passes, out, nullptr, llvm::CodeGenFileType::ObjectFile)) {
    throwDiagnostic("target", "the target machine cannot emit object files");
  }
  passes.run(module);
  return std::string(buffer.data(), buffer.size());
}

}  // namespace tessera::codegen
