// The binary program container and the simulate/disassemble entry points built on it.
//
// Layout (all integers little-endian):
//   magic "TSVTAPRG" (8 bytes) | u32 version = 1 | u32 n | n bytes of vta_config.json text
//   u64 count | count × (u64 word0, u64 word1) instructions
//   u32 segments | segments × (u64 phys_addr, u64 nbytes, nbytes bytes) | "DONE"
#include "vta/rt/program_file.h"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "support/diagnostic.h"
#include "vta/rt/disasm.h"
#include "vta/rt/dram.h"
#include "vta/rt/sim.h"

namespace tessera::vta {
namespace {

constexpr char kMagic[8] = {'T', 'S', 'V', 'T', 'A', 'P', 'R', 'G'};
constexpr char kEndMarker[4] = {'D', 'O', 'N', 'E'};
constexpr uint32_t kVersion = 1;

void putBytes(std::vector<uint8_t>& out, const void* data, size_t n) {
  const auto* p = static_cast<const uint8_t*>(data);
  out.insert(out.end(), p, p + n);
}

template <typename T>
void putInt(std::vector<uint8_t>& out, T value) {
  for (size_t i = 0; i < sizeof(T); ++i) out.push_back(static_cast<uint8_t>(value >> (8 * i)));
}

// Sequential reader that names the byte offset of whatever is missing or wrong.
class Reader {
 public:
  Reader(std::span<const uint8_t> bytes, const std::string& source)
      : bytes_(bytes), source_(source) {}

  [[noreturn]] void fail(const std::string& message) const {
    throwDiagnostic("vta_program", message + " at byte offset " + std::to_string(pos_), {},
                    source_);
  }
  std::span<const uint8_t> take(uint64_t n, const char* what) {
    if (n > bytes_.size() - pos_) {
      fail(std::string("truncated program file: expected ") + std::to_string(n) + " bytes of " +
           what + ", found " + std::to_string(bytes_.size() - pos_));
    }
    auto s = bytes_.subspan(pos_, static_cast<size_t>(n));
    pos_ += static_cast<size_t>(n);
    return s;
  }
  template <typename T>
  T integer(const char* what) {
    auto s = take(sizeof(T), what);
    T value = 0;
    for (size_t i = 0; i < sizeof(T); ++i) value |= static_cast<T>(T{s[i]} << (8 * i));
    return value;
  }
  size_t remaining() const { return bytes_.size() - pos_; }

 private:
  std::span<const uint8_t> bytes_;
  std::string source_;
  size_t pos_ = 0;
};

// Rebuilds the DRAM of a program; overlapping or misaligned segments are file errors.
void loadSegments(Dram& dram, const std::vector<DramSegment>& segments, const std::string& source) {
  for (const DramSegment& seg : segments) {
    try {
      dram.allocateAt(seg.physAddr, seg.bytes.size());
    } catch (const DiagnosticError& e) {
      throwDiagnostic("vta_program", "bad DRAM segment: " + e.diagnostic().message, {}, source);
    }
    if (!seg.bytes.empty()) {
      std::memcpy(dram.translate(seg.physAddr, seg.bytes.size()), seg.bytes.data(),
                  seg.bytes.size());
    }
  }
}

}  // namespace

std::vector<uint8_t> serializeProgram(const Program& program) {
  std::vector<uint8_t> out;
  putBytes(out, kMagic, sizeof kMagic);
  putInt<uint32_t>(out, kVersion);
  const std::string config = program.config.toJson();
  putInt<uint32_t>(out, static_cast<uint32_t>(config.size()));
  putBytes(out, config.data(), config.size());
  putInt<uint64_t>(out, program.instructions.size());
  for (const EncodedInstruction& insn : program.instructions) {
    putInt<uint64_t>(out, insn.word0);
    putInt<uint64_t>(out, insn.word1);
  }
  putInt<uint32_t>(out, static_cast<uint32_t>(program.dram.size()));
  for (const DramSegment& seg : program.dram) {
    putInt<uint64_t>(out, seg.physAddr);
    putInt<uint64_t>(out, seg.bytes.size());
    putBytes(out, seg.bytes.data(), seg.bytes.size());
  }
  putBytes(out, kEndMarker, sizeof kEndMarker);
  return out;
}

Program parseProgram(std::span<const uint8_t> bytes, const std::string& source) {
  Reader in(bytes, source);
  auto magic = in.take(sizeof kMagic, "magic");
  if (std::memcmp(magic.data(), kMagic, sizeof kMagic) != 0) {
    in.fail("not a VTA program file (expected magic \"TSVTAPRG\")");
  }
  const uint32_t version = in.integer<uint32_t>("version");
  if (version != kVersion) {
    in.fail("unsupported program file version " + std::to_string(version) + " (expected 1)");
  }
  Program program;
  const uint32_t configBytes = in.integer<uint32_t>("configuration length");
  auto configText = in.take(configBytes, "configuration JSON");
  program.config = parseConfig(
      std::string_view(reinterpret_cast<const char*>(configText.data()), configText.size()),
      source + " (configuration)");
  const uint64_t count = in.integer<uint64_t>("instruction count");
  if (count > in.remaining() / 16) {  // checked before allocating for a corrupt count
    in.fail("truncated program file: expected " + std::to_string(count) +
            " instructions (16 bytes each), found " + std::to_string(in.remaining()) + " bytes");
  }
  program.instructions.resize(static_cast<size_t>(count));
  for (EncodedInstruction& insn : program.instructions) {
    insn.word0 = in.integer<uint64_t>("instruction words");
    insn.word1 = in.integer<uint64_t>("instruction words");
  }
  const uint32_t segments = in.integer<uint32_t>("DRAM segment count");
  for (uint32_t i = 0; i < segments; ++i) {
    DramSegment seg;
    seg.physAddr = in.integer<uint64_t>("DRAM segment address");
    const uint64_t n = in.integer<uint64_t>("DRAM segment size");
    auto data = in.take(n, "DRAM segment contents");
    seg.bytes.assign(data.begin(), data.end());
    program.dram.push_back(std::move(seg));
  }
  auto end = in.take(sizeof kEndMarker, "end marker");
  if (std::memcmp(end.data(), kEndMarker, sizeof kEndMarker) != 0) {
    in.fail("missing end marker \"DONE\"");
  }
  if (in.remaining() != 0) in.fail("unexpected trailing bytes after the end marker");
  Dram check;  // reject overlapping segments at load time rather than at simulation time
  loadSegments(check, program.dram, source);
  return program;
}

void saveProgram(const Program& program, const std::string& path) {
  const std::vector<uint8_t> bytes = serializeProgram(program);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) throwDiagnostic("vta_program", "cannot write program file", {}, path);
}

