// Bit-exact encoding and decoding of VTA instructions and micro-ops (spec §2.4-§2.9). Each format
// is a list of (name, width) fields placed by the C bit-field rule; values travel as arrays in
// field order, so encode and decode are one packing loop each and cannot disagree.
#include "vta/rt/isa.h"

#include <array>
#include <cstdio>
#include <optional>

#include "support/check.h"
#include "support/diagnostic.h"

namespace tessera::vta {
namespace {

struct FieldSpec {
  std::string_view name;
  int width;
};

// Places fields from bit 0 upward; a field that would straddle a `unitBits` boundary starts at the
// next unit (the gap stays zero). Returns nullopt and fills `problem` when they exceed `totalBits`.
std::optional<std::vector<BitField>> placeFields(std::string_view format,
                                                 const std::vector<FieldSpec>& specs, int unitBits,
                                                 int totalBits, std::string* problem) {
  std::vector<BitField> fields;
  int pos = 0;
  for (const FieldSpec& s : specs) {
    if (s.width <= 0 || s.width > unitBits) {
      *problem = std::string(format) + " field " + std::string(s.name) + " would be " +
                 std::to_string(s.width) + " bits wide";
      return std::nullopt;
    }
    if (pos % unitBits + s.width > unitBits) pos = (pos / unitBits + 1) * unitBits;
    if (pos + s.width > totalBits) {
      *problem = std::string(format) + " instruction does not fit " + std::to_string(totalBits) +
                 " bits: field " + std::string(s.name) + " (" + std::to_string(s.width) +
                 " bits) would end at bit " + std::to_string(pos + s.width);
      return std::nullopt;
    }
    fields.push_back(BitField{s.name, pos, s.width});
    pos += s.width;
  }
  return fields;
}

std::vector<FieldSpec> withHeader(std::vector<FieldSpec> rest) {
  std::vector<FieldSpec> specs = {{"opcode", kOpcodeBits},
                                  {"pop_prev", 1},
                                  {"pop_next", 1},
                                  {"push_prev", 1},
                                  {"push_next", 1}};
  specs.insert(specs.end(), rest.begin(), rest.end());
  return specs;
}

std::vector<FieldSpec> memSpecs() {
  return withHeader({{"memory_type", kMemTypeBits},
                     {"sram_base", kSramAddrBits},
                     {"dram_base", kDramAddrBits},
                     {"y_size", kSizeBits},
                     {"x_size", kSizeBits},
                     {"x_stride", kStrideBits},
                     {"y_pad_0", kPadBits},
                     {"y_pad_1", kPadBits},
                     {"x_pad_0", kPadBits},
                     {"x_pad_1", kPadBits}});
}

std::vector<FieldSpec> computeHead(const Config& cfg) {
  return withHeader({{"reset_reg", 1},
                     {"uop_bgn", cfg.logUopBuffDepth()},
                     {"uop_end", cfg.logUopBuffDepth() + 1},
                     {"iter_out", kLoopIterBits},
                     {"iter_in", kLoopIterBits},
                     {"dst_factor_out", cfg.logAccBuffDepth()},
                     {"dst_factor_in", cfg.logAccBuffDepth()}});
}

std::vector<FieldSpec> gemmSpecs(const Config& cfg) {
  std::vector<FieldSpec> specs = computeHead(cfg);
  specs.insert(specs.end(), {{"src_factor_out", cfg.logInpBuffDepth()},
                             {"src_factor_in", cfg.logInpBuffDepth()},
                             {"wgt_factor_out", cfg.logWgtBuffDepth()},
                             {"wgt_factor_in", cfg.logWgtBuffDepth()}});
  return specs;
}

// The ALU reads its source from the accumulator, so its src factors have accumulator width.
std::vector<FieldSpec> aluSpecs(const Config& cfg) {
  std::vector<FieldSpec> specs = computeHead(cfg);
  specs.insert(specs.end(), {{"src_factor_out", cfg.logAccBuffDepth()},
                             {"src_factor_in", cfg.logAccBuffDepth()},
                             {"alu_opcode", kAluOpcodeBits},
                             {"use_imm", 1},
                             {"imm", kAluImmBits}});
  return specs;
}

std::vector<FieldSpec> uopSpecs(const Config& cfg) {
  return {{"dst_idx", cfg.logAccBuffDepth()},
          {"src_idx", cfg.logUopSrcDepth()},
          {"wgt_idx", cfg.logWgtBuffDepth()}};
}

std::string hex(uint64_t value) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(value));
  return buf;
}

uint64_t getBits(const EncodedInstruction& e, const BitField& f) {
  const uint64_t word = f.offset < 64 ? e.word0 : e.word1;
  return (word >> (f.offset % 64)) & f.maxValue();
}

