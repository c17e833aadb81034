// The argument check of compiled kernels' packed prologue (spec §4.3's MakePackedAPI): every
// tensor argument is compared with what the kernel was compiled for (rank, dtype, device, constant
// dimensions, compact strides, non-null data) by one call into the runtime instead of ~100 lines
// of inline IR per argument. The inline form made the prologue the largest part of many kernels
// (a 25-input concatenation) and about a third of LLVM's time on a DenseNet.
#pragma once

#include <cstdint>

#include <dlpack/dlpack.h>

extern "C" {

/// A dimension the kernel binds to a shape variable: checked inline by the kernel, not here.
constexpr int64_t kTesseraSymbolicDim = INT64_MIN;

/// What a kernel expects of one tensor argument; generated code emits it as a constant.
struct TesseraTensorArgSpec {
  const char* name;       ///< "<kernel>.<buffer>", the subject of every message
  const char* shapeName;  ///< "<kernel>_<buffer>_shape", as shape constraints name the sizes
  const char* dtypeName;  ///< e.g. "float32"
  const int64_t* shape;   ///< ndim sizes, kTesseraSymbolicDim where the kernel checks itself
  int32_t ndim;
  uint8_t dtypeCode;
  uint8_t dtypeBits;
};

/// 0 when `tensor` matches `spec`; otherwise records the first mismatch as the thread's last
/// error (TesseraGetLastError) and returns -1.
int32_t TesseraAPICheckTensorArg(const DLTensor* tensor, const TesseraTensorArgSpec* spec);
/// The same for a kernel compiled for another device: the tensor must be on `deviceType` (a
/// DLDeviceType, e.g. kDLExtDev for VTA) instead of the CPU. Not a CPU runtime slot: code that
/// calls it lists it (runtime/c_functions.h).
int32_t TesseraAPICheckDeviceTensorArg(const DLTensor* tensor, const TesseraTensorArgSpec* spec,
                                       int32_t deviceType);
}
