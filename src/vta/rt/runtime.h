// The VTA runtime API of spec §5: device buffers, the command queue (the reference's command
// handle) that turns 2-D DMA calls, micro-op kernels and dependency calls into an instruction
// stream exactly as the reference runtime does, and synchronize, which runs it on the simulator.
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "runtime/ndarray.h"
#include "vta/rt/config.h"
#include "vta/rt/dram.h"
#include "vta/rt/isa.h"
#include "vta/rt/program_file.h"
#include "vta/rt/sim.h"
#include "vta/rt/uop_kernel.h"

namespace tessera::vta {

/// A device DRAM buffer (VTABufferAlloc's opaque handle): its physical address and size.
struct DeviceBuffer {
  uint64_t physAddr = 0;
  uint64_t nbytes = 0;
  bool defined() const { return physAddr != 0; }
};

/// Runtime debug flags (spec §5.1). Dumps go to the stream given to setDebugFlags.
enum DebugFlags : uint32_t {
  kDebugDumpInsn = 1u << 1,          ///< list every instruction stream at synchronize
  kDebugDumpUop = 1u << 2,           ///< list every kernel's micro-ops when it is recorded
  kDebugSkipReadBarrier = 1u << 3,   ///< accepted; barriers are no-ops in the simulator
  kDebugSkipWriteBarrier = 1u << 4,  ///< accepted; barriers are no-ops in the simulator
  kDebugForceSerial = 1u << 5,       ///< not supported (rejected by setDebugFlags)
};

/// Runtime limits; the default is the reference driver's.
struct RuntimeOptions {
  /// VTA_MAX_XFER: the largest instruction or micro-op stream of one device run, in bytes.
  uint64_t maxXferBytes = uint64_t{1} << 25;
};

/// Records the micro-ops of one kernel by calling uopLoopBegin/uopPush/uopLoopEnd on the queue;
/// receives the captured closure value (0 when there is none).
using UopKernelRecorder = std::function<void(int32_t closure)>;

/// One command queue bound to its own simulated device (DRAM + simulator). Instructions accumulate
/// until synchronize() appends the completion protocol and FINISH, runs them, and resets the queue.
/// User mistakes (bad dependency pairs, malformed kernels, fields that do not fit) are
/// DiagnosticErrors with code vta_runtime or vta_isa naming the API call.
class CommandQueue {
 public:
  explicit CommandQueue(const Config& cfg = Config::defaults(), RuntimeOptions options = {});
  ~CommandQueue();
  CommandQueue(const CommandQueue&) = delete;
  CommandQueue& operator=(const CommandQueue&) = delete;

  const Config& config() const { return cfg_; }

  // ---- buffers (spec §5.1) ----
  /// Allocates `nbytes` of device DRAM (4 KiB aligned).
  DeviceBuffer bufferAlloc(uint64_t nbytes);
  void bufferFree(DeviceBuffer buffer);
  /// Host -> device copy of `nbytes` into `dst` at byte `dstOffset`.
  void bufferCopyIn(const void* src, DeviceBuffer dst, uint64_t dstOffset, uint64_t nbytes);
  /// Device -> host copy of `nbytes` from `src` at byte `srcOffset`.
  void bufferCopyOut(DeviceBuffer src, uint64_t srcOffset, void* dst, uint64_t nbytes);
  /// The host-visible bytes of a device buffer (VTABufferCPUPtr).
  uint8_t* bufferCpuPtr(DeviceBuffer buffer);
  /// Allocates a buffer holding a copy of `array`'s bytes.
  DeviceBuffer bufferFromArray(const NDArray& array);
  /// A fresh NDArray with the first shape·dtype bytes of `buffer`.
  NDArray bufferToArray(DeviceBuffer buffer, std::vector<int64_t> shape, DataType dtype);

  // ---- DMA (spec §5.2, §5.3) ----
  /// VTALoadBuffer2D: one LOAD of `dstMemoryType` into SRAM entry `dstSramIndex`.
  void loadBuffer2D(DeviceBuffer src, uint64_t srcElemOffset, uint32_t xSize, uint32_t ySize,
                    uint32_t xStride, uint32_t xPadBefore, uint32_t yPadBefore, uint32_t xPadAfter,
                    uint32_t yPadAfter, uint32_t dstSramIndex, MemType dstMemoryType);
  /// VTAStoreBuffer2D: one STORE from accumulator entry `srcSramIndex` (memory type OUT).
  void storeBuffer2D(uint32_t srcSramIndex, MemType srcMemoryType, DeviceBuffer dst,
                     uint64_t dstElemOffset, uint32_t xSize, uint32_t ySize, uint32_t xStride);

