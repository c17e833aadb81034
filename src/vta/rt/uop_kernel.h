// Micro-op kernels (spec §5.4): the recorded micro-ops and hardware loops of one GEMM/ALU task,
// the per-call-site cache that records each kernel once, and the micro-op SRAM allocator with
// the reference runtime's eviction policy (spec §5.5).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "vta/rt/isa.h"

namespace tessera::vta {

/// A hardware loop declared by uopLoopBegin: trip count and per-iteration index steps.
struct UopLoop {
  uint32_t extent = 0;
  uint32_t dstFactor = 0;
  uint32_t srcFactor = 0;
  uint32_t wgtFactor = 0;
  bool operator==(const UopLoop&) const = default;
};

/// Kernel mode: the first argument of uopPush.
enum class UopMode : uint8_t { kGemm = 0, kAlu = 1 };

/// One recorded micro-op kernel. Its mode, reset flag and (for ALU) opcode and immediate are those
/// of its first micro-op; every later micro-op must agree.
class UopKernel {
 public:
  /// Declares a hardware loop; must precede every micro-op; at most two per kernel.
  void loopBegin(const UopLoop& loop);
  void loopEnd();
  /// Appends a micro-op after the consistency and write-port hazard checks of spec §5.4.
  void push(UopMode mode, bool resetOut, const Uop& uop, AluOpcode opcode, bool useImm,
            int32_t imm);
  /// Checks the finished recording (balanced loops, at least one micro-op, fits the SRAM).
  void finish(int64_t uopDepth) const;

  const std::vector<Uop>& uops() const { return uops_; }
  const std::vector<UopLoop>& loops() const { return loops_; }
  UopMode mode() const { return mode_.value_or(UopMode::kGemm); }
  bool resetOut() const { return resetOut_; }
  AluOpcode opcode() const { return opcode_; }
  bool useImm() const { return useImm_; }
  int32_t imm() const { return imm_; }

 private:
  std::vector<Uop> uops_;
  std::vector<UopLoop> loops_;
  int openLoops_ = 0;
  std::optional<UopMode> mode_;
  bool resetOut_ = false;
  AluOpcode opcode_ = AluOpcode::kMin;
  bool useImm_ = false;
  int32_t imm_ = 0;
};

/// The kernels of one pushGemmOp/pushAluOp call site (the reference's static `uop_handle` slot),
/// keyed by the captured closure value: key 0 without a closure, v + 1 for closure v (< 100).
/// Kernels are recorded once per cache lifetime and reused by every later push.
class UopKernelCache {
 public:
  /// The slot for `closure`; throws DiagnosticError (vta_runtime) for a key >= 100.
  std::shared_ptr<UopKernel>& slot(std::optional<int32_t> closure);

 private:
  std::array<std::shared_ptr<UopKernel>, 100> kernels_;
};

/// The micro-op SRAM allocator of one command queue: which kernels are resident where. Kernels are
/// placed one after another; when the SRAM is full allocation wraps to 0 and every resident
/// kernel overlapping the new range is evicted. reset() (at synchronize) empties it.
class UopSramAllocator {
 public:
  explicit UopSramAllocator(uint32_t depth) : depth_(depth) {}

  /// The SRAM range of a resident kernel, or nullopt.
  std::optional<std::pair<uint32_t, uint32_t>> find(const UopKernel* kernel) const;
  /// Allocates SRAM for a non-resident kernel of `size` micro-ops and returns its range.
  std::pair<uint32_t, uint32_t> allocate(const std::shared_ptr<UopKernel>& kernel, uint32_t size);
  void reset();

 private:
  uint32_t depth_;
  uint32_t end_ = 0;   // first free entry after the most recent allocation
  size_t cursor_ = 0;  // position in order_ just after the most recent allocation
  std::vector<std::shared_ptr<UopKernel>> order_;  // resident kernels in SRAM order
  std::unordered_map<const UopKernel*, std::pair<uint32_t, uint32_t>> ranges_;
};

}  // namespace tessera::vta
