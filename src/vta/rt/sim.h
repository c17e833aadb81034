// The bit-exact functional simulator of VTA (spec §3, §4): three in-order modules (load, compute,
// store) synchronised by four dependency-token queues, executing an encoded instruction stream
// against the SRAMs and the simulated DRAM, and counting data movement and compute.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "vta/rt/config.h"
#include "vta/rt/dram.h"
#include "vta/rt/isa.h"
#include "vta/rt/stats.h"

namespace tessera::vta {

/// Tokens waiting in the four dependency queues of spec §3.2.
struct TokenQueues {
  uint64_t l2c = 0;  ///< load -> compute (RAW: data is in SRAM)
  uint64_t c2l = 0;  ///< compute -> load (WAR: SRAM may be overwritten)
  uint64_t c2s = 0;  ///< compute -> store (results ready in the accumulator)
  uint64_t s2c = 0;  ///< store -> compute (accumulator drained)
  bool empty() const { return l2c == 0 && c2l == 0 && c2s == 0 && s2c == 0; }
  bool operator==(const TokenQueues&) const = default;
};

/// Per-run options of Simulator::run.
struct RunOptions {
  /// Tokens left in the queues at FINISH are an error unless set. The runtime sets it for the
  /// automatic mid-program synchronisation of spec §5.6, whose tokens the next run consumes.
  bool allowLeftoverTokens = false;
};

/// One VTA device: SRAMs, token queues and counters. DRAM is shared with the host runtime and
/// owned by the caller. Every problem in a stream (unknown opcode, an SRAM or DRAM access out of
/// range, a deadlock, tokens left over at FINISH) is a DiagnosticError whose context names the
/// instruction index; the simulator never crashes or hangs on a malformed stream.
class Simulator {
 public:
  /// Throws DiagnosticError (vta_config) when `cfg` is invalid.
  Simulator(const Config& cfg, Dram& dram);

  /// Decodes and executes `stream` until FINISH has executed (spec §4.2). The modules run in the
  /// fixed order load, compute, store; a round in which none can proceed is a deadlock.
  /// Token queues persist across runs like the hardware's FIFOs. After a DiagnosticError the
  /// queues are emptied; SRAM contents are then unspecified.
  void run(std::span<const EncodedInstruction> stream, RunOptions options = {});
  /// Executes already decoded instructions (same semantics as run).
  void runDecoded(std::span<const Instruction> program, RunOptions options = {});
  /// Tokens currently waiting in the dependency queues.
  const TokenQueues& tokens() const { return tokens_; }

  /// Counters accumulated over all runs since construction or the last clearStats().
  const Stats& stats() const { return stats_; }
  void clearStats() { stats_ = Stats{}; }
  /// Debug flag bit 0 of the reference profiler: count, but skip LOAD INP/WGT/ACC, STORE, GEMM
  /// and ALU execution (UOP loads still execute).
  void setSkipExecution(bool skip) { skipExecution_ = skip; }

  const Config& config() const { return cfg_; }
  const IsaLayout& layout() const { return layout_; }
  /// Raw SRAM contents, for tests: entry e of a buffer starts at byte e·ELEM_BYTES.
  std::span<const uint8_t> inpSram() const { return inp_; }
  std::span<const uint8_t> wgtSram() const { return wgt_; }
  std::span<const int32_t> accSram() const { return acc_; }
  std::span<const Uop> uopSram() const { return uops_; }

 private:
  void schedule(std::span<const Instruction> program, RunOptions options);
  void execute(const Instruction& insn, size_t index);
  void execLoad(const Instruction& insn, size_t index);
  void execStore(const Instruction& insn, size_t index);
  void execGemm(const Instruction& insn, size_t index);
  void execAlu(const Instruction& insn, size_t index);
  // DRAM bytes of one transfer row, or a diagnostic naming the instruction and dram_base.
  uint8_t* dramRow(const Instruction& insn, size_t index, uint64_t entry, uint64_t entryBytes,
                   uint64_t count);
  // Checks uop_bgn/uop_end and that every index the loop nest forms stays inside its buffer.
  void checkComputeRanges(const Instruction& insn, size_t index, bool checkSrc, int64_t srcDepth,
                          bool checkWgt);

  Config cfg_;
  IsaLayout layout_;
  Dram& dram_;
  Stats stats_;
  TokenQueues tokens_;
  bool skipExecution_ = false;
  std::vector<uint8_t> inp_;
  std::vector<uint8_t> wgt_;
  std::vector<int32_t> acc_;
  std::vector<Uop> uops_;
};

/// "instruction 12 (GEMM)", "instruction 7 (LOAD INP)": the context string of diagnostics.
std::string instructionContext(const Instruction& insn, size_t index);

}  // namespace tessera::vta
