// Simulator scheduling (spec §4.2), dependency tokens (§3.2), and the LOAD/STORE data movement of
// §4.3-§4.4. GEMM and ALU execution live in sim_compute.cc.
#include "vta/rt/sim.h"

#include <array>
#include <cstring>
#include <sstream>

#include "support/check.h"
#include "support/diagnostic.h"
#include "vta/rt/disasm.h"

namespace tessera::vta {
namespace {

// Poison for fresh SRAM: programs must write before they read (spec §4.1), and a recognisable
// pattern makes a violation visible instead of silently reading zeros.
constexpr uint8_t kPoisonByte = 0xA5;

[[noreturn]] void failAt(const Instruction& insn, size_t index, const std::string& message,
                         std::string code = "vta_sim") {
  throwDiagnostic(std::move(code), message, {}, instructionContext(insn, index));
}

std::string tokenString(const TokenQueues& q) {
  return "load->compute " + std::to_string(q.l2c) + ", compute->load " + std::to_string(q.c2l) +
         ", compute->store " + std::to_string(q.c2s) + ", store->compute " + std::to_string(q.s2c);
}

// The queue a module pops for a flag, or nullptr when the flag names no neighbour.
uint64_t* popQueue(TokenQueues& q, Stage module, bool prev) {
  switch (module) {
    case Stage::kLoad:
      return prev ? nullptr : &q.c2l;
    case Stage::kCompute:
      return prev ? &q.l2c : &q.s2c;
    case Stage::kStore:
      return prev ? &q.c2s : nullptr;
    case Stage::kNone:
      break;
  }
  return nullptr;
}

uint64_t* pushQueue(TokenQueues& q, Stage module, bool prev) {
  switch (module) {
    case Stage::kLoad:
      return prev ? nullptr : &q.l2c;
    case Stage::kCompute:
      return prev ? &q.c2l : &q.c2s;
    case Stage::kStore:
      return prev ? &q.s2c : nullptr;
    case Stage::kNone:
      break;
  }
  return nullptr;
}

// Spec §2.2: the load module has no previous stage and the store module no next stage.
void checkFlagsForModule(const Instruction& insn, size_t index) {
  const Stage m = insn.module();
  if (m == Stage::kLoad && (insn.dep.popPrev || insn.dep.pushPrev)) {
    failAt(insn, index,
           std::string("field ") + (insn.dep.popPrev ? "pop_prev" : "push_prev") +
               " is set on a load-module instruction, but the load module has no previous stage");
  }
  if (m == Stage::kStore && (insn.dep.popNext || insn.dep.pushNext)) {
    failAt(insn, index,
           std::string("field ") + (insn.dep.popNext ? "pop_next" : "push_next") +
               " is set on a store instruction, but the store module has no next stage");
  }
}

// Narrows an accumulator lane to `bits` and writes it as lane `lane` of a packed entry.
void writeLane(uint8_t* entry, int lane, int bits, int32_t value) {
  const uint32_t v = static_cast<uint32_t>(value);
  if (bits >= 8) {
    std::memcpy(entry + static_cast<size_t>(lane) * (bits / 8), &v, bits / 8);  // little-endian
    return;
  }
  const int bit = lane * bits;
  const uint8_t mask = static_cast<uint8_t>(((1u << bits) - 1) << (bit % 8));
  uint8_t& byte = entry[bit / 8];
  byte = static_cast<uint8_t>((byte & ~mask) | ((v << (bit % 8)) & mask));
}

}  // namespace

std::string instructionContext(const Instruction& insn, size_t index) {
  const std::string head = "instruction " + std::to_string(index) + " (";
  if (insn.isNop()) return head + nopName(insn) + ")";
  std::string s = head + std::string(opcodeName(insn.opcode));
  if (insn.opcode == Opcode::kLoad || insn.opcode == Opcode::kStore) {
    s += " " + std::string(memTypeName(insn.memType));
  }
  if (insn.opcode == Opcode::kAlu) s += " " + std::string(aluOpcodeName(insn.aluOpcode));
  return s + ")";
}

namespace {
// Validates before the SRAMs are sized from the configuration.
const Config& validated(const Config& cfg) {
  cfg.validate();
  return cfg;
}
}  // namespace

Simulator::Simulator(const Config& cfg, Dram& dram)
    : cfg_(validated(cfg)), layout_(cfg), dram_(dram) {
  inp_.assign(static_cast<size_t>(cfg.inpBuffDepth() * cfg.inpElemBytes()), kPoisonByte);
  wgt_.assign(static_cast<size_t>(cfg.wgtBuffDepth() * cfg.wgtElemBytes()), kPoisonByte);
  acc_.assign(static_cast<size_t>(cfg.accBuffDepth() * cfg.batch() * cfg.blockOut()),
              static_cast<int32_t>(0xA5A5A5A5u));
  uops_.assign(static_cast<size_t>(cfg.uopBuffDepth()), Uop{});
}

void Simulator::run(std::span<const EncodedInstruction> stream, RunOptions options) {
  std::vector<Instruction> program;
  program.reserve(stream.size());
  for (size_t i = 0; i < stream.size(); ++i) program.push_back(layout_.decode(stream[i], i));
  runDecoded(program, options);
}

void Simulator::runDecoded(std::span<const Instruction> program, RunOptions options) {
  try {
    schedule(program, options);
  } catch (...) {
    tokens_ = TokenQueues{};  // a failed run leaves no tokens behind for the next one
    throw;
  }
}

void Simulator::schedule(std::span<const Instruction> program, RunOptions options) {
  // Fetch: route every instruction to its module's in-order queue (spec §3.1).
  std::array<std::vector<size_t>, 3> queues;
  for (size_t i = 0; i < program.size(); ++i) {
    // Decoded streams are in range by construction; this bounds hand-built ones the same way, so
    // the 32-bit index arithmetic of the execution loops cannot overflow.
    layout_.encode(program[i], instructionContext(program[i], i));
    checkFlagsForModule(program[i], i);
    const Stage m = program[i].module();
    TS_CHECK(m != Stage::kNone) << "unroutable instruction " << i;
    queues[static_cast<int>(m) - 1].push_back(i);
  }
  std::array<size_t, 3> head = {0, 0, 0};
  TokenQueues& tokens = tokens_;
  bool finished = false;

  // Runs one module while its head instruction's pops can be satisfied; true if it progressed.
  auto runModule = [&](Stage m) {
    const int q = static_cast<int>(m) - 1;
    bool progress = false;
    while (head[q] < queues[q].size() && !(m == Stage::kCompute && finished)) {
      const size_t index = queues[q][head[q]];
      const Instruction& insn = program[index];
      uint64_t* prev = insn.dep.popPrev ? popQueue(tokens, m, true) : nullptr;
      uint64_t* next = insn.dep.popNext ? popQueue(tokens, m, false) : nullptr;
      if ((prev && *prev == 0) || (next && *next == 0)) break;
      if (prev) --*prev;
      if (next) --*next;
      execute(insn, index);
      if (insn.dep.pushPrev) ++*pushQueue(tokens, m, true);
      if (insn.dep.pushNext) ++*pushQueue(tokens, m, false);
      ++head[q];
      progress = true;
      if (insn.opcode == Opcode::kFinish) finished = true;
    }
    return progress;
  };

  constexpr std::array<Stage, 3> kOrder = {Stage::kLoad, Stage::kCompute, Stage::kStore};
  while (!finished) {
    bool progress = false;
    for (Stage m : kOrder) progress = runModule(m) || progress;
    if (!progress) break;
  }
  // After FINISH the load and store modules may still hold work that FINISH did not wait for.
  while (runModule(Stage::kLoad) || runModule(Stage::kStore)) {
  }

  // Everything below is a malformed program: report the first instruction that never ran.
  size_t firstStuck = program.size();
  std::ostringstream blocked;
  for (Stage m : kOrder) {
    const int q = static_cast<int>(m) - 1;
    if (head[q] >= queues[q].size()) continue;
    const size_t index = queues[q][head[q]];
    const Instruction& insn = program[index];
    firstStuck = std::min(firstStuck, index);
    blocked << "; " << stageName(m) << " module waits at " << instructionContext(insn, index);
    if (insn.dep.popPrev) blocked << " pop_prev";
    if (insn.dep.popNext) blocked << " pop_next";
  }
  if (!finished) {
    if (firstStuck == program.size()) {
      throwDiagnostic("vta_sim",
                      "the instruction stream ended without FINISH (" +
                          std::to_string(program.size()) + " instructions executed)",
                      {}, "instruction stream");
    }
    throwDiagnostic("vta_deadlock",
                    "deadlock: no module can proceed and FINISH has not executed" + blocked.str() +
                        "; token queues: " + tokenString(tokens),
                    {}, instructionContext(program[firstStuck], firstStuck));
  }
  if (firstStuck != program.size()) {
    throwDiagnostic(
        "vta_sim", "instruction never executed: FINISH completed the run before it" + blocked.str(),
        {}, instructionContext(program[firstStuck], firstStuck));
  }
  if (!tokens.empty() && !options.allowLeftoverTokens) {
    throwDiagnostic(
        "vta_sim",
        "unbalanced dependency tokens: queues not empty at FINISH (" + tokenString(tokens) + ")",
        {}, "instruction stream of " + std::to_string(program.size()) + " instructions");
  }
}

void Simulator::execute(const Instruction& insn, size_t index) {
  switch (insn.opcode) {
    case Opcode::kLoad:
      if (!insn.isNop()) execLoad(insn, index);
      return;
    case Opcode::kStore:
      if (!insn.isNop()) execStore(insn, index);
      return;
    case Opcode::kGemm:
      execGemm(insn, index);
      return;
    case Opcode::kAlu:
      execAlu(insn, index);
      return;
    case Opcode::kFinish:
      return;
  }
  failAt(insn, index,
         "field opcode has unknown value " + std::to_string(static_cast<int>(insn.opcode)));
}

uint8_t* Simulator::dramRow(const Instruction& insn, size_t index, uint64_t entry,
                            uint64_t entryBytes, uint64_t count) {
  const uint64_t phys = entry * entryBytes;
  uint8_t* p = dram_.translate(phys, count * entryBytes);
  if (p != nullptr) return p;
  std::ostringstream msg;
  msg << "field dram_base: DRAM bytes [0x" << std::hex << phys << ", 0x"
      << phys + count * entryBytes << std::dec << ") (entry " << entry << " of " << entryBytes
      << " bytes, " << count << " entries) are not inside one allocation";
  failAt(insn, index, msg.str());
}

void Simulator::execLoad(const Instruction& insn, size_t index) {
  const MemType type = insn.memType;
  uint64_t* counter = nullptr;
  switch (type) {
    case MemType::kUop:
      counter = &stats_.uopLoadNbytes;
      break;
    case MemType::kWgt:
      counter = &stats_.wgtLoadNbytes;
      break;
    case MemType::kInp:
      counter = &stats_.inpLoadNbytes;
      break;
    case MemType::kAcc:
    case MemType::kAcc8Bit:
      counter = &stats_.accLoadNbytes;
      break;
    case MemType::kOut:
      failAt(insn, index, "field memory_type OUT is only valid in STORE instructions");
  }
  if (counter == nullptr) {
    failAt(insn, index,
           "field memory_type has unknown value " + std::to_string(static_cast<int>(type)));
  }
  const uint64_t entryBytes = static_cast<uint64_t>(sramElemBytes(cfg_, type));
  const uint64_t dramBytes = static_cast<uint64_t>(dramElemBytes(cfg_, type));
  // Counters come first and count only the transferred entries, never the padding (spec §4.7).
  *counter += uint64_t{insn.xSize} * insn.ySize * entryBytes;
  if (skipExecution_ && type != MemType::kUop) return;

  const uint64_t width = uint64_t{insn.xPad0} + insn.xSize + insn.xPad1;
  const uint64_t height = uint64_t{insn.yPad0} + insn.ySize + insn.yPad1;
  const uint64_t depth = static_cast<uint64_t>(sramDepth(cfg_, type));
  if (insn.sramBase + width * height > depth) {
    failAt(insn, index,
           "field sram_base: the loaded block (sram_base " + std::to_string(insn.sramBase) + " + " +
               std::to_string(width) + " x " + std::to_string(height) +
               " entries including padding) ends at entry " +
               std::to_string(insn.sramBase + width * height) + ", beyond the " +
               std::string(memTypeName(type)) + " buffer depth " + std::to_string(depth));
  }

  if (type == MemType::kUop) {
    for (uint64_t y = 0; y < height; ++y) {
      for (uint64_t x = 0; x < width; ++x) {
        const uint64_t dst = insn.sramBase + y * width + x;
        const bool pad = y < insn.yPad0 || y >= insn.yPad0 + insn.ySize || x < insn.xPad0 ||
                         x >= insn.xPad0 + insn.xSize;
        uint32_t word = 0;
        if (!pad) {
          const uint64_t entry =
              uint64_t{insn.dramBase} + (y - insn.yPad0) * insn.xStride + (x - insn.xPad0);
          std::memcpy(&word, dramRow(insn, index, entry, dramBytes, 1), sizeof word);
        }
        uops_[dst] = layout_.decodeUop(word);
      }
    }
    return;
  }

  uint8_t* sram = type == MemType::kInp   ? inp_.data()
                  : type == MemType::kWgt ? wgt_.data()
                                          : reinterpret_cast<uint8_t*>(acc_.data());
  auto zero = [&](uint64_t firstEntry, uint64_t count) {
    if (count > 0) std::memset(sram + firstEntry * entryBytes, 0, count * entryBytes);
  };
  zero(insn.sramBase, insn.yPad0 * width);
  for (uint64_t y = 0; y < insn.ySize; ++y) {
    const uint64_t rowStart = insn.sramBase + (insn.yPad0 + y) * width;
    zero(rowStart, insn.xPad0);
    zero(rowStart + insn.xPad0 + insn.xSize, insn.xPad1);
    const uint8_t* src =
        dramRow(insn, index, uint64_t{insn.dramBase} + y * insn.xStride, dramBytes, insn.xSize);
    uint8_t* dst = sram + (rowStart + insn.xPad0) * entryBytes;
    if (type != MemType::kAcc8Bit) {
      std::memcpy(dst, src, insn.xSize * entryBytes);
      continue;
    }
    // ACC_8BIT: each int8 in DRAM becomes one sign-extended int32 accumulator lane.
    for (uint64_t i = 0; i < insn.xSize * dramBytes; ++i) {
      const int32_t lane = static_cast<int8_t>(src[i]);
      std::memcpy(dst + i * 4, &lane, 4);
    }
  }
  zero(insn.sramBase + (insn.yPad0 + insn.ySize) * width, insn.yPad1 * width);
}

void Simulator::execStore(const Instruction& insn, size_t index) {
  if (insn.memType != MemType::kOut) {
    failAt(insn, index,
           "field memory_type must be OUT (4) in a STORE, found " +
               std::string(memTypeName(insn.memType)));
  }
  if (insn.yPad0 || insn.yPad1 || insn.xPad0 || insn.xPad1) {
    failAt(insn, index, "fields y_pad_0/y_pad_1/x_pad_0/x_pad_1 must be 0 in a STORE");
  }
  const uint64_t outBytes = static_cast<uint64_t>(cfg_.outElemBytes());
  stats_.outStoreNbytes += uint64_t{insn.xSize} * insn.ySize * outBytes;
  if (skipExecution_) return;
  const uint64_t count = uint64_t{insn.xSize} * insn.ySize;
  const uint64_t depth = static_cast<uint64_t>(cfg_.accBuffDepth());
  if (insn.sramBase + count > depth) {
    failAt(insn, index,
           "field sram_base: stored entries " + std::to_string(insn.sramBase) + ".." +
               std::to_string(insn.sramBase + count - 1) + " run past the accumulator depth " +
               std::to_string(depth));
  }
  const int lanes = cfg_.batch() * cfg_.blockOut();
  const int outBits = cfg_.outWidth();
  for (uint64_t y = 0; y < insn.ySize; ++y) {
    uint8_t* dst =
        dramRow(insn, index, uint64_t{insn.dramBase} + y * insn.xStride, outBytes, insn.xSize);
    for (uint64_t x = 0; x < insn.xSize; ++x) {
      const int32_t* src = acc_.data() + (insn.sramBase + y * insn.xSize + x) * lanes;
      uint8_t* out = dst + x * outBytes;
      // Narrowing keeps the low OUT_WIDTH bits: two's-complement truncation, no saturation.
      if (outBits == 8) {
        for (int l = 0; l < lanes; ++l) out[l] = static_cast<uint8_t>(src[l]);
        continue;
      }
      for (int l = 0; l < lanes; ++l) writeLane(out, l, outBits, src[l]);
    }
  }
}

}  // namespace tessera::vta