  // ---- micro-op kernels (spec §5.4, §5.5) ----
  /// VTAPushGEMMOp: records the (site, closure) kernel on first use, loads it into micro-op SRAM
  /// if it is not resident, and appends a GEMM.
  void pushGemmOp(UopKernelCache& site, std::optional<int32_t> closure,
                  const UopKernelRecorder& record);
  /// VTAPushALUOp: as pushGemmOp for ALU kernels.
  void pushAluOp(UopKernelCache& site, std::optional<int32_t> closure,
                 const UopKernelRecorder& record);
  /// VTAUopLoopBegin (only while a kernel is being recorded).
  void uopLoopBegin(uint32_t extent, uint32_t dstFactor, uint32_t srcFactor, uint32_t wgtFactor);
  /// VTAUopLoopEnd.
  void uopLoopEnd();
  /// VTAUopPush: mode 0 GEMM, 1 ALU; `opcode` is the ALU opcode number (0..4).
  void uopPush(int mode, int resetOut, uint32_t dstIndex, uint32_t srcIndex, uint32_t wgtIndex,
               int opcode, int useImm, int32_t imm);

  // ---- dependencies (spec §5.6) ----
  /// VTADepPush: stage `from` gives a token to adjacent stage `to` (1 load, 2 compute, 3 store).
  void depPush(int from, int to);
  /// VTADepPop: stage `to` will take a token from adjacent stage `from` before its next insn.
  void depPop(int from, int to);

  // ---- execution (spec §5.7) ----
  /// VTASynchronize: completion protocol + FINISH, run on the simulator, reset the queue.
  void synchronize(uint32_t waitCycles = 1u << 31);

  // ---- inspection and debugging ----
  /// The instructions appended since the last synchronize.
  std::span<const Instruction> pendingInstructions() const { return insns_; }
  /// The complete stream (FINISH included) of the most recent synchronize.
  const std::vector<Instruction>& lastRun() const { return lastRun_; }
  /// Number of device runs so far (explicit and automatic synchronizations).
  uint64_t runCount() const { return runCount_; }
  Simulator& simulator() { return *sim_; }
  Dram& dram() { return *dram_; }
  const Stats& stats() const { return sim_->stats(); }
  void clearStats() { sim_->clearStats(); }
  /// VTASetDebugMode; dumps are written to `dump` (nothing is written when it is null).
  void setDebugFlags(uint32_t flags, std::ostream* dump = nullptr);
  /// While set, every device run is also appended to `*sink` as a Program (for program files).
  void captureRuns(std::vector<Program>* sink) { capture_ = sink; }

 private:
  struct Pending {
    bool popPrev = false;
    bool popNext = false;
  };
  Instruction& append(Instruction insn, Stage stage, const char* call);
  void commitPendingPop(Stage stage);
  void pushKernel(UopKernelCache& site, std::optional<int32_t> closure,
                  const UopKernelRecorder& record, UopMode mode, const char* call);
  uint32_t stageUops(const UopKernel& kernel);
  void checkOverflow();
  void run(bool automatic);

  Config cfg_;
  RuntimeOptions options_;
  IsaLayout layout_;
  std::unique_ptr<Dram> dram_;
  std::unique_ptr<Simulator> sim_;
  std::vector<Instruction> insns_;
  std::vector<Instruction> lastRun_;
  Pending pending_[4];  // indexed by stage 1..3
  UopSramAllocator uopSram_;
  UopKernel* recording_ = nullptr;
  // Micro-op staging: DRAM chunks that LOAD UOP instructions read, filled append-only per run.
  std::vector<DeviceBuffer> stagingChunks_;
  size_t stagingChunk_ = 0;
  uint64_t stagingOffset_ = 0;  // bytes used in the current chunk
  uint64_t stagedUops_ = 0;     // micro-ops staged in this run
  uint64_t runCount_ = 0;
  uint32_t debugFlags_ = 0;
  std::ostream* dump_ = nullptr;
  std::vector<Program>* capture_ = nullptr;
};

}  // namespace tessera::vta