void setBits(EncodedInstruction& e, const BitField& f, uint64_t value) {
  uint64_t& word = f.offset < 64 ? e.word0 : e.word1;
  word |= (value & f.maxValue()) << (f.offset % 64);
}

// Packs values given in field order, rejecting any value wider than its field.
EncodedInstruction pack(const std::vector<BitField>& fields, const std::vector<uint64_t>& values,
                        std::string_view context) {
  TS_CHECK(fields.size() == values.size()) << "field/value count mismatch";
  EncodedInstruction e;
  for (size_t i = 0; i < fields.size(); ++i) {
    if (values[i] > fields[i].maxValue()) {
      throwDiagnostic("vta_isa",
                      "field " + std::string(fields[i].name) + " value " +
                          std::to_string(values[i]) + " does not fit its " +
                          std::to_string(fields[i].width) + " bits (maximum " +
                          std::to_string(fields[i].maxValue()) + ")",
                      {}, std::string(context));
    }
    setBits(e, fields[i], values[i]);
  }
  return e;
}

std::vector<uint64_t> unpack(const std::vector<BitField>& fields, const EncodedInstruction& e,
                             size_t index) {
  std::vector<uint64_t> values;
  values.reserve(fields.size());
  EncodedInstruction used;
  for (const BitField& f : fields) {
    values.push_back(getBits(e, f));
    setBits(used, f, f.maxValue());
  }
  // Gap and trailing bits are zero in every stream the runtime writes; anything else is corrupt.
  if ((e.word0 & ~used.word0) != 0 || (e.word1 & ~used.word1) != 0) {
    throwDiagnostic("vta_decode",
                    "reserved bits are set (word0 " + hex(e.word0 & ~used.word0) + ", word1 " +
                        hex(e.word1 & ~used.word1) + ")",
                    {}, "instruction " + std::to_string(index));
  }
  return values;
}

std::vector<uint64_t> header(const Instruction& insn) {
  return {static_cast<uint64_t>(insn.opcode), insn.dep.popPrev, insn.dep.popNext, insn.dep.pushPrev,
          insn.dep.pushNext};
}

void readHeader(Instruction& insn, const std::vector<uint64_t>& v) {
  insn.opcode = static_cast<Opcode>(v[0]);
  insn.dep = DepFlags{v[1] != 0, v[2] != 0, v[3] != 0, v[4] != 0};
}

uint64_t immBits(int32_t imm, std::string_view context) {
  if (imm < -32768 || imm > 32767) {
    throwDiagnostic("vta_isa",
                    "field imm value " + std::to_string(imm) +
                        " does not fit the signed 16-bit immediate [-32768, 32767]",
                    {}, std::string(context));
  }
  return static_cast<uint16_t>(imm);
}

}  // namespace

std::string_view opcodeName(Opcode op) {
  switch (op) {
    case Opcode::kLoad:
      return "LOAD";
    case Opcode::kStore:
      return "STORE";
    case Opcode::kGemm:
      return "GEMM";
    case Opcode::kFinish:
      return "FINISH";
    case Opcode::kAlu:
      return "ALU";
  }
  return "?";
}

std::string_view memTypeName(MemType type) {
  switch (type) {
    case MemType::kUop:
      return "UOP";
    case MemType::kWgt:
      return "WGT";
    case MemType::kInp:
      return "INP";
    case MemType::kAcc:
      return "ACC";
    case MemType::kOut:
      return "OUT";
    case MemType::kAcc8Bit:
      return "ACC_8BIT";
  }
  return "?";
}

const char* stageName(Stage stage) {
  switch (stage) {
    case Stage::kLoad:
      return "load";
    case Stage::kCompute:
      return "compute";
    case Stage::kStore:
      return "store";
    case Stage::kNone:
      break;
  }
  return "?";
}

std::string_view aluOpcodeName(AluOpcode op) {
  switch (op) {
    case AluOpcode::kMin:
      return "MIN";
    case AluOpcode::kMax:
      return "MAX";
    case AluOpcode::kAdd:
      return "ADD";
    case AluOpcode::kShr:
      return "SHR";
    case AluOpcode::kMul:
      return "MUL";
  }
  return "?";
}

int64_t sramElemBytes(const Config& cfg, MemType type) {
  switch (type) {
    case MemType::kUop:
      return Config::kUopElemBytes;
    case MemType::kWgt:
      return cfg.wgtElemBytes();
    case MemType::kInp:
      return cfg.inpElemBytes();
    case MemType::kAcc:
    case MemType::kAcc8Bit:
      return cfg.accElemBytes();
    case MemType::kOut:
      return cfg.outElemBytes();
  }
  return 0;
}

