// A bare simulator with DRAM and builders for hand-written instruction streams, for the tests of
// individual instruction semantics and of malformed streams.
#pragma once

#include <cstring>
#include <vector>

#include "vta/rt/sim.h"

namespace tessera::vta::test {

inline DepFlags deps(bool popPrev, bool popNext, bool pushPrev, bool pushNext) {
  return DepFlags{popPrev, popNext, pushPrev, pushNext};
}

struct MemArgs {
  uint32_t sram = 0, dram = 0, y = 1, x = 1, stride = 1;
  uint32_t yPad0 = 0, yPad1 = 0, xPad0 = 0, xPad1 = 0;
};

inline Instruction memInsn(Opcode op, MemType type, MemArgs a, DepFlags dep = {}) {
  Instruction i;
  i.opcode = op;
  i.memType = type;
  i.dep = dep;
  i.sramBase = a.sram;
  i.dramBase = a.dram;
  i.ySize = a.y;
  i.xSize = a.x;
  i.xStride = a.stride;
  i.yPad0 = a.yPad0;
  i.yPad1 = a.yPad1;
  i.xPad0 = a.xPad0;
  i.xPad1 = a.xPad1;
  return i;
}

struct LoopArgs {
  uint32_t uopBgn = 0, uopEnd = 1, iterOut = 1, iterIn = 1;
  uint32_t dstOut = 0, dstIn = 0, srcOut = 0, srcIn = 0, wgtOut = 0, wgtIn = 0;
};

inline Instruction gemmInsn(LoopArgs a, bool reset = false, DepFlags dep = {}) {
  Instruction i;
  i.opcode = Opcode::kGemm;
  i.dep = dep;
  i.resetReg = reset;
  i.uopBgn = a.uopBgn;
  i.uopEnd = a.uopEnd;
  i.iterOut = a.iterOut;
  i.iterIn = a.iterIn;
  i.dstFactorOut = a.dstOut;
  i.dstFactorIn = a.dstIn;
  i.srcFactorOut = a.srcOut;
  i.srcFactorIn = a.srcIn;
  i.wgtFactorOut = a.wgtOut;
  i.wgtFactorIn = a.wgtIn;
  return i;
}

inline Instruction aluInsn(AluOpcode op, bool useImm, int32_t imm, LoopArgs a, DepFlags dep = {}) {
  Instruction i = gemmInsn(a, false, dep);
  i.opcode = Opcode::kAlu;
  i.wgtFactorOut = i.wgtFactorIn = 0;
  i.aluOpcode = op;
  i.useImm = useImm;
  i.imm = imm;
  return i;
}

inline Instruction finishInsn(DepFlags dep = {}) {
  Instruction i;
  i.opcode = Opcode::kFinish;
  i.dep = dep;
  return i;
}

/// A simulator on its own DRAM.
struct SimRig {
  explicit SimRig(const Config& c = Config::defaults()) : cfg(c), sim(cfg, dram), layout(cfg) {}

  /// Allocates DRAM holding `bytes`; returns the physical address.
  uint64_t put(const void* bytes, size_t n) {
    const uint64_t phys = dram.allocate(n);
    std::memcpy(dram.translate(phys, n), bytes, n);
    return phys;
  }
  template <typename T>
  uint64_t put(const std::vector<T>& v) {
    return put(v.data(), v.size() * sizeof(T));
  }
  template <typename T>
  std::vector<T> get(uint64_t phys, size_t count) {
    std::vector<T> out(count);
    std::memcpy(out.data(), dram.translate(phys, count * sizeof(T)), count * sizeof(T));
    return out;
  }
  /// Micro-ops in DRAM; returns the DRAM entry index (phys / 4) for LOAD UOP.
  uint32_t putUops(const std::vector<Uop>& uops) {
    std::vector<uint32_t> words;
    for (const Uop& u : uops) words.push_back(layout.encodeUop(u));
    return static_cast<uint32_t>(put(words) / 4);
  }
  void run(const std::vector<Instruction>& program) {
    std::vector<EncodedInstruction> words;
    for (const Instruction& i : program) words.push_back(layout.encode(i));
    sim.run(words);
  }

  Config cfg;
  Dram dram;
  Simulator sim;
  IsaLayout layout;
};

}  // namespace tessera::vta::test
