// The VTA instruction set (spec §2): opcodes, decoded instruction and micro-op values, and their
// bit-exact 128-bit / 32-bit encodings computed from the configuration by explicit functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "vta/rt/config.h"

namespace tessera::vta {

/// Bits 0..2 of every instruction.
enum class Opcode : uint8_t { kLoad = 0, kStore = 1, kGemm = 2, kFinish = 3, kAlu = 4 };

/// The memory_type field of LOAD/STORE (3 bits).
enum class MemType : uint8_t { kUop = 0, kWgt = 1, kInp = 2, kAcc = 3, kOut = 4, kAcc8Bit = 5 };

/// The alu_opcode field of ALU instructions (3 bits). MUL exists in the functional simulator only.
enum class AluOpcode : uint8_t { kMin = 0, kMax = 1, kAdd = 2, kShr = 3, kMul = 4 };

/// Pipeline stages (and dependency queue ids) in the order load -> compute -> store.
enum class Stage : uint8_t { kNone = 0, kLoad = 1, kCompute = 2, kStore = 3 };

/// "LOAD", "STORE", "GEMM", "FINISH", "ALU".
std::string_view opcodeName(Opcode op);
/// "UOP", "WGT", "INP", "ACC", "OUT", "ACC_8BIT".
std::string_view memTypeName(MemType type);
/// "MIN", "MAX", "ADD", "SHR", "MUL".
std::string_view aluOpcodeName(AluOpcode op);
/// The module a stage names: "load", "compute", "store" ("?" for kNone).
const char* stageName(Stage stage);

/// The dependency flags of spec §2.2 (bits 3..6 of every instruction).
struct DepFlags {
  bool popPrev = false;   ///< take a token from the previous stage before executing
  bool popNext = false;   ///< take a token from the next stage before executing
  bool pushPrev = false;  ///< give a token to the previous stage after executing
  bool pushNext = false;  ///< give a token to the next stage after executing
  bool any() const { return popPrev || popNext || pushPrev || pushNext; }
  bool operator==(const DepFlags&) const = default;
};

/// One decoded instruction. The fields of formats other than `opcode`'s are zero; FINISH uses
/// only `opcode` and `dep`. Sizes, addresses and strides are in entries of the buffer concerned.
struct Instruction {
  Opcode opcode = Opcode::kLoad;
  DepFlags dep;
  // LOAD / STORE (spec §2.4)
  MemType memType = MemType::kUop;
  uint32_t sramBase = 0;
  uint32_t dramBase = 0;  ///< DRAM address in entries of memType (byte address / entry bytes)
  uint32_t ySize = 0;
  uint32_t xSize = 0;  ///< 0 makes the instruction a dependency-only no-op
  uint32_t xStride = 0;
  uint32_t yPad0 = 0;
  uint32_t yPad1 = 0;
  uint32_t xPad0 = 0;
  uint32_t xPad1 = 0;
  // GEMM / ALU (spec §2.5, §2.6)
  bool resetReg = false;
  uint32_t uopBgn = 0;
  uint32_t uopEnd = 0;
  uint32_t iterOut = 0;
  uint32_t iterIn = 0;
  uint32_t dstFactorOut = 0;
  uint32_t dstFactorIn = 0;
  uint32_t srcFactorOut = 0;
  uint32_t srcFactorIn = 0;
  uint32_t wgtFactorOut = 0;              ///< GEMM only
  uint32_t wgtFactorIn = 0;               ///< GEMM only
  AluOpcode aluOpcode = AluOpcode::kMin;  ///< ALU only
  bool useImm = false;                    ///< ALU only
  int32_t imm = 0;                        ///< ALU only: signed 16-bit immediate

  /// The dependency-only instruction (spec §2.10) of `stage` carrying `dep`.
  static Instruction nop(Stage stage, DepFlags dep);
  /// True for a LOAD/STORE with x_size == 0.
  bool isNop() const { return (opcode == Opcode::kLoad || opcode == Opcode::kStore) && xSize == 0; }
  /// The module that executes this instruction (spec §3.1 routing).
  Stage module() const;

