// Human-readable listings of VTA instruction and micro-op streams, one instruction per line, in
// the spirit of the reference runtime's debug dump (spec §5.8 quotes such a listing).
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "vta/rt/isa.h"

namespace tessera::vta {

/// "NOP-LOAD", "NOP-COMPUTE" or "NOP-STORE": a dependency-only LOAD/STORE named by the module
/// that executes it, as in the spec's worked trace (§5.8).
std::string nopName(const Instruction& insn);

/// One instruction without its index, e.g.
/// "GEMM         push_prev  uop [28, 154) out 8 (acc 98, inp 0, wgt 9) in 7 (acc 14, inp 16, wgt
/// 0)".
std::string disassemble(const Instruction& insn);

/// A listing of `program`, one line per instruction prefixed with its index.
std::string disassemble(std::span<const Instruction> program);

/// Decodes and lists an encoded stream; a word that does not decode is listed as
/// "<invalid: reason>" instead of stopping the listing.
std::string disassemble(const IsaLayout& layout, std::span<const EncodedInstruction> stream);

/// "uop 28: dst 0 src 0 wgt 0" lines for micro-ops numbered from `firstIndex`.
std::string disassembleUops(std::span<const Uop> uops, uint32_t firstIndex = 0);

}  // namespace tessera::vta