int64_t dramElemBytes(const Config& cfg, MemType type) {
  if (type == MemType::kAcc8Bit) return int64_t{cfg.batch()} * cfg.blockOut();
  return sramElemBytes(cfg, type);
}

int64_t sramDepth(const Config& cfg, MemType type) {
  switch (type) {
    case MemType::kUop:
      return cfg.uopBuffDepth();
    case MemType::kWgt:
      return cfg.wgtBuffDepth();
    case MemType::kInp:
      return cfg.inpBuffDepth();
    case MemType::kAcc:
    case MemType::kAcc8Bit:
    case MemType::kOut:
      return cfg.accBuffDepth();
  }
  return 0;
}

Instruction Instruction::nop(Stage stage, DepFlags dep) {
  Instruction insn;
  insn.dep = dep;
  switch (stage) {
    case Stage::kLoad:
      insn.opcode = Opcode::kLoad;
      insn.memType = MemType::kInp;
      break;
    case Stage::kCompute:
      insn.opcode = Opcode::kLoad;
      insn.memType = MemType::kUop;
      break;
    case Stage::kStore:
      insn.opcode = Opcode::kStore;
      insn.memType = MemType::kUop;
      break;
    case Stage::kNone:
      TS_CHECK(false) << "no-op needs a pipeline stage";
  }
  return insn;
}

Stage Instruction::module() const {
  switch (opcode) {
    case Opcode::kStore:
      return Stage::kStore;
    case Opcode::kLoad:
      return memType == MemType::kInp || memType == MemType::kWgt ? Stage::kLoad : Stage::kCompute;
    case Opcode::kGemm:
    case Opcode::kFinish:
    case Opcode::kAlu:
      return Stage::kCompute;
  }
  return Stage::kNone;
}

std::string instructionLayoutProblem(const Config& cfg) {
  std::string problem;
  if (!placeFields("LOAD/STORE", memSpecs(), 64, 128, &problem)) return problem;
  if (!placeFields("GEMM", gemmSpecs(cfg), 64, 128, &problem)) return problem;
  if (!placeFields("ALU", aluSpecs(cfg), 64, 128, &problem)) return problem;
  if (!placeFields("micro-op", uopSpecs(cfg), 32, 32, &problem)) return problem;
  return {};
}

IsaLayout::IsaLayout(const Config& cfg) {
  std::string problem;
  auto place = [&](std::string_view format, const std::vector<FieldSpec>& specs, int unit,
                   int total) {
    auto fields = placeFields(format, specs, unit, total, &problem);
    if (!fields) throwDiagnostic("vta_config", problem, {}, "vta config " + cfg.bitstream());
    return *fields;
  };
  mem_ = place("LOAD/STORE", memSpecs(), 64, 128);
  gemm_ = place("GEMM", gemmSpecs(cfg), 64, 128);
  alu_ = place("ALU", aluSpecs(cfg), 64, 128);
  finish_ = place("FINISH", withHeader({}), 64, 128);
  uop_ = place("micro-op", uopSpecs(cfg), 32, 32);
}

EncodedInstruction IsaLayout::encode(const Instruction& insn, std::string_view context) const {
  std::vector<uint64_t> v = header(insn);
  switch (insn.opcode) {
    case Opcode::kLoad:
    case Opcode::kStore:
      v.insert(v.end(),
               {static_cast<uint64_t>(insn.memType), insn.sramBase, insn.dramBase, insn.ySize,
                insn.xSize, insn.xStride, insn.yPad0, insn.yPad1, insn.xPad0, insn.xPad1});
      return pack(mem_, v, context);
    case Opcode::kGemm:
      v.insert(v.end(), {insn.resetReg, insn.uopBgn, insn.uopEnd, insn.iterOut, insn.iterIn,
                         insn.dstFactorOut, insn.dstFactorIn, insn.srcFactorOut, insn.srcFactorIn,
                         insn.wgtFactorOut, insn.wgtFactorIn});
      return pack(gemm_, v, context);
    case Opcode::kAlu:
      v.insert(v.end(),
               {insn.resetReg, insn.uopBgn, insn.uopEnd, insn.iterOut, insn.iterIn,
                insn.dstFactorOut, insn.dstFactorIn, insn.srcFactorOut, insn.srcFactorIn,
                static_cast<uint64_t>(insn.aluOpcode), insn.useImm, immBits(insn.imm, context)});
      return pack(alu_, v, context);
    case Opcode::kFinish:
      return pack(finish_, v, context);
  }
  throwDiagnostic("vta_isa", "unknown opcode " + std::to_string(static_cast<int>(insn.opcode)), {},
                  std::string(context));
}