  bool operator==(const Instruction&) const = default;
};

/// A 128-bit instruction as two little-endian 64-bit words (word0 = bits 0..63).
struct EncodedInstruction {
  uint64_t word0 = 0;
  uint64_t word1 = 0;
  bool operator==(const EncodedInstruction&) const = default;
};

/// A decoded micro-op (spec §2.8): entry indices into ACC, INP-or-ACC, and WGT.
struct Uop {
  uint32_t dstIdx = 0;
  uint32_t srcIdx = 0;
  uint32_t wgtIdx = 0;
  bool operator==(const Uop&) const = default;
};

/// Position of one field: `offset` counts from bit 0 of the 128-bit instruction (or of the 32-bit
/// micro-op).
struct BitField {
  std::string_view name;  ///< the spec's field name, e.g. "x_pad_0"
  int offset = 0;
  int width = 0;
  uint64_t maxValue() const { return width == 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1; }
};

/// Bytes of one SRAM entry of `type` (UOP 4, WGT 256, INP 16, ACC and ACC_8BIT 64, OUT 16 by
/// default).
int64_t sramElemBytes(const Config& cfg, MemType type);
/// Bytes of one DRAM entry of `type`, the unit of dram_base: as sramElemBytes except ACC_8BIT,
/// whose DRAM entries hold one int8 per accumulator lane (16 bytes by default).
int64_t dramElemBytes(const Config& cfg, MemType type);
/// Depth in entries of the SRAM a LOAD of `type` writes (OUT: the accumulator depth).
int64_t sramDepth(const Config& cfg, MemType type);

/// Empty when every instruction format of `cfg` fits two 64-bit words; otherwise a sentence
/// naming the format and field that overflows (used by Config::validate).
std::string instructionLayoutProblem(const Config& cfg);

/// The bit positions of every field for one configuration, and the encoder/decoder built on them.
/// Fields are packed from bit 0 upward in spec order; a field never straddles the 64-bit boundary
/// (the C bit-field rule the hardware relies on), leaving zero gap bits.
class IsaLayout {
 public:
  /// Throws DiagnosticError (vta_config) when a format does not fit 128 bits.
  explicit IsaLayout(const Config& cfg);

  /// Encodes `insn`; a field value that does not fit its width is a DiagnosticError (vta_isa)
  /// naming the field; `context` (e.g. "instruction 12 (GEMM)") prefixes it.
  EncodedInstruction encode(const Instruction& insn, std::string_view context = {}) const;
  /// Decodes one instruction; an unknown opcode, memory type or ALU opcode, or a set reserved
  /// bit, is a DiagnosticError (vta_decode) naming instruction `index` and the field.
  Instruction decode(const EncodedInstruction& word, size_t index) const;

  /// Encodes a micro-op; an index wider than its field is a DiagnosticError (vta_isa).
  uint32_t encodeUop(const Uop& uop, std::string_view context = {}) const;
  Uop decodeUop(uint32_t word) const;

  /// The fields of each format in bit order (for tests and documentation).
  const std::vector<BitField>& memFields() const { return mem_; }
  const std::vector<BitField>& gemmFields() const { return gemm_; }
  const std::vector<BitField>& aluFields() const { return alu_; }
  const std::vector<BitField>& uopFields() const { return uop_; }

 private:
  std::vector<BitField> mem_;
  std::vector<BitField> gemm_;
  std::vector<BitField> alu_;
  std::vector<BitField> finish_;
  std::vector<BitField> uop_;
};

/// Fixed widths of the configuration-independent fields (hw_spec_const.h).
inline constexpr int kOpcodeBits = 3;
inline constexpr int kMemTypeBits = 3;
inline constexpr int kSramAddrBits = 16;
inline constexpr int kDramAddrBits = 32;
inline constexpr int kSizeBits = 16;
inline constexpr int kStrideBits = 16;
inline constexpr int kPadBits = 4;
inline constexpr int kLoopIterBits = 14;
inline constexpr int kAluOpcodeBits = 3;
inline constexpr int kAluImmBits = 16;

}  // namespace tessera::vta
