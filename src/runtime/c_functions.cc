// The C-function registry, with the CPU runtime's functions registered on first use.
#include "runtime/c_functions.h"

#include <algorithm>
#include <map>
#include <mutex>

#include "runtime/arg_check.h"
#include "runtime/thread_pool.h"

namespace tessera::runtime {
namespace {

struct Registry {
  std::mutex mutex;
  std::map<std::string, void*> functions;
};

Registry& registry() {
  static Registry* r = [] {
    auto* fresh = new Registry;  // never destroyed: compiled code may run during exit
    const std::pair<const char*, void*> cpu[] = {
        {"__TesseraBackendParallelLaunch", reinterpret_cast<void*>(&TesseraBackendParallelLaunch)},
        {"__TesseraBackendParallelBarrier",
         reinterpret_cast<void*>(&TesseraBackendParallelBarrier)},
        {"__TesseraBackendAllocWorkspace", reinterpret_cast<void*>(&TesseraBackendAllocWorkspace)},
        {"__TesseraBackendFreeWorkspace", reinterpret_cast<void*>(&TesseraBackendFreeWorkspace)},
        {"__TesseraAPISetLastError", reinterpret_cast<void*>(&TesseraAPISetLastError)},
        {"__TesseraAPISetLastErrorInt", reinterpret_cast<void*>(&TesseraAPISetLastErrorInt)},
        {"__TesseraAPICheckTensorArg", reinterpret_cast<void*>(&TesseraAPICheckTensorArg)},
        {"__TesseraAPICheckDeviceTensorArg",
         reinterpret_cast<void*>(&TesseraAPICheckDeviceTensorArg)},
    };
    for (const auto& [slot, address] : cpu) fresh->functions[slot] = address;
    return fresh;
  }();
  return *r;
}

}  // namespace

void registerCFunction(const std::string& slot, void* address) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.functions[slot] = address;
}

void* findCFunction(const std::string& slot) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.functions.find(slot);
  return it == r.functions.end() ? nullptr : it->second;
}

std::vector<std::string> cFunctionSlots() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  std::vector<std::string> out;
  for (const auto& [slot, address] : r.functions) out.push_back(slot);
  return out;
}

const std::vector<std::string>& cpuRuntimeSlots() {
  static const std::vector<std::string> slots = {
      "__TesseraBackendParallelLaunch", "__TesseraBackendParallelBarrier",
      "__TesseraBackendAllocWorkspace", "__TesseraBackendFreeWorkspace",
      "__TesseraAPISetLastError",       "__TesseraAPISetLastErrorInt",
      "__TesseraAPICheckTensorArg",
  };
  return slots;
}

}  // namespace tessera::runtime