Instruction IsaLayout::decode(const EncodedInstruction& word, size_t index) const {
  const uint64_t opcode = word.word0 & 7;
  const std::string where = "instruction " + std::to_string(index);
  Instruction insn;
  switch (opcode) {
    case static_cast<uint64_t>(Opcode::kLoad):
    case static_cast<uint64_t>(Opcode::kStore): {
      std::vector<uint64_t> v = unpack(mem_, word, index);
      readHeader(insn, v);
      if (v[5] > static_cast<uint64_t>(MemType::kAcc8Bit)) {
        throwDiagnostic("vta_decode", "field memory_type has unknown value " + std::to_string(v[5]),
                        {}, where + " (" + std::string(opcodeName(insn.opcode)) + ")");
      }
      insn.memType = static_cast<MemType>(v[5]);
      insn.sramBase = static_cast<uint32_t>(v[6]);
      insn.dramBase = static_cast<uint32_t>(v[7]);
      insn.ySize = static_cast<uint32_t>(v[8]);
      insn.xSize = static_cast<uint32_t>(v[9]);
      insn.xStride = static_cast<uint32_t>(v[10]);
      insn.yPad0 = static_cast<uint32_t>(v[11]);
      insn.yPad1 = static_cast<uint32_t>(v[12]);
      insn.xPad0 = static_cast<uint32_t>(v[13]);
      insn.xPad1 = static_cast<uint32_t>(v[14]);
      return insn;
    }
    case static_cast<uint64_t>(Opcode::kGemm):
    case static_cast<uint64_t>(Opcode::kAlu): {
      const bool isAlu = opcode == static_cast<uint64_t>(Opcode::kAlu);
      std::vector<uint64_t> v = unpack(isAlu ? alu_ : gemm_, word, index);
      readHeader(insn, v);
      insn.resetReg = v[5] != 0;
      insn.uopBgn = static_cast<uint32_t>(v[6]);
      insn.uopEnd = static_cast<uint32_t>(v[7]);
      insn.iterOut = static_cast<uint32_t>(v[8]);
      insn.iterIn = static_cast<uint32_t>(v[9]);
      insn.dstFactorOut = static_cast<uint32_t>(v[10]);
      insn.dstFactorIn = static_cast<uint32_t>(v[11]);
      insn.srcFactorOut = static_cast<uint32_t>(v[12]);
      insn.srcFactorIn = static_cast<uint32_t>(v[13]);
      if (!isAlu) {
        insn.wgtFactorOut = static_cast<uint32_t>(v[14]);
        insn.wgtFactorIn = static_cast<uint32_t>(v[15]);
        return insn;
      }
      if (v[14] > static_cast<uint64_t>(AluOpcode::kMul)) {
        throwDiagnostic("vta_decode", "field alu_opcode has unknown value " + std::to_string(v[14]),
                        {}, where + " (ALU)");
      }
      insn.aluOpcode = static_cast<AluOpcode>(v[14]);
      insn.useImm = v[15] != 0;
      insn.imm = static_cast<int16_t>(static_cast<uint16_t>(v[16]));  // sign-extend
      return insn;
    }
    case static_cast<uint64_t>(Opcode::kFinish): {
      readHeader(insn, unpack(finish_, word, index));
      return insn;
    }
    default:
      break;
  }
  throwDiagnostic("vta_decode",
                  "field opcode has unknown value " + std::to_string(opcode) +
                      " (expected LOAD 0, STORE 1, GEMM 2, FINISH 3 or ALU 4)",
                  {}, where);
}

uint32_t IsaLayout::encodeUop(const Uop& uop, std::string_view context) const {
  const std::array<uint64_t, 3> values = {uop.dstIdx, uop.srcIdx, uop.wgtIdx};
  uint32_t word = 0;
  for (size_t i = 0; i < uop_.size(); ++i) {
    if (values[i] > uop_[i].maxValue()) {
      throwDiagnostic("vta_isa",
                      "micro-op field " + std::string(uop_[i].name) + " value " +
                          std::to_string(values[i]) + " does not fit its " +
                          std::to_string(uop_[i].width) + " bits",
                      {}, std::string(context));
    }
    word |= static_cast<uint32_t>(values[i] << uop_[i].offset);
  }
  return word;
}

Uop IsaLayout::decodeUop(uint32_t word) const {
  auto field = [&](size_t i) {
    return static_cast<uint32_t>((uint64_t{word} >> uop_[i].offset) & uop_[i].maxValue());
  };
  return Uop{field(0), field(1), field(2)};
}

}  // namespace tessera::vta
