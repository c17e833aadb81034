// A cycle model of VTA (the "beyond the anchors" timing model): the load, compute and store modules
// run concurrently, each executing its instruction queue in order; an instruction starts when its
// module is free and every token it pops has been pushed (spec §3.2). The functional simulator has
// no notion of time; this model adds one without touching it, from the decoded stream alone, since
// no instruction's duration depends on data. Precondition: the stream is well formed (it runs on
// the functional simulator).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "vta/rt/config.h"
#include "vta/rt/isa.h"
#include "vta/rt/sim.h"

namespace tessera::vta {

/// Cost parameters of the model, in cycles of the accelerator clock. Where VTA's hardware sources
/// give a figure it is cited; the rest are documented choices (docs/user/vta.md, "Timing model").
struct TimingParams {
  /// DMA bytes moved per cycle: the 64-bit AXI bus of the Pynq and DE10-Nano builds
  /// (fpga_log_axi_bus_width 6, spec §1.2).
  uint64_t dmaBytesPerCycle = 8;
  /// Fixed cost of one DMA request before its data streams. The HLS load/store modules issue one
  /// request per row of a 2-D transfer (a memcpy per y), so every row pays it. Chosen: 32 cycles,
  /// a typical DDR read latency of a Zynq HP port at 100 MHz; no VTA source states one.
  uint64_t dmaLatencyCycles = 32;
  /// Cycles per GEMM micro-op (one BATCH x BLOCK_IN x BLOCK_OUT matrix product): the HLS loop
  /// READ_GEMM_UOP is pipelined with initiation interval 1 (vta.cc, hls.tcl g_ii).
  uint64_t gemmCyclesPerUop = 1;
  /// Cycles per ALU micro-op (BATCH x BLOCK_OUT lanes): READ_ALU_UOP reads and writes the same
  /// accumulator SRAM, so hls.tcl pipelines it with its own, larger interval a_ii; we take 2.
  uint64_t aluCyclesPerUop = 2;
  /// Fill and drain of the GEMM/ALU pipeline (micro-op read, SRAM reads, arithmetic, accumulator
  /// write) paid once per GEMM/ALU instruction. Chosen: 4.
  uint64_t computePipelineCycles = 4;
  /// Decode and issue of every instruction, NOPs and FINISH included. Chosen: 1.
  uint64_t issueCycles = 1;
};

/// The four dependency-token queues of spec §3.2, as indices into per-queue arrays.
enum class TokenQueue : uint8_t { kL2C = 0, kC2L = 1, kC2S = 2, kS2C = 3 };
inline constexpr int kTokenQueueCount = 4;
/// "load->compute", "compute->load", "compute->store", "store->compute".
const char* tokenQueueName(TokenQueue q);

/// When one instruction ran and what it waited for.
struct InstructionTiming {
  Stage module = Stage::kNone;
  uint64_t start = 0;   ///< first cycle
  uint64_t finish = 0;  ///< cycle after the last (start + cost); its pushed tokens exist from here
  uint64_t cost() const { return finish - start; }
  /// The instruction whose token this one waited for past the moment its module was free, or -1
  /// when it did not wait (or the token was in the queue before the run).
  int64_t waitedFor = -1;
  TokenQueue waitQueue = TokenQueue::kL2C;  ///< meaningful when waitedFor >= 0
};

/// Where one module's cycles went: busy + waits on each queue + idle = total cycles.
struct ModuleTiming {
  uint64_t instructions = 0;
  uint64_t busy = 0;  ///< executing instructions
  /// Stalled at the head of its queue for a token from the named queue.
  std::array<uint64_t, kTokenQueueCount> wait{};
  uint64_t idle = 0;  ///< nothing left to execute (before the end of the run)
  uint64_t waitTotal() const { return wait[0] + wait[1] + wait[2] + wait[3]; }
};

/// A maximal run of consecutive critical-path instructions on one module.
struct CriticalSegment {
  Stage module = Stage::kNone;
  size_t first = 0;  ///< program index of the first instruction
  size_t last = 0;   ///< program index of the last instruction
  uint64_t instructions = 0;
  uint64_t cycles = 0;
};

/// The timing of one device run.
struct TimingReport {
  TimingParams params;
  uint64_t totalCycles = 0;  ///< finish of the last instruction
  /// Indexed by module: 0 load, 1 compute, 2 store.
  std::array<ModuleTiming, 3> modules;
  /// Cycles the GEMM core spends on non-reset micro-ops (gemm_counter x gemmCyclesPerUop).
  uint64_t gemmCycles = 0;
  /// Per instruction, in program order.
  std::vector<InstructionTiming> instructions;
  /// The chain of instructions whose finish times determine totalCycles, earliest first: each
  /// starts exactly when its predecessor (in its module, or the producer of its token) finishes,
  /// so their costs add up to totalCycles.
  std::vector<size_t> criticalPath;

  const ModuleTiming& module(Stage m) const { return modules[static_cast<int>(m) - 1]; }
  /// busy / totalCycles of module `m` (0 for an empty run).
  double utilisation(Stage m) const;
  /// gemmCycles / totalCycles: the share of time the GEMM core does useful multiply-accumulates.
  double gemmUtilisation() const;
  /// The critical path merged into per-module runs.
  std::vector<CriticalSegment> criticalSegments() const;

  /// A readable table: total cycles, per-module busy/wait/idle and utilisation, GEMM utilisation,
  /// and the critical path's segments (the first `maxSegments`, then a count of the rest).
  std::string format(size_t maxSegments = 8) const;
  /// The same as a JSON object (every critical-path segment included).
  std::string toJson() const;
};

/// Times `program` (one device run, FINISH included) under `params`; `initial` are tokens already
/// in the queues when the run starts (the runtime's mid-program synchronisation leaves some).
/// A stream in which no module can proceed is a DiagnosticError (vta_deadlock) naming the first
/// blocked instruction, as in the functional simulator.
TimingReport estimateTiming(const Config& cfg, std::span<const Instruction> program,
                            const TimingParams& params = {}, const TokenQueues& initial = {});

/// The cycles one instruction occupies its module under `params` (independent of the others).
uint64_t instructionCycles(const Config& cfg, const Instruction& insn, const TimingParams& params);

}  // namespace tessera::vta
