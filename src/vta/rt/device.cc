// VtaDevice (device.h).
#include "vta/rt/device.h"

#include <mutex>
#include <sstream>

#include "support/diagnostic.h"
#include "vta/rt/c_api.h"

namespace tessera::vta {

namespace {

DeviceBuffer& bufferOf(void* handle) {
  if (handle == nullptr) throwDiagnostic("vta_runtime", "a null buffer handle");
  return *static_cast<DeviceBuffer*>(handle);
}

// The thread whose queue this device set, so that closing it does not leave the thread pointing
// at a destroyed queue.
thread_local const CommandQueue* activeQueue = nullptr;

}  // namespace

VtaDevice::VtaDevice(const Config& config) : queue_(config) {}

VtaDevice::~VtaDevice() {
  if (activeQueue == &queue_) {
    setThreadCommandQueue(nullptr);
    activeQueue = nullptr;
  }
}

void* VtaDevice::alloc(size_t nbytes) {
  return new DeviceBuffer(queue_.bufferAlloc(nbytes));
}

void VtaDevice::free(void* handle) {
  DeviceBuffer& b = bufferOf(handle);
  queue_.bufferFree(b);
  delete &b;
}

void VtaDevice::copyToDevice(const void* host, void* handle, size_t nbytes) {
  queue_.bufferCopyIn(host, bufferOf(handle), 0, nbytes);
}

void VtaDevice::copyFromDevice(const void* handle, void* host, size_t nbytes) {
  queue_.bufferCopyOut(bufferOf(const_cast<void*>(handle)), 0, host, nbytes);
}

void VtaDevice::activate() {
  setThreadCommandQueue(&queue_);
  activeQueue = &queue_;
}

void VtaDevice::checkError() {
  if (std::optional<Diagnostic> error = takeCApiError()) throw DiagnosticError(*error);
}

Config configOfTarget(const std::string& target) {
  std::istringstream words(target);
  for (std::string word; words >> word;)
    if (word.rfind("-config=", 0) == 0) return loadConfig(word.substr(8));
  return Config::defaults();
}

void registerVtaDevice() {
  static std::once_flag once;
  std::call_once(once, [] {
    registerCFunctions();
    runtime::registerDeviceApi("vta", [](const std::string& target) {
      return std::make_shared<VtaDevice>(configOfTarget(target));
    });
  });
}

}  // namespace tessera::vta
