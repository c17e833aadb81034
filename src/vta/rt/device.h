// VTA as a device of the graph executor (runtime/device_api.h): one simulated accelerator — its
// own command queue, DRAM and simulator — opened from the target its kernels were compiled for.
// Buffers are the C interface's handles (heap-held DeviceBuffers), so compiled VTA kernels, which
// receive them as DLTensor data, pass them straight to VTALoadBuffer2D / VTAStoreBuffer2D.
#pragma once

#include <string>

#include "runtime/device_api.h"
#include "vta/rt/config.h"
#include "vta/rt/runtime.h"

namespace tessera::vta {

class VtaDevice : public runtime::DeviceApi {
 public:
  explicit VtaDevice(const Config& config);
  ~VtaDevice() override;

  DLDeviceType deviceType() const override { return kDLExtDev; }
  void* alloc(size_t nbytes) override;
  void free(void* handle) override;
  void copyToDevice(const void* host, void* handle, size_t nbytes) override;
  void copyFromDevice(const void* handle, void* host, size_t nbytes) override;
  /// Makes this device's queue the calling thread's (VTATLSCommandHandle).
  void activate() override;
  /// Throws the diagnostic of the first failed runtime call on this thread (takeCApiError).
  void checkError() override;

  /// The queue: its counters (stats()) and the last run's instructions (lastRun()).
  CommandQueue& queue() { return queue_; }

 private:
  CommandQueue queue_;
};

/// The hardware configuration named by a VTA target string: its `-config=F.json` when given,
/// else the standard one. DiagnosticError (vta_config) when the file does not load.
Config configOfTarget(const std::string& target);

/// Registers the `vta` device with the runtime (and the C functions its kernels call:
/// registerCFunctions). Idempotent.
void registerVtaDevice();

}  // namespace tessera::vta
