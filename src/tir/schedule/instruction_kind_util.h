// What the instruction-kind rows of the schedule primitives share: reading an instruction's
// inputs and attributes by position (an internal invariant: record() and Trace::fromJson check
// each kind's arity first), printing them as Python arguments, and rows of the common shapes.
// Each primitive's file defines its rows next to the primitive; instruction_kinds.cc lists the
// files' tables.
#pragma once

#include <string>
#include <vector>

#include "support/check.h"
#include "tir/schedule/instruction.h"
#include "tir/schedule/trace_format.h"

namespace tessera::tir {

// The kind tables, one per primitive file, in the order instructionKinds() lists them.
std::vector<InstructionKind> blockLoopQueryKinds();         // get_block_loop.cc
std::vector<InstructionKind> splitKinds();                  // loop_split.cc
std::vector<InstructionKind> fuseKinds();                   // loop_fuse.cc
std::vector<InstructionKind> reorderKinds();                // loop_reorder.cc
std::vector<InstructionKind> loopKindKinds();               // loop_kind.cc
std::vector<InstructionKind> annotateKinds();               // annotate.cc
std::vector<InstructionKind> computeAtKinds();              // primitive/compute_at.cc
std::vector<InstructionKind> computeInlineKinds();          // primitive/compute_inline.cc
std::vector<InstructionKind> cacheKinds();                  // primitive/cache_read_write.cc
std::vector<InstructionKind> decomposeReductionKinds();     // decompose_reduction.cc
std::vector<InstructionKind> rfactorKinds();                // primitive/rfactor.cc
std::vector<InstructionKind> blockizeKinds();               // primitive/blockize.cc
std::vector<InstructionKind> tensorizeKinds();              // primitive/tensorize.cc
std::vector<InstructionKind> samplingKinds();               // sampling.cc
std::vector<InstructionKind> sampleComputeLocationKinds();  // primitive/sample_compute_location.cc
std::vector<InstructionKind> traceKinds();                  // trace.cc (EnterPostproc)

namespace kinds {

using Inputs = std::vector<std::string>;

template <typename RV>
inline RV rvAt(const Instruction& inst, size_t i) {
  TS_CHECK(i < inst.inputs.size() && std::holds_alternative<RV>(inst.inputs[i]))
      << inst.kind << ": input " << i << " has the wrong kind";
  return std::get<RV>(inst.inputs[i]);
}

inline const AttrValue& attrAt(const Instruction& inst, size_t i) {
  TS_CHECK(i < inst.attrs.size()) << inst.kind << ": missing attribute " << i;
  return inst.attrs[i];
}
inline int64_t intAttr(const Instruction& inst, size_t i) {
  return attrAt(inst, i).asInt();
}
inline bool boolAttr(const Instruction& inst, size_t i) {
  return attrAt(inst, i).asInt() != 0;
}
inline const std::string& strAttr(const Instruction& inst, size_t i) {
  return attrAt(inst, i).asString();
}

inline std::vector<BlockRV> blocksFrom(const Instruction& inst, size_t first) {
  std::vector<BlockRV> out;
  for (size_t i = first; i < inst.inputs.size(); ++i) out.push_back(rvAt<BlockRV>(inst, i));
  return out;
}
inline std::vector<LoopRV> loopsFrom(const Instruction& inst) {
  std::vector<LoopRV> out;
  for (size_t i = 0; i < inst.inputs.size(); ++i) out.push_back(rvAt<LoopRV>(inst, i));
  return out;
}
template <typename RV>
inline std::vector<InstOutput> outs(const std::vector<RV>& rvs) {
  return {rvs.begin(), rvs.end()};
}
inline bool isLoop(const Instruction& inst, size_t i) {
  return std::holds_alternative<LoopRV>(inst.inputs[i]);
}

inline std::string pyBool(const Instruction& inst, size_t i) {
  return boolAttr(inst, i) ? "True" : "False";
}
inline std::string pyAttr(const Instruction& inst, size_t i) {
  return pythonValue(attrAt(inst, i));
}
inline std::string joined(const Inputs& in, size_t first = 0) {
  std::string out;
  for (size_t i = first; i < in.size(); ++i) out += (i > first ? ", " : "") + in[i];
  return out;
}

// Rows for primitives with one RV input, no attributes and no outputs.
inline InstructionKind loopKindRow(const char* name, const char* py,
                                   void (Schedule::*fn)(const LoopRV&)) {
  return {.name = name,
          .pythonName = py,
          .inputs = {1, 1},
          .apply =
              [fn](Schedule& s, const Instruction& i) {
                (s.*fn)(rvAt<LoopRV>(i, 0));
                return std::vector<InstOutput>{};
              },
          .print = [](const Instruction&, const Inputs& in) { return "loop=" + in[0]; }};
}

inline InstructionKind blockOnlyRow(const char* name, const char* py,
                                    void (Schedule::*fn)(const BlockRV&)) {
  return {.name = name,
          .pythonName = py,
          .inputs = {1, 1},
          .apply =
              [fn](Schedule& s, const Instruction& i) {
                (s.*fn)(rvAt<BlockRV>(i, 0));
                return std::vector<InstOutput>{};
              },
          .print = [](const Instruction&, const Inputs& in) { return "block=" + in[0]; }};
}

}  // namespace kinds
}  // namespace tessera::tir
