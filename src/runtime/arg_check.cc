// TesseraAPICheckTensorArg: the messages are those the inline prologue gave, in the same order.
#include "runtime/arg_check.h"

#include <cstddef>
#include <string>

#include "runtime/thread_pool.h"

static_assert(offsetof(TesseraTensorArgSpec, shape) == 24);
static_assert(offsetof(TesseraTensorArgSpec, ndim) == 32);
static_assert(offsetof(TesseraTensorArgSpec, dtypeCode) == 36);
static_assert(offsetof(TesseraTensorArgSpec, dtypeBits) == 37);

namespace {

int32_t fail(const TesseraTensorArgSpec& spec, const std::string& what) {
  TesseraAPISetLastError((spec.name + what).c_str());
  return -1;
}

int32_t failWith(const TesseraTensorArgSpec& spec, const std::string& what, int64_t actual) {
  TesseraAPISetLastErrorInt((spec.name + what).c_str(), actual);
  return -1;
}

}  // namespace

extern "C" int32_t TesseraAPICheckTensorArg(const DLTensor* tensor,
                                            const TesseraTensorArgSpec* spec) {
  return TesseraAPICheckDeviceTensorArg(tensor, spec, kDLCPU);
}

extern "C" int32_t TesseraAPICheckDeviceTensorArg(const DLTensor* tensor,
                                                  const TesseraTensorArgSpec* spec,
                                                  int32_t deviceType) {
  const TesseraTensorArgSpec& s = *spec;
  if (tensor == nullptr) return fail(s, " is expected to be a non-null DLTensor");
  if (tensor->ndim != s.ndim)
    return failWith(s, ".ndim is expected to equal " + std::to_string(s.ndim), tensor->ndim);
  if (tensor->dtype.code != s.dtypeCode || tensor->dtype.bits != s.dtypeBits ||
      tensor->dtype.lanes != 1)
    return fail(s, std::string(".dtype is expected to be ") + s.dtypeName);
  if (tensor->device.device_type != deviceType)
    return failWith(s,
                    ".device_type is expected to be " + std::to_string(deviceType) +
                        (deviceType == kDLCPU ? " (CPU)" : ""),
                    tensor->device.device_type);
  if (tensor->byte_offset != 0)
    return failWith(s, ".byte_offset is expected to be 0",
                    static_cast<int64_t>(tensor->byte_offset));
  int64_t numel = 1;
  for (int32_t d = 0; d < s.ndim; ++d) {
    const int64_t dim = tensor->shape[d];
    numel *= dim;
    if (s.shape[d] == kTesseraSymbolicDim || s.shape[d] == dim) continue;
    const std::string index = "[" + std::to_string(d) + "]";
    TesseraAPISetLastErrorInt(("Argument " + std::string(s.name) + ".shape" + index +
                               " has an unsatisfied constraint: " + std::to_string(s.shape[d]) +
                               " == " + s.shapeName + index)
                                  .c_str(),
                              dim);
    return -1;
  }
  // Compactness: strides, when given, must be row-major (size-1 dimensions may have any).
  if (tensor->strides != nullptr) {
    int64_t expected = 1;
    for (int32_t d = s.ndim - 1; d >= 0; --d) {
      if (tensor->strides[d] != expected && tensor->shape[d] != 1)
        return fail(s, ".strides: expected to be compact array");
      expected *= tensor->shape[d];
    }
  }
  if (tensor->data == nullptr && numel != 0) return fail(s, ".data is expected to be non-null");
  return 0;
}
