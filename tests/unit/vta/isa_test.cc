// ISA encoding (spec §2): field positions against the spec's tables, round trips of every field at
// its limits for the default and non-default layouts, and decode errors for malformed words.
#include "vta/rt/isa.h"

#include <functional>

#include <gtest/gtest.h>

#include "support/diagnostic.h"
#include "vta_test_util.h"

namespace tessera::vta {
namespace {

using Setter = std::function<void(Instruction&, uint64_t)>;
struct FieldCase {
  std::string name;
  Setter set;
};

// Setters for every field of each format, in the layout's field order.
std::vector<FieldCase> headerCases() {
  return {{"opcode", nullptr},
          {"pop_prev", [](Instruction& i, uint64_t v) { i.dep.popPrev = v; }},
          {"pop_next", [](Instruction& i, uint64_t v) { i.dep.popNext = v; }},
          {"push_prev", [](Instruction& i, uint64_t v) { i.dep.pushPrev = v; }},
          {"push_next", [](Instruction& i, uint64_t v) { i.dep.pushNext = v; }}};
}

std::vector<FieldCase> memCases() {
  auto c = headerCases();
  auto u32 = [](uint32_t Instruction::*m) {
    return [m](Instruction& i, uint64_t v) { i.*m = static_cast<uint32_t>(v); };
  };
  c.push_back({"memory_type", [](Instruction& i, uint64_t v) { i.memType = MemType(v); }});
  c.push_back({"sram_base", u32(&Instruction::sramBase)});
  c.push_back({"dram_base", u32(&Instruction::dramBase)});
  c.push_back({"y_size", u32(&Instruction::ySize)});
  c.push_back({"x_size", u32(&Instruction::xSize)});
  c.push_back({"x_stride", u32(&Instruction::xStride)});
  c.push_back({"y_pad_0", u32(&Instruction::yPad0)});
  c.push_back({"y_pad_1", u32(&Instruction::yPad1)});
  c.push_back({"x_pad_0", u32(&Instruction::xPad0)});
  c.push_back({"x_pad_1", u32(&Instruction::xPad1)});
  return c;
}

std::vector<FieldCase> computeCases(bool alu) {
  auto c = headerCases();
  auto u32 = [](uint32_t Instruction::*m) {
    return [m](Instruction& i, uint64_t v) { i.*m = static_cast<uint32_t>(v); };
  };
  c.push_back({"reset_reg", [](Instruction& i, uint64_t v) { i.resetReg = v; }});
  c.push_back({"uop_bgn", u32(&Instruction::uopBgn)});
  c.push_back({"uop_end", u32(&Instruction::uopEnd)});
  c.push_back({"iter_out", u32(&Instruction::iterOut)});
  c.push_back({"iter_in", u32(&Instruction::iterIn)});
  c.push_back({"dst_factor_out", u32(&Instruction::dstFactorOut)});
  c.push_back({"dst_factor_in", u32(&Instruction::dstFactorIn)});
  c.push_back({"src_factor_out", u32(&Instruction::srcFactorOut)});
  c.push_back({"src_factor_in", u32(&Instruction::srcFactorIn)});
  if (!alu) {
    c.push_back({"wgt_factor_out", u32(&Instruction::wgtFactorOut)});
    c.push_back({"wgt_factor_in", u32(&Instruction::wgtFactorIn)});
    return c;
  }
  c.push_back({"alu_opcode", [](Instruction& i, uint64_t v) { i.aluOpcode = AluOpcode(v); }});
  c.push_back({"use_imm", [](Instruction& i, uint64_t v) { i.useImm = v; }});
  // imm is signed: "max" here means all 16 bits set, i.e. -1; limits are tested separately.
  c.push_back({"imm", [](Instruction& i, uint64_t v) {
                 i.imm = static_cast<int16_t>(static_cast<uint16_t>(v));
               }});
  return c;
}

// Round-trips each field at 0, 1 and its maximum alone, then all fields at their maxima at once,
// and checks that one past the maximum is rejected naming the field.
void checkFormat(const IsaLayout& layout, Opcode opcode, const std::vector<BitField>& fields,
                 const std::vector<FieldCase>& cases, uint64_t legalMax(const BitField&)) {
  ASSERT_EQ(fields.size(), cases.size());
  Instruction all;
  all.opcode = opcode;
  for (size_t f = 0; f < fields.size(); ++f) {
    ASSERT_EQ(fields[f].name, cases[f].name);
    if (!cases[f].set) continue;  // opcode is fixed per format
    const uint64_t max = legalMax(fields[f]);
    for (uint64_t value : {uint64_t{0}, uint64_t{1}, max}) {
      Instruction insn;
      insn.opcode = opcode;
      cases[f].set(insn, value);
      const EncodedInstruction word = layout.encode(insn);
      EXPECT_EQ(layout.decode(word, 0), insn) << fields[f].name << " = " << value;
      EXPECT_EQ(layout.encode(layout.decode(word, 0)), word) << fields[f].name;
    }
    cases[f].set(all, max);
    if (max == fields[f].maxValue() && fields[f].name != "imm" && fields[f].width > 1 &&
        fields[f].width < 32) {
      Instruction over;
      over.opcode = opcode;
      cases[f].set(over, max + 1);
      try {
        layout.encode(over, "test");
        ADD_FAILURE() << "no error for " << fields[f].name << " = " << max + 1;
      } catch (const DiagnosticError& e) {
        EXPECT_EQ(e.diagnostic().code, "vta_isa");
        EXPECT_NE(e.diagnostic().message.find("field " + std::string(fields[f].name)),
                  std::string::npos)
            << e.diagnostic().message;
      }
    }
  }
  const EncodedInstruction word = layout.encode(all);
  EXPECT_EQ(layout.decode(word, 0), all);
}

uint64_t fullRange(const BitField& f) {
  return f.maxValue();
}
// memory_type and alu_opcode decode only their defined values.
uint64_t definedRange(const BitField& f) {
  if (f.name == "memory_type") return uint64_t(MemType::kAcc8Bit);
  if (f.name == "alu_opcode") return uint64_t(AluOpcode::kMul);
  return f.maxValue();
}

void checkAllFormats(const Config& cfg) {
  const IsaLayout layout(cfg);
  checkFormat(layout, Opcode::kLoad, layout.memFields(), memCases(), definedRange);
  checkFormat(layout, Opcode::kStore, layout.memFields(), memCases(), definedRange);
  checkFormat(layout, Opcode::kGemm, layout.gemmFields(), computeCases(false), fullRange);
  checkFormat(layout, Opcode::kAlu, layout.aluFields(), computeCases(true), definedRange);
  // Micro-ops: each index at its limit.
  for (size_t f = 0; f < 3; ++f) {
    Uop uop;
    uint32_t Uop::*members[] = {&Uop::dstIdx, &Uop::srcIdx, &Uop::wgtIdx};
    uop.*members[f] = static_cast<uint32_t>(layout.uopFields()[f].maxValue());
    EXPECT_EQ(layout.decodeUop(layout.encodeUop(uop)), uop);
    uop.*members[f] += 1;
    EXPECT_THROW(layout.encodeUop(uop), DiagnosticError);
  }
  Instruction finish;
  finish.opcode = Opcode::kFinish;
  finish.dep = DepFlags{true, true, true, true};
  EXPECT_EQ(layout.decode(layout.encode(finish), 0), finish);
}

std::vector<std::pair<std::string, std::pair<int, int>>> positions(
    const std::vector<BitField>& fields) {
  std::vector<std::pair<std::string, std::pair<int, int>>> out;
  for (const BitField& f : fields) out.push_back({std::string(f.name), {f.offset, f.width}});
  return out;
}

TEST(VtaIsa, DefaultPositionsMatchTheSpecTables) {
  const IsaLayout layout(Config::defaults());
  using P = std::vector<std::pair<std::string, std::pair<int, int>>>;
  EXPECT_EQ(positions(layout.memFields()), (P{{"opcode", {0, 3}},
                                              {"pop_prev", {3, 1}},
                                              {"pop_next", {4, 1}},
                                              {"push_prev", {5, 1}},
                                              {"push_next", {6, 1}},
                                              {"memory_type", {7, 3}},
                                              {"sram_base", {10, 16}},
                                              {"dram_base", {26, 32}},
                                              {"y_size", {64, 16}},
                                              {"x_size", {80, 16}},
                                              {"x_stride", {96, 16}},
                                              {"y_pad_0", {112, 4}},
                                              {"y_pad_1", {116, 4}},
                                              {"x_pad_0", {120, 4}},
                                              {"x_pad_1", {124, 4}}}));
  EXPECT_EQ(positions(layout.gemmFields()), (P{{"opcode", {0, 3}},
                                               {"pop_prev", {3, 1}},
                                               {"pop_next", {4, 1}},
                                               {"push_prev", {5, 1}},
                                               {"push_next", {6, 1}},
                                               {"reset_reg", {7, 1}},
                                               {"uop_bgn", {8, 13}},
                                               {"uop_end", {21, 14}},
                                               {"iter_out", {35, 14}},
                                               {"iter_in", {49, 14}},
                                               {"dst_factor_out", {64, 11}},
                                               {"dst_factor_in", {75, 11}},
                                               {"src_factor_out", {86, 11}},
                                               {"src_factor_in", {97, 11}},
                                               {"wgt_factor_out", {108, 10}},
                                               {"wgt_factor_in", {118, 10}}}));
  EXPECT_EQ(positions(layout.aluFields()), (P{{"opcode", {0, 3}},
                                              {"pop_prev", {3, 1}},
                                              {"pop_next", {4, 1}},
                                              {"push_prev", {5, 1}},
                                              {"push_next", {6, 1}},
                                              {"reset_reg", {7, 1}},
                                              {"uop_bgn", {8, 13}},
                                              {"uop_end", {21, 14}},
                                              {"iter_out", {35, 14}},
                                              {"iter_in", {49, 14}},
                                              {"dst_factor_out", {64, 11}},
                                              {"dst_factor_in", {75, 11}},
                                              {"src_factor_out", {86, 11}},
                                              {"src_factor_in", {97, 11}},
                                              {"alu_opcode", {108, 3}},
                                              {"use_imm", {111, 1}},
                                              {"imm", {112, 16}}}));
  EXPECT_EQ(positions(layout.uopFields()),
            (P{{"dst_idx", {0, 11}}, {"src_idx", {11, 11}}, {"wgt_idx", {22, 10}}}));
}

TEST(VtaIsa, EveryFieldRoundTripsAtItsLimitsDefault) {
  checkAllFormats(Config::defaults());
}

TEST(VtaIsa, EveryFieldRoundTripsAtItsLimitsNonDefault) {
  for (const Config& cfg :
       {test::configBatch2(), test::configBlock32(), test::configBlock8(), test::configInt4()}) {
    SCOPED_TRACE(cfg.bitstream());
    checkAllFormats(cfg);
  }
}

TEST(VtaIsa, NonDefaultPositionsFollowTheBitFieldRule) {
  // BLOCK 32: INP and ACC depth 2^10, WGT 2^8; word 1 of GEMM holds 2·10 + 2·10 + 2·8 = 56 bits.
  const IsaLayout layout(test::configBlock32());
  const auto& g = layout.gemmFields();
  EXPECT_EQ(g[10].name, "dst_factor_out");
  EXPECT_EQ(g[10].offset, 64);
  EXPECT_EQ(g[10].width, 10);
  EXPECT_EQ(g[15].name, "wgt_factor_in");
  EXPECT_EQ(g[15].offset, 112);
  EXPECT_EQ(g[15].width, 8);
  const auto& u = layout.uopFields();
  EXPECT_EQ(u[1].offset, 10);
  EXPECT_EQ(u[2].offset, 20);
  EXPECT_EQ(u[2].width, 8);
}

TEST(VtaIsa, SeedInstruction11EncodesAsTheSpecSays) {
  // Spec §5.8/§10: GEMM, uops [28, 154), outer 8 (acc 98, inp 0, wgt 9), inner 7 (acc 14, inp 16,
  // wgt 0), push_prev.
  Instruction insn;
  insn.opcode = Opcode::kGemm;
  insn.dep.pushPrev = true;
  insn.uopBgn = 28;
  insn.uopEnd = 154;
  insn.iterOut = 8;
  insn.iterIn = 7;
  insn.dstFactorOut = 98;
  insn.dstFactorIn = 14;
  insn.srcFactorOut = 0;
  insn.srcFactorIn = 16;
  insn.wgtFactorOut = 9;
  insn.wgtFactorIn = 0;
  const IsaLayout layout(Config::defaults());
  const EncodedInstruction word = layout.encode(insn);
  const uint64_t word0 =
      2 | (1ull << 5) | (28ull << 8) | (154ull << 21) | (8ull << 35) | (7ull << 49);
  const uint64_t word1 = 98 | (14ull << 11) | (0ull << 22) | (16ull << 33) | (9ull << 44);
  EXPECT_EQ(word.word0, word0);
  EXPECT_EQ(word.word1, word1);
  EXPECT_EQ(layout.decode(word, 11), insn);
}

TEST(VtaIsa, ImmediateIsSignedSixteenBits) {
  const IsaLayout layout(Config::defaults());
  Instruction alu;
  alu.opcode = Opcode::kAlu;
  alu.aluOpcode = AluOpcode::kShr;
  alu.useImm = true;
  for (int32_t imm : {-32768, -8, -1, 0, 1, 127, 32767}) {
    alu.imm = imm;
    const EncodedInstruction word = layout.encode(alu);
    EXPECT_EQ(word.word1 >> 48, static_cast<uint16_t>(imm));
    EXPECT_EQ(layout.decode(word, 0).imm, imm);
  }
  alu.imm = 32768;
  EXPECT_THROW(layout.encode(alu), DiagnosticError);
  alu.imm = -32769;
  EXPECT_THROW(layout.encode(alu), DiagnosticError);
}

void expectDecodeError(const EncodedInstruction& word, const std::string& fragment) {
  const IsaLayout layout(Config::defaults());
  try {
    layout.decode(word, 42);
    FAIL() << "expected decode error: " << fragment;
  } catch (const DiagnosticError& e) {
    EXPECT_EQ(e.diagnostic().code, "vta_decode");
    EXPECT_NE(e.diagnostic().context.find("instruction 42"), std::string::npos);
    EXPECT_NE(e.diagnostic().message.find(fragment), std::string::npos) << e.diagnostic().message;
  }
}

TEST(VtaIsa, MalformedWordsAreDiagnosed) {
  for (uint64_t op : {5, 6, 7}) expectDecodeError({op, 0}, "field opcode has unknown value");
  expectDecodeError({0 | (6ull << 7), 0}, "field memory_type has unknown value 6");
  expectDecodeError({4, 5ull << 44}, "field alu_opcode has unknown value 5");
  expectDecodeError({1ull << 58, 0}, "reserved bits are set");        // gap after dram_base
  expectDecodeError({2 | (1ull << 63), 0}, "reserved bits are set");  // gap after iter_in
  expectDecodeError({3, 1}, "reserved bits are set");                 // FINISH uses 7 bits only
}

TEST(VtaIsa, RoutingFollowsTheMemoryType) {
  Instruction load;
  load.opcode = Opcode::kLoad;
  for (auto [type, stage] : {std::pair{MemType::kInp, Stage::kLoad},
                             {MemType::kWgt, Stage::kLoad},
                             {MemType::kUop, Stage::kCompute},
                             {MemType::kAcc, Stage::kCompute},
                             {MemType::kAcc8Bit, Stage::kCompute}}) {
    load.memType = type;
    EXPECT_EQ(load.module(), stage) << memTypeName(type);
  }
  EXPECT_EQ(Instruction::nop(Stage::kStore, {}).module(), Stage::kStore);
  EXPECT_EQ(Instruction::nop(Stage::kCompute, {}).memType, MemType::kUop);
  EXPECT_EQ(Instruction::nop(Stage::kLoad, {}).memType, MemType::kInp);
}

}  // namespace
}  // namespace tessera::vta
