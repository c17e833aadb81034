// Formatting of instructions and micro-ops for listings and debug dumps.
#include "vta/rt/disasm.h"

#include <cstdio>
#include <sstream>

#include "support/diagnostic.h"

namespace tessera::vta {
namespace {

std::string depString(const DepFlags& dep) {
  std::string s;
  auto add = [&](bool on, const char* name) {
    if (!on) return;
    if (!s.empty()) s += "+";
    s += name;
  };
  add(dep.popPrev, "pop_prev");
  add(dep.popNext, "pop_next");
  add(dep.pushPrev, "push_prev");
  add(dep.pushNext, "push_next");
  return s.empty() ? "-" : s;
}

std::string padRight(std::string s, size_t width) {
  if (s.size() < width) s.append(width - s.size(), ' ');
  return s;
}

// "8 (acc 98, inp 0, wgt 9)": a hardware loop's trip count and per-iteration index steps.
std::string loopString(const Instruction& insn, bool outer) {
  std::ostringstream os;
  const bool gemm = insn.opcode == Opcode::kGemm;
  os << (outer ? insn.iterOut : insn.iterIn) << " (" << (gemm ? "acc " : "dst ")
     << (outer ? insn.dstFactorOut : insn.dstFactorIn) << ", " << (gemm ? "inp " : "src ")
     << (outer ? insn.srcFactorOut : insn.srcFactorIn);
  if (gemm) os << ", wgt " << (outer ? insn.wgtFactorOut : insn.wgtFactorIn);
  os << ")";
  return os.str();
}

}  // namespace

std::string nopName(const Instruction& insn) {
  switch (insn.module()) {
    case Stage::kLoad:
      return "NOP-LOAD";
    case Stage::kCompute:
      return "NOP-COMPUTE";
    case Stage::kStore:
      return "NOP-STORE";
    case Stage::kNone:
      break;
  }
  return "NOP";
}

std::string disassemble(const Instruction& insn) {
  std::string name(opcodeName(insn.opcode));
  std::ostringstream body;
  switch (insn.opcode) {
    case Opcode::kLoad:
    case Opcode::kStore:
      if (insn.isNop()) {
        name = nopName(insn);
        break;
      }
      name += " " + std::string(memTypeName(insn.memType));
      body << "sram " << insn.sramBase << ", dram " << insn.dramBase << ", y " << insn.ySize
           << ", x " << insn.xSize << ", stride " << insn.xStride;
      if (insn.yPad0 || insn.yPad1 || insn.xPad0 || insn.xPad1) {
        body << ", pad y [" << insn.yPad0 << ", " << insn.yPad1 << "] x [" << insn.xPad0 << ", "
             << insn.xPad1 << "]";
      }
      break;
    case Opcode::kGemm:
    case Opcode::kAlu:
      if (insn.opcode == Opcode::kGemm && insn.resetReg) name += " reset";
      if (insn.opcode == Opcode::kAlu) {
        name += " " + std::string(aluOpcodeName(insn.aluOpcode));
        if (insn.useImm) name += " imm " + std::to_string(insn.imm);
        if (insn.resetReg) name += " reset";
      }
      body << "uop [" << insn.uopBgn << ", " << insn.uopEnd << ") out " << loopString(insn, true)
           << " in " << loopString(insn, false);
      break;
    case Opcode::kFinish:
      break;
  }
  std::string line = padRight(name, 18) + padRight(depString(insn.dep), 20) + body.str();
  while (!line.empty() && line.back() == ' ') line.pop_back();
  return line;
}

std::string disassemble(std::span<const Instruction> program) {
  std::string out;
  for (size_t i = 0; i < program.size(); ++i) {
    char prefix[24];
    std::snprintf(prefix, sizeof prefix, "%6zu  ", i);
    out += prefix + disassemble(program[i]) + "\n";
  }
  return out;
}

std::string disassemble(const IsaLayout& layout, std::span<const EncodedInstruction> stream) {
  std::string out;
  for (size_t i = 0; i < stream.size(); ++i) {
    char prefix[24];
    std::snprintf(prefix, sizeof prefix, "%6zu  ", i);
    try {
      out += prefix + disassemble(layout.decode(stream[i], i)) + "\n";
    } catch (const DiagnosticError& e) {
      out += std::string(prefix) + "<invalid: " + e.diagnostic().message + ">\n";
    }
  }
  return out;
}

std::string disassembleUops(std::span<const Uop> uops, uint32_t firstIndex) {
  std::string out;
  for (size_t i = 0; i < uops.size(); ++i) {
    out += "        uop " + std::to_string(firstIndex + i) + ": dst " +
           std::to_string(uops[i].dstIdx) + " src " + std::to_string(uops[i].srcIdx) + " wgt " +
           std::to_string(uops[i].wgtIdx) + "\n";
  }
  return out;
}

}  // namespace tessera::vta
