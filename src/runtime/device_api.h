// Devices other than the CPU, as the runtime sees them: memory the device owns, copies between it
// and host memory, and the device's own errors. Each device runtime (VTA's in vta/rt) registers a
// factory under the device's name; the graph executor opens the devices its description names
// (GraphDescription::devices) through it, so the runtime needs nothing from any device library.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <dlpack/dlpack.h>

namespace tessera::runtime {

/// One opened device. Handles are the device's buffer handles, which its kernels receive as a
/// DLTensor's data (device type deviceType()). Methods throw DiagnosticError on failure.
class DeviceApi {
 public:
  virtual ~DeviceApi() = default;
  /// The DLPack device type its kernels check their tensor arguments against.
  virtual DLDeviceType deviceType() const = 0;
  virtual void* alloc(size_t nbytes) = 0;
  virtual void free(void* handle) = 0;
  virtual void copyToDevice(const void* host, void* handle, size_t nbytes) = 0;
  virtual void copyFromDevice(const void* handle, void* host, size_t nbytes) = 0;
  /// Makes this device the one the calling thread's kernels talk to (before they run).
  virtual void activate() = 0;
  /// After kernels ran: throws the first error the device recorded since the last check (device
  /// runtimes do not unwind through compiled code).
  virtual void checkError() = 0;
};

/// Opens a device from the target its kernels were compiled for (e.g. "vta -config=F.json").
using DeviceFactory = std::function<std::shared_ptr<DeviceApi>(const std::string& target)>;

/// Registers `factory` for devices named `name` (replacing an earlier one).
void registerDeviceApi(const std::string& name, DeviceFactory factory);
/// Opens device `name` for `target`. DiagnosticError (code "device") when no runtime for it is
/// registered, listing the registered ones.
std::shared_ptr<DeviceApi> openDevice(const std::string& name, const std::string& target);
/// The registered device names, sorted.
std::vector<std::string> deviceApiNames();

}  // namespace tessera::runtime
