// The command queue: instruction creation with the reference runtime's pending-pop and push-merging
// rules (spec §5.6), micro-op kernel caching (§5.5), and synchronize (§5.7). Matching these rules
// exactly is what makes instruction counts and uop_load_nbytes equal the reference's.
#include "vta/rt/runtime.h"

#include <cstring>
#include <ostream>

#include "support/check.h"
#include "support/diagnostic.h"
#include "vta/rt/disasm.h"

namespace tessera::vta {
namespace {

[[noreturn]] void fail(const std::string& message, const std::string& call) {
  throwDiagnostic("vta_runtime", message, {}, call);
}

// The stage an existing instruction belongs to for push merging: dependency-only LOADs belong to
// none, so a load or compute no-op never absorbs a later push (spec §5.6).
Stage pushStage(const Instruction& insn) {
  switch (insn.opcode) {
    case Opcode::kGemm:
    case Opcode::kAlu:
      return Stage::kCompute;
    case Opcode::kLoad:
      return insn.xSize == 0 ? Stage::kNone : insn.module();
    case Opcode::kStore:
      return Stage::kStore;
    case Opcode::kFinish:
      return Stage::kNone;
  }
  return Stage::kNone;
}

Stage checkedStage(int value, const char* call) {
  if (value < 1 || value > 3) {
    fail("stage " + std::to_string(value) + " is not 1 (load), 2 (compute) or 3 (store)", call);
  }
  return static_cast<Stage>(value);
}

// Micro-op staging chunk: large enough for the biggest kernel (the whole micro-op SRAM).
uint64_t chunkBytes(const Config& cfg) {
  return std::max<uint64_t>(uint64_t{1} << 16, cfg.uopBuffDepth() * Config::kUopElemBytes);
}

// Validates before any member sizes its SRAMs from the configuration.
const Config& validated(const Config& cfg) {
  cfg.validate();
  return cfg;
}

}  // namespace

CommandQueue::CommandQueue(const Config& cfg, RuntimeOptions options)
    : cfg_(validated(cfg)),
      options_(options),
      layout_(cfg),
      dram_(std::make_unique<Dram>()),
      sim_(std::make_unique<Simulator>(cfg, *dram_)),
      uopSram_(static_cast<uint32_t>(cfg.uopBuffDepth())) {}

CommandQueue::~CommandQueue() = default;

// ---- buffers ----

DeviceBuffer CommandQueue::bufferAlloc(uint64_t nbytes) {
  return DeviceBuffer{dram_->allocate(nbytes), nbytes};
}

void CommandQueue::bufferFree(DeviceBuffer buffer) {
  dram_->free(buffer.physAddr);
}

uint8_t* CommandQueue::bufferCpuPtr(DeviceBuffer buffer) {
  uint8_t* p = dram_->translate(buffer.physAddr, buffer.nbytes);
  if (p == nullptr) fail("not a live device buffer", "bufferCpuPtr");
  return p;
}

void CommandQueue::bufferCopyIn(const void* src, DeviceBuffer dst, uint64_t dstOffset,
                                uint64_t nbytes) {
  uint8_t* p = dram_->translate(dst.physAddr + dstOffset, nbytes);
  if (p == nullptr) fail("copy runs outside the destination device buffer", "bufferCopyIn");
  if (nbytes > 0) std::memcpy(p, src, nbytes);
}

void CommandQueue::bufferCopyOut(DeviceBuffer src, uint64_t srcOffset, void* dst, uint64_t nbytes) {
  const uint8_t* p = dram_->translate(src.physAddr + srcOffset, nbytes);
  if (p == nullptr) fail("copy runs outside the source device buffer", "bufferCopyOut");
  if (nbytes > 0) std::memcpy(dst, p, nbytes);
}

DeviceBuffer CommandQueue::bufferFromArray(const NDArray& array) {
  DeviceBuffer buffer = bufferAlloc(array.nbytes());
  bufferCopyIn(array.data(), buffer, 0, array.nbytes());
  return buffer;
}

NDArray CommandQueue::bufferToArray(DeviceBuffer buffer, std::vector<int64_t> shape,
                                    DataType dtype) {
  NDArray array = NDArray::empty(std::move(shape), dtype);
  bufferCopyOut(buffer, 0, array.data(), array.nbytes());
  return array;
}

// ---- instruction creation ----

Instruction& CommandQueue::append(Instruction insn, Stage stage, const char* call) {
  // A new instruction of `stage` carries that stage's pending pops (spec §5.6).
  Pending& p = pending_[static_cast<int>(stage)];
  insn.dep.popPrev = p.popPrev;
  insn.dep.popNext = p.popNext;
  p = Pending{};
  // Encoding now reports a field that does not fit at the API call that produced it.
  layout_.encode(insn, std::string(call) + " (instruction " + std::to_string(insns_.size()) + ")");
  insns_.push_back(insn);
  return insns_.back();
}

void CommandQueue::commitPendingPop(Stage stage) {
  const Pending p = pending_[static_cast<int>(stage)];
  if (!p.popPrev && !p.popNext) return;
  append(Instruction::nop(stage, DepFlags{}), stage, "commitPendingPop");
}

void CommandQueue::checkOverflow() {
  // Leave room for the completion protocol synchronize appends (at most 6 instructions).
  if ((insns_.size() + 6) * Config::kInsnElemBytes > options_.maxXferBytes) run(true);
}

void CommandQueue::loadBuffer2D(DeviceBuffer src, uint64_t srcElemOffset, uint32_t xSize,
                                uint32_t ySize, uint32_t xStride, uint32_t xPadBefore,
                                uint32_t yPadBefore, uint32_t xPadAfter, uint32_t yPadAfter,
                                uint32_t dstSramIndex, MemType dstMemoryType) {
  if (dram_->translate(src.physAddr, 1) == nullptr) {
    fail("source is not a device buffer", "loadBuffer2D");
  }
  if (dstMemoryType == MemType::kOut) fail("cannot load into memory type OUT", "loadBuffer2D");
  Instruction insn;
  insn.opcode = Opcode::kLoad;
  insn.memType = dstMemoryType;
  insn.sramBase = dstSramIndex;
  const uint64_t dramBase =
      src.physAddr / static_cast<uint64_t>(dramElemBytes(cfg_, dstMemoryType)) + srcElemOffset;
  if (dramBase > 0xFFFFFFFFull) {
    fail("dram_base " + std::to_string(dramBase) + " does not fit 32 bits", "loadBuffer2D");
  }
  insn.dramBase = static_cast<uint32_t>(dramBase);
  insn.ySize = ySize;
  insn.xSize = xSize;
  insn.xStride = xStride;
  insn.yPad0 = yPadBefore;
  insn.yPad1 = yPadAfter;
  insn.xPad0 = xPadBefore;
  insn.xPad1 = xPadAfter;
  append(insn, insn.module(), "loadBuffer2D");
  checkOverflow();
}

void CommandQueue::storeBuffer2D(uint32_t srcSramIndex, MemType srcMemoryType, DeviceBuffer dst,
                                 uint64_t dstElemOffset, uint32_t xSize, uint32_t ySize,
                                 uint32_t xStride) {
  if (dram_->translate(dst.physAddr, 1) == nullptr) {
    fail("destination is not a device buffer", "storeBuffer2D");
  }
  Instruction insn;
  insn.opcode = Opcode::kStore;
  insn.memType = srcMemoryType;
  insn.sramBase = srcSramIndex;
  const uint64_t dramBase =
      dst.physAddr / static_cast<uint64_t>(dramElemBytes(cfg_, srcMemoryType)) + dstElemOffset;
  if (dramBase > 0xFFFFFFFFull) {
    fail("dram_base " + std::to_string(dramBase) + " does not fit 32 bits", "storeBuffer2D");
  }
  insn.dramBase = static_cast<uint32_t>(dramBase);
  insn.ySize = ySize;
  insn.xSize = xSize;
  insn.xStride = xStride;
  append(insn, Stage::kStore, "storeBuffer2D");
  checkOverflow();
}

// ---- micro-op kernels ----

void CommandQueue::uopLoopBegin(uint32_t extent, uint32_t dstFactor, uint32_t srcFactor,
                                uint32_t wgtFactor) {
  if (recording_ == nullptr) fail("called outside a kernel recording", "uopLoopBegin");
  recording_->loopBegin(UopLoop{extent, dstFactor, srcFactor, wgtFactor});
}

void CommandQueue::uopLoopEnd() {
  if (recording_ == nullptr) fail("called outside a kernel recording", "uopLoopEnd");
  recording_->loopEnd();
}

void CommandQueue::uopPush(int mode, int resetOut, uint32_t dstIndex, uint32_t srcIndex,
                           uint32_t wgtIndex, int opcode, int useImm, int32_t imm) {
  if (recording_ == nullptr) fail("called outside a kernel recording", "uopPush");
  if (mode != 0 && mode != 1) fail("mode must be 0 (GEMM) or 1 (ALU)", "uopPush");
  if (opcode < 0 || opcode > static_cast<int>(AluOpcode::kMul)) {
    fail("ALU opcode " + std::to_string(opcode) + " is not MIN 0, MAX 1, ADD 2, SHR 3 or MUL 4",
         "uopPush");
  }
  const Uop uop{dstIndex, srcIndex, wgtIndex};
  layout_.encodeUop(uop, "uopPush");  // reject indices wider than their fields
  recording_->push(static_cast<UopMode>(mode), resetOut != 0, uop, static_cast<AluOpcode>(opcode),
                   useImm != 0, imm);
}

void CommandQueue::pushGemmOp(UopKernelCache& site, std::optional<int32_t> closure,
                              const UopKernelRecorder& record) {
  pushKernel(site, closure, record, UopMode::kGemm, "pushGemmOp");
}

void CommandQueue::pushAluOp(UopKernelCache& site, std::optional<int32_t> closure,
                             const UopKernelRecorder& record) {
  pushKernel(site, closure, record, UopMode::kAlu, "pushAluOp");
}

uint32_t CommandQueue::stageUops(const UopKernel& kernel) {
  const uint64_t bytes = kernel.uops().size() * Config::kUopElemBytes;
  if (stagingChunk_ >= stagingChunks_.size() || stagingOffset_ + bytes > chunkBytes(cfg_)) {
    if (stagingChunk_ < stagingChunks_.size()) ++stagingChunk_;
    if (stagingChunk_ >= stagingChunks_.size()) {
      stagingChunks_.push_back(bufferAlloc(chunkBytes(cfg_)));
    }
    stagingOffset_ = 0;
  }
  const DeviceBuffer chunk = stagingChunks_[stagingChunk_];
  uint8_t* p = bufferCpuPtr(chunk) + stagingOffset_;
  for (const Uop& uop : kernel.uops()) {
    const uint32_t word = layout_.encodeUop(uop);
    std::memcpy(p, &word, sizeof word);
    p += sizeof word;
  }
  const uint64_t entry = (chunk.physAddr + stagingOffset_) / Config::kUopElemBytes;
  stagingOffset_ += bytes;
  stagedUops_ += kernel.uops().size();
  return static_cast<uint32_t>(entry);
}

void CommandQueue::pushKernel(UopKernelCache& site, std::optional<int32_t> closure,
                              const UopKernelRecorder& record, UopMode mode, const char* call) {
  if (recording_ != nullptr) fail("cannot push a kernel while recording another", call);
  std::shared_ptr<UopKernel>& slot = site.slot(closure);
  if (!slot) {
    // Record once per (call site, closure); later pushes reuse the micro-ops (spec §5.4).
    auto kernel = std::make_shared<UopKernel>();
    recording_ = kernel.get();
    try {
      record(closure.value_or(0));
    } catch (...) {
      recording_ = nullptr;
      throw;
    }
    recording_ = nullptr;
    kernel->finish(cfg_.uopBuffDepth());
    if ((debugFlags_ & kDebugDumpUop) && dump_) *dump_ << disassembleUops(kernel->uops());
    slot = std::move(kernel);
  }
  const UopKernel& kernel = *slot;
  if (kernel.mode() != mode) {
    fail(std::string("kernel was recorded with ") +
             (kernel.mode() == UopMode::kGemm ? "GEMM" : "ALU") + " micro-ops",
         call);
  }
  const uint32_t size = static_cast<uint32_t>(kernel.uops().size());
  auto range = uopSram_.find(slot.get());
  if (!range) {
    if (stagedUops_ + size > options_.maxXferBytes / Config::kUopElemBytes) run(true);
    range = uopSram_.allocate(slot, size);
    Instruction load;
    load.opcode = Opcode::kLoad;
    load.memType = MemType::kUop;
    load.sramBase = range->first;
    load.dramBase = stageUops(kernel);
    load.ySize = 1;
    load.xSize = size;
    load.xStride = size;
    append(load, Stage::kCompute, call);
  }
  Instruction insn;
  insn.opcode = mode == UopMode::kGemm ? Opcode::kGemm : Opcode::kAlu;
  insn.uopBgn = range->first;
  insn.uopEnd = range->second;
  insn.iterOut = insn.iterIn = 1;
  const std::vector<UopLoop>& loops = kernel.loops();
  // GEMM: a single loop is the outer one; ALU: a single loop is the inner one (spec §5.5).
  const UopLoop* outer = nullptr;
  const UopLoop* inner = nullptr;
  if (loops.size() == 2) {
    outer = &loops[0];
    inner = &loops[1];
  } else if (loops.size() == 1) {
    (mode == UopMode::kGemm ? outer : inner) = &loops[0];
  }
  if (outer) {
    insn.iterOut = outer->extent;
    insn.dstFactorOut = outer->dstFactor;
    insn.srcFactorOut = outer->srcFactor;
    if (mode == UopMode::kGemm) insn.wgtFactorOut = outer->wgtFactor;
  }
  if (inner) {
    insn.iterIn = inner->extent;
    insn.dstFactorIn = inner->dstFactor;
    insn.srcFactorIn = inner->srcFactor;
    if (mode == UopMode::kGemm) insn.wgtFactorIn = inner->wgtFactor;
  }
  if (mode == UopMode::kGemm) {
    insn.resetReg = kernel.resetOut();
  } else {
    insn.aluOpcode = kernel.opcode();
    insn.useImm = kernel.useImm();
    insn.imm = kernel.imm();
  }
  append(insn, Stage::kCompute, call);
  checkOverflow();
}

// ---- dependencies ----

void CommandQueue::depPop(int from, int to) {
  const Stage f = checkedStage(from, "depPop"), t = checkedStage(to, "depPop");
  if (f == t || (f == Stage::kLoad && t == Stage::kStore) ||
      (f == Stage::kStore && t == Stage::kLoad)) {
    fail("dependencies connect adjacent stages only, not " + std::to_string(from) + " -> " +
             std::to_string(to),
         "depPop");
  }
  // The pop executes on stage `to`; a second pending pop of the same kind needs its own NOP.
  Pending& p = pending_[to];
  bool& bit = from < to ? p.popPrev : p.popNext;
  if (bit) commitPendingPop(t);
  bit = true;
}

void CommandQueue::depPush(int from, int to) {
  const Stage f = checkedStage(from, "depPush"), t = checkedStage(to, "depPush");
  if (f == t || (f == Stage::kLoad && t == Stage::kStore) ||
      (f == Stage::kStore && t == Stage::kLoad)) {
    fail("dependencies connect adjacent stages only, not " + std::to_string(from) + " -> " +
             std::to_string(to),
         "depPush");
  }
  // The push executes on stage `from`: merge it into that stage's last instruction if possible.
  commitPendingPop(f);
  const bool next = from < to;
  if (!insns_.empty() && pushStage(insns_.back()) == f) {
    bool& flag = next ? insns_.back().dep.pushNext : insns_.back().dep.pushPrev;
    if (!flag) {
      flag = true;
      return;
    }
  }
  DepFlags dep;
  (next ? dep.pushNext : dep.pushPrev) = true;
  append(Instruction::nop(f, dep), f, "depPush");  // pops were committed above
}

// ---- execution ----

void CommandQueue::setDebugFlags(uint32_t flags, std::ostream* dump) {
  if (flags & kDebugForceSerial) {
    fail("force-serial mode (flag 32) is not supported by Tessera's runtime", "setDebugFlags");
  }
  debugFlags_ = flags;
  dump_ = dump;
}

void CommandQueue::synchronize(uint32_t waitCycles) {
  (void)waitCycles;  // the functional simulator has no notion of time
  run(false);
}

void CommandQueue::run(bool automatic) {
  // Completion protocol: FINISH waits for the last store and the last load (spec §5.7).
  depPush(3, 2);
  depPush(1, 2);
  depPop(3, 2);
  depPop(1, 2);
  commitPendingPop(Stage::kCompute);
  for (int s = 1; s <= 3; ++s) {
    TS_CHECK(!pending_[s].popPrev && !pending_[s].popNext) << "pending pop at FINISH, stage " << s;
  }
  Instruction finish;
  finish.opcode = Opcode::kFinish;
  append(finish, Stage::kCompute, "synchronize");
  TS_CHECK(insns_.size() * Config::kInsnElemBytes <= options_.maxXferBytes)
      << "instruction stream exceeds VTA_MAX_XFER";

  std::vector<EncodedInstruction> stream;
  stream.reserve(insns_.size());
  for (const Instruction& insn : insns_) stream.push_back(layout_.encode(insn));
  if ((debugFlags_ & kDebugDumpInsn) && dump_) *dump_ << disassemble(insns_);
  if (capture_ != nullptr) {
    Program program{cfg_, stream, {}};
    for (const DramRange& r : dram_->allocations()) {
      const uint8_t* p = dram_->translate(r.physAddr, r.nbytes);
      program.dram.push_back(DramSegment{r.physAddr, std::vector<uint8_t>(p, p + r.nbytes)});
    }
    capture_->push_back(std::move(program));
  }
  lastRun_ = std::move(insns_);
  insns_.clear();
  uopSram_.reset();
  stagingChunk_ = 0;
  stagingOffset_ = 0;
  stagedUops_ = 0;
  ++runCount_;
  // An automatic mid-program run may leave tokens that the program's next instructions consume.
  sim_->run(stream, RunOptions{.allowLeftoverTokens = automatic});
}

}  // namespace tessera::vta
