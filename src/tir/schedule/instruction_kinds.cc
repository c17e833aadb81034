// The instruction kind table: every schedule primitive's rows, gathered from the files that define
// them next to the primitive (instruction_kind_util.h lists them). Data rather than static
// registration, so the set is visible here; adding a primitive adds its file's table to the list.
#include "tir/schedule/instruction_kind_util.h"

namespace tessera::tir {

namespace {

std::vector<InstructionKind> allKinds() {
  std::vector<InstructionKind> all;
  for (auto* table :
       {blockLoopQueryKinds, splitKinds, fuseKinds, reorderKinds, loopKindKinds, annotateKinds,
        computeAtKinds, computeInlineKinds, cacheKinds, decomposeReductionKinds, rfactorKinds,
        blockizeKinds, tensorizeKinds, samplingKinds, sampleComputeLocationKinds, traceKinds}) {
    for (InstructionKind& kind : table()) {
      for (const InstructionKind& seen : all)
        TS_CHECK(seen.name != kind.name) << "two instruction kinds named " << kind.name;
      all.push_back(std::move(kind));
    }
  }
  return all;
}

std::string countProblem(const char* what, const Arity& arity, size_t n) {
  if (arity.admits(n)) return "";
  std::string expected = std::to_string(arity.min);
  if (arity.max == Arity::kVariadic)
    expected = "at least " + expected;
  else if (arity.max != arity.min)
    expected += " to " + std::to_string(arity.max);
  return std::to_string(n) + " " + what + ", expected " + expected;
}

}  // namespace

const std::vector<InstructionKind>& instructionKinds() {
  static const std::vector<InstructionKind> kinds = allKinds();
  return kinds;
}

const InstructionKind* findInstructionKind(const std::string& name) {
  for (const InstructionKind& k : instructionKinds()) {
    if (k.name == name) return &k;
  }
  return nullptr;
}

std::string arityProblem(const InstructionKind& kind, const Instruction& inst) {
  std::string problem = countProblem("inputs", kind.inputs, inst.inputs.size());
  if (problem.empty()) problem = countProblem("attributes", kind.attrs, inst.attrs.size());
  return problem.empty() ? "" : kind.name + ": " + problem;
}

}  // namespace tessera::tir
