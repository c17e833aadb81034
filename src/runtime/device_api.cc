// The registry of device runtimes (device_api.h).
#include "runtime/device_api.h"

#include <map>
#include <mutex>

#include "support/diagnostic.h"

namespace tessera::runtime {

namespace {

struct Registry {
  std::mutex mutex;
  std::map<std::string, DeviceFactory> factories;
};

Registry& registry() {
  static Registry* r = new Registry;  // never destroyed: devices may close during exit
  return *r;
}

}  // namespace

void registerDeviceApi(const std::string& name, DeviceFactory factory) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.factories[name] = std::move(factory);
}

std::vector<std::string> deviceApiNames() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  std::vector<std::string> names;
  for (const auto& [name, factory] : r.factories) names.push_back(name);
  return names;
}

std::shared_ptr<DeviceApi> openDevice(const std::string& name, const std::string& target) {
  DeviceFactory factory;
  {
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    auto it = r.factories.find(name);
    if (it != r.factories.end()) factory = it->second;
  }
  if (!factory) {
    std::string known;
    for (const std::string& n : deviceApiNames()) known += (known.empty() ? "" : ", ") + n;
    throwDiagnostic("device",
                    "no runtime for device '" + name + "' is registered (registered: " +
                        (known.empty() ? "none" : known) + ")",
                    {}, name);
  }
  return factory(target);
}

}  // namespace tessera::runtime
