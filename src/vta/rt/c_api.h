// The VTA runtime's C interface, with the names and signatures of TVM's vta/runtime/runtime.h:
// what code generated for a VTA target calls. Each function acts on the calling thread's command
// queue (VTATLSCommandHandle). registerCFunctions() adds them to the runtime's C-function
// registry (runtime/c_functions.h), so compiled code reaches them through its slots
// (`__VTALoadBuffer2D`, ...) exactly as it reaches the CPU runtime.
//
// Errors never unwind through generated code: a function that fails records the diagnostic
// (TesseraGetLastError() gives its text; takeCApiError() the whole diagnostic), returns -1 where
// it returns an int, and the thread's queue ignores every later call until takeCApiError().
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "support/diagnostic.h"
#include "vta/rt/runtime.h"

extern "C" {

typedef void* VTACommandHandle;

VTACommandHandle VTATLSCommandHandle();
void* VTABufferAlloc(size_t size);
void VTABufferFree(void* buffer);
/// kind_mask: 1 host to device (`to` is a buffer), 2 device to host (`from` is a buffer).
void VTABufferCopy(const void* from, size_t from_offset, void* to, size_t to_offset, size_t size,
                   int kind_mask);
void* VTABufferCPUPtr(VTACommandHandle cmd, void* buffer);
void VTASetDebugMode(VTACommandHandle cmd, int debug_flag);
void VTALoadBuffer2D(VTACommandHandle cmd, void* src_dram_addr, uint32_t src_elem_offset,
                     uint32_t x_size, uint32_t y_size, uint32_t x_stride, uint32_t x_pad_before,
                     uint32_t y_pad_before, uint32_t x_pad_after, uint32_t y_pad_after,
                     uint32_t dst_sram_index, uint32_t dst_memory_type);
void VTAStoreBuffer2D(VTACommandHandle cmd, uint32_t src_sram_index, uint32_t src_memory_type,
                      void* dst_dram_addr, uint32_t dst_elem_offset, uint32_t x_size,
                      uint32_t y_size, uint32_t x_stride);
void VTAUopPush(uint32_t mode, uint32_t reset_out, uint32_t dst_index, uint32_t src_index,
                uint32_t wgt_index, uint32_t opcode, uint32_t use_imm, int32_t imm_val);
void VTAUopLoopBegin(uint32_t extent, uint32_t dst_factor, uint32_t src_factor,
                     uint32_t wgt_factor);
void VTAUopLoopEnd();
/// `*uop_handle` is the call site's kernel cache (created on first use); `signature` holds the
/// closure (nbytes 0 or 4: one int32, as TVM's runtime accepts); finit records the micro-ops.
int VTAPushGEMMOp(void** uop_handle, int (*finit)(void*), void* signature, int nbytes);
int VTAPushALUOp(void** uop_handle, int (*finit)(void*), void* signature, int nbytes);
int VTADepPush(VTACommandHandle cmd, int from_qid, int to_qid);
int VTADepPop(VTACommandHandle cmd, int from_qid, int to_qid);
void VTASynchronize(VTACommandHandle cmd, uint32_t wait_cycles);

}  // extern "C"

namespace tessera::vta {

/// Makes `queue` the calling thread's command queue (nullptr: back to a lazily created queue of
/// the standard configuration). The queue must outlive its use.
void setThreadCommandQueue(CommandQueue* queue);
/// The diagnostic of the first failed C call on this thread since the last take, and clears it.
std::optional<Diagnostic> takeCApiError();
/// Registers every function above in the runtime's C-function registry under its slot name
/// ("__" + the function's name). Idempotent.
void registerCFunctions();

}  // namespace tessera::vta