Program loadProgram(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throwDiagnostic("vta_program", "cannot open program file", {}, path);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
  return parseProgram(bytes, path);
}

SimulationResult simulateProgram(const Program& program) {
  Dram dram;
  loadSegments(dram, program.dram, "program");
  Simulator sim(program.config, dram);
  sim.run(program.instructions);
  SimulationResult result;
  result.stats = sim.stats();
  for (const DramRange& r : dram.allocations()) {
    const uint8_t* p = dram.translate(r.physAddr, r.nbytes);
    result.dram.push_back(DramSegment{r.physAddr, std::vector<uint8_t>(p, p + r.nbytes)});
  }
  return result;
}

Stats simulate(const Program& program) {
  return simulateProgram(program).stats;
}

std::vector<Instruction> decodeInstructions(const Program& program) {
  const IsaLayout layout(program.config);
  std::vector<Instruction> insns;
  insns.reserve(program.instructions.size());
  for (size_t i = 0; i < program.instructions.size(); ++i) {
    insns.push_back(layout.decode(program.instructions[i], i));
  }
  return insns;
}

std::string disassemble(const Program& program, bool withUops) {
  std::ostringstream os;
  uint64_t dramBytes = 0;
  for (const DramSegment& seg : program.dram) dramBytes += seg.bytes.size();
  os << "; VTA program for " << program.config.model() << ": " << program.instructions.size()
     << " instructions, " << program.dram.size() << " DRAM segments (" << dramBytes << " bytes)\n";
  for (const DramSegment& seg : program.dram) {
    os << ";   segment 0x" << std::hex << seg.physAddr << std::dec << ": " << seg.bytes.size()
       << " bytes\n";
  }
  const IsaLayout layout(program.config);
  if (!withUops) {
    os << disassemble(layout, program.instructions);
    return os.str();
  }
  Dram dram;
  loadSegments(dram, program.dram, "program");
  for (size_t i = 0; i < program.instructions.size(); ++i) {
    char prefix[24];
    std::snprintf(prefix, sizeof prefix, "%6zu  ", i);
    Instruction insn;
    try {
      insn = layout.decode(program.instructions[i], i);
    } catch (const DiagnosticError& e) {
      os << prefix << "<invalid: " << e.diagnostic().message << ">\n";
      continue;
    }
    os << prefix << disassemble(insn) << "\n";
    if (insn.opcode != Opcode::kLoad || insn.memType != MemType::kUop || insn.isNop()) continue;
    const uint8_t* p = dram.translate(uint64_t{insn.dramBase} * Config::kUopElemBytes,
                                      uint64_t{insn.xSize} * Config::kUopElemBytes);
    if (p == nullptr) {
      os << "        <micro-ops outside DRAM>\n";
      continue;
    }
    std::vector<Uop> uops(insn.xSize);
    for (uint32_t u = 0; u < insn.xSize; ++u) {
      uint32_t word = 0;
      std::memcpy(&word, p + 4 * u, 4);
      uops[u] = layout.decodeUop(word);
    }
    os << disassembleUops(uops, insn.sramBase);
  }
  return os.str();
}

}  // namespace tessera::vta
