// The C interface over CommandQueue: handles are the thread's queue and heap-held DeviceBuffers;
// every call catches the runtime's diagnostics so that none unwinds through generated code.
#include "vta/rt/c_api.h"

#include <memory>
#include <mutex>
#include <vector>

#include "runtime/c_functions.h"
#include "runtime/thread_pool.h"

namespace tessera::vta {
namespace {

struct ThreadState {
  std::unique_ptr<CommandQueue> own;  // created on first use when no queue was set
  CommandQueue* queue = nullptr;
  std::optional<Diagnostic> error;
};

thread_local ThreadState state;

CommandQueue& threadQueue() {
  if (!state.queue) {
    if (!state.own) state.own = std::make_unique<CommandQueue>();
    state.queue = state.own.get();
  }
  return *state.queue;
}

CommandQueue& queueOf(VTACommandHandle cmd) {
  return cmd ? *static_cast<CommandQueue*>(cmd) : threadQueue();
}

const DeviceBuffer& bufferOf(const void* handle) {
  if (!handle) throwDiagnostic("vta_runtime", "a null buffer handle");
  return *static_cast<const DeviceBuffer*>(handle);
}

// Runs `body` unless an earlier call failed; a diagnostic is recorded, not thrown. Returns 0 or
// -1, for the functions that return an int.
template <typename F>
int guarded(const char* call, F&& body) {
  if (state.error) return -1;
  try {
    body();
    return 0;
  } catch (const DiagnosticError& e) {
    state.error = e.diagnostic();
    if (state.error->context.empty()) state.error->context = call;
    TesseraAPISetLastError(state.error->str().c_str());
    return -1;
  }
}

// A call site's micro-op kernel cache, owned here (compiled code only holds the pointer).
UopKernelCache* newSiteCache() {
  static std::mutex mutex;
  static auto* caches = new std::vector<std::unique_ptr<UopKernelCache>>;  // for the process
  std::lock_guard<std::mutex> lock(mutex);
  caches->push_back(std::make_unique<UopKernelCache>());
  return caches->back().get();
}

int pushKernel(bool gemm, void** handle, int (*finit)(void*), void* signature, int nbytes) {
  return guarded(gemm ? "VTAPushGEMMOp" : "VTAPushALUOp", [&] {
    if (!handle) throwDiagnostic("vta_runtime", "a null micro-op kernel handle");
    if (nbytes != 0 && nbytes != 4)
      throwDiagnostic("vta_runtime", "a micro-op kernel closure must be one int32 (got " +
                                         std::to_string(nbytes) + " bytes)");
    // The cache lives as long as the call site's handle, as TVM's UopKernelMap does: the
    // handle is a static cell of compiled code, so the caches are kept for the process.
    if (!*handle) *handle = newSiteCache();
    auto& site = *static_cast<UopKernelCache*>(*handle);
    std::optional<int32_t> closure;
    if (nbytes == 4) closure = *static_cast<const int32_t*>(signature);
    UopKernelRecorder record = [&](int32_t) {
      if (finit(signature) != 0) throwDiagnostic("vta_runtime", "the kernel's recorder failed");
    };
    CommandQueue& q = threadQueue();
    if (gemm)
      q.pushGemmOp(site, closure, record);
    else
      q.pushAluOp(site, closure, record);
  });
}

}  // namespace

void setThreadCommandQueue(CommandQueue* queue) {
  state.queue = queue;
}

std::optional<Diagnostic> takeCApiError() {
  std::optional<Diagnostic> error = std::move(state.error);
  state.error.reset();
  return error;
}

void registerCFunctions() {
  static std::once_flag once;
  std::call_once(once, [] {
    const std::pair<const char*, void*> functions[] = {
        {"VTATLSCommandHandle", reinterpret_cast<void*>(&VTATLSCommandHandle)},
        {"VTABufferAlloc", reinterpret_cast<void*>(&VTABufferAlloc)},
        {"VTABufferFree", reinterpret_cast<void*>(&VTABufferFree)},
        {"VTABufferCopy", reinterpret_cast<void*>(&VTABufferCopy)},
        {"VTABufferCPUPtr", reinterpret_cast<void*>(&VTABufferCPUPtr)},
        {"VTASetDebugMode", reinterpret_cast<void*>(&VTASetDebugMode)},
        {"VTALoadBuffer2D", reinterpret_cast<void*>(&VTALoadBuffer2D)},
        {"VTAStoreBuffer2D", reinterpret_cast<void*>(&VTAStoreBuffer2D)},
        {"VTAUopPush", reinterpret_cast<void*>(&VTAUopPush)},
        {"VTAUopLoopBegin", reinterpret_cast<void*>(&VTAUopLoopBegin)},
        {"VTAUopLoopEnd", reinterpret_cast<void*>(&VTAUopLoopEnd)},
        {"VTAPushGEMMOp", reinterpret_cast<void*>(&VTAPushGEMMOp)},
        {"VTAPushALUOp", reinterpret_cast<void*>(&VTAPushALUOp)},
        {"VTADepPush", reinterpret_cast<void*>(&VTADepPush)},
        {"VTADepPop", reinterpret_cast<void*>(&VTADepPop)},
        {"VTASynchronize", reinterpret_cast<void*>(&VTASynchronize)},
    };
    for (const auto& [name, address] : functions)
      runtime::registerCFunction(std::string("__") + name, address);
  });
}

}  // namespace tessera::vta

using tessera::vta::DeviceBuffer;
using tessera::vta::MemType;

extern "C" {

VTACommandHandle VTATLSCommandHandle() {
  return &tessera::vta::threadQueue();
}

void* VTABufferAlloc(size_t size) {
  void* handle = nullptr;
  tessera::vta::guarded("VTABufferAlloc", [&] {
    handle = new DeviceBuffer(tessera::vta::threadQueue().bufferAlloc(size));
  });
  return handle;
}

void VTABufferFree(void* buffer) {
  tessera::vta::guarded("VTABufferFree", [&] {
    tessera::vta::threadQueue().bufferFree(tessera::vta::bufferOf(buffer));
    delete static_cast<DeviceBuffer*>(buffer);
  });
}

void VTABufferCopy(const void* from, size_t from_offset, void* to, size_t to_offset, size_t size,
                   int kind_mask) {
  tessera::vta::guarded("VTABufferCopy", [&] {
    auto& q = tessera::vta::threadQueue();
    if (kind_mask == 1) {
      q.bufferCopyIn(static_cast<const char*>(from) + from_offset, tessera::vta::bufferOf(to),
                     to_offset, size);
    } else if (kind_mask == 2) {
      q.bufferCopyOut(tessera::vta::bufferOf(from), from_offset, static_cast<char*>(to) + to_offset,
                      size);
    } else {
      tessera::throwDiagnostic("vta_runtime",
                               "copy kind " + std::to_string(kind_mask) +
                                   " (expected 1: host to device, 2: device to host)");
    }
  });
}

void* VTABufferCPUPtr(VTACommandHandle cmd, void* buffer) {
  void* ptr = nullptr;
  tessera::vta::guarded("VTABufferCPUPtr", [&] {
    ptr = tessera::vta::queueOf(cmd).bufferCpuPtr(tessera::vta::bufferOf(buffer));
  });
  return ptr;
}

void VTASetDebugMode(VTACommandHandle cmd, int debug_flag) {
  tessera::vta::guarded("VTASetDebugMode", [&] {
    tessera::vta::queueOf(cmd).setDebugFlags(static_cast<uint32_t>(debug_flag));
  });
}

void VTALoadBuffer2D(VTACommandHandle cmd, void* src_dram_addr, uint32_t src_elem_offset,
                     uint32_t x_size, uint32_t y_size, uint32_t x_stride, uint32_t x_pad_before,
                     uint32_t y_pad_before, uint32_t x_pad_after, uint32_t y_pad_after,
                     uint32_t dst_sram_index, uint32_t dst_memory_type) {
  tessera::vta::guarded("VTALoadBuffer2D", [&] {
    if (dst_memory_type > static_cast<uint32_t>(MemType::kAcc8Bit))
      tessera::throwDiagnostic(
          "vta_runtime", "memory type " + std::to_string(dst_memory_type) + " (expected 0-5)");
    tessera::vta::queueOf(cmd).loadBuffer2D(tessera::vta::bufferOf(src_dram_addr), src_elem_offset,
                                            x_size, y_size, x_stride, x_pad_before, y_pad_before,
                                            x_pad_after, y_pad_after, dst_sram_index,
                                            static_cast<MemType>(dst_memory_type));
  });
}

void VTAStoreBuffer2D(VTACommandHandle cmd, uint32_t src_sram_index, uint32_t src_memory_type,
                      void* dst_dram_addr, uint32_t dst_elem_offset, uint32_t x_size,
                      uint32_t y_size, uint32_t x_stride) {
  tessera::vta::guarded("VTAStoreBuffer2D", [&] {
    if (src_memory_type > static_cast<uint32_t>(MemType::kAcc8Bit))
      tessera::throwDiagnostic(
          "vta_runtime", "memory type " + std::to_string(src_memory_type) + " (expected 0-5)");
    tessera::vta::queueOf(cmd).storeBuffer2D(src_sram_index, static_cast<MemType>(src_memory_type),
                                             tessera::vta::bufferOf(dst_dram_addr), dst_elem_offset,
                                             x_size, y_size, x_stride);
  });
}

void VTAUopPush(uint32_t mode, uint32_t reset_out, uint32_t dst_index, uint32_t src_index,
                uint32_t wgt_index, uint32_t opcode, uint32_t use_imm, int32_t imm_val) {
  tessera::vta::guarded("VTAUopPush", [&] {
    tessera::vta::threadQueue().uopPush(static_cast<int>(mode), static_cast<int>(reset_out),
                                        dst_index, src_index, wgt_index, static_cast<int>(opcode),
                                        static_cast<int>(use_imm), imm_val);
  });
}

void VTAUopLoopBegin(uint32_t extent, uint32_t dst_factor, uint32_t src_factor,
                     uint32_t wgt_factor) {
  tessera::vta::guarded("VTAUopLoopBegin", [&] {
    tessera::vta::threadQueue().uopLoopBegin(extent, dst_factor, src_factor, wgt_factor);
  });
}

void VTAUopLoopEnd() {
  tessera::vta::guarded("VTAUopLoopEnd", [&] { tessera::vta::threadQueue().uopLoopEnd(); });
}

int VTAPushGEMMOp(void** uop_handle, int (*finit)(void*), void* signature, int nbytes) {
  return tessera::vta::pushKernel(true, uop_handle, finit, signature, nbytes);
}

int VTAPushALUOp(void** uop_handle, int (*finit)(void*), void* signature, int nbytes) {
  return tessera::vta::pushKernel(false, uop_handle, finit, signature, nbytes);
}

int VTADepPush(VTACommandHandle cmd, int from_qid, int to_qid) {
  return tessera::vta::guarded("VTADepPush",
                               [&] { tessera::vta::queueOf(cmd).depPush(from_qid, to_qid); });
}

int VTADepPop(VTACommandHandle cmd, int from_qid, int to_qid) {
  return tessera::vta::guarded("VTADepPop",
                               [&] { tessera::vta::queueOf(cmd).depPop(from_qid, to_qid); });
}

void VTASynchronize(VTACommandHandle cmd, uint32_t wait_cycles) {
  tessera::vta::guarded("VTASynchronize",
                        [&] { tessera::vta::queueOf(cmd).synchronize(wait_cycles); });
}

}  // extern "C"
