// Module binding (slots from the C-function registry, functions by name) and loading with dlopen.
#include "runtime/module.h"

#include <dlfcn.h>

#include <unordered_map>

#include "runtime/amx_permission.h"
#include "runtime/c_functions.h"
#include "runtime/thread_pool.h"
#include "support/diagnostic.h"

namespace tessera::runtime {

struct Module::Impl {
  std::shared_ptr<void> owner;
  std::vector<std::string> names;
  std::string entry;
  std::unordered_map<std::string, KernelFunction> functions;
  std::string unusable;  ///< why the functions may not run here ("" when they may)
};

namespace {

std::vector<std::string> splitList(const char* list) {
  std::vector<std::string> out;
  const std::string text = list ? list : "";
  for (size_t start = 0; start < text.size();) {
    size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    if (comma > start) out.push_back(text.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

// The slots the code uses: listed by the code generator; libraries written before the list
// existed define exactly the CPU runtime's.
std::vector<std::string> slotsOf(const SymbolLookup& lookup) {
  if (const auto* list = static_cast<const char*>(lookup(kSlotListSymbol))) return splitList(list);
  return cpuRuntimeSlots();
}

}  // namespace

Module Module::bind(const SymbolLookup& lookup, std::vector<std::string> names, std::string entry,
                    std::shared_ptr<void> owner, const std::string& errorCode,
                    const std::string& where) {
  auto impl = std::make_shared<Impl>();
  // Kernels compiled for a processor with AMX may use its tiles (int8 convolutions do); asking
  // costs one system call per process. Without the permission a tile instruction faults, so such
  // code binds (a build for another machine still links here) but does not run.
  if (lookup(kAmxTilesSymbol) != nullptr && !requestAmxTileData())
    impl->unusable =
        "the compiled code uses AMX tiles, which this process may not use (" + amxRefusal() +
        "); build it for a target without AMX (-mattr=-amx-tile,-amx-int8, or the host's "
        "default target, which then has none) to run the VNNI or AVX2 kernels";
  impl->owner = std::move(owner);
  impl->names = std::move(names);
  impl->entry = std::move(entry);
  for (const std::string& slot : slotsOf(lookup)) {
    void* address = findCFunction(slot);
    if (address == nullptr)
      throwDiagnostic(errorCode,
                      "compiled code needs the runtime function " + slot +
                          ", which no loaded runtime library registered",
                      {}, where);
    void* cell = lookup(slot.c_str());
    if (cell == nullptr)
      throwDiagnostic(errorCode, "compiled code lacks the runtime slot " + slot, {}, where);
    *static_cast<void**>(cell) = address;
  }
  for (const std::string& name : impl->names) {
    void* fn = lookup(name.c_str());
    if (fn == nullptr)
      throwDiagnostic(errorCode, "compiled code lacks the function '" + name + "'", {}, where);
    impl->functions[name] = reinterpret_cast<KernelFunction>(fn);
  }
  Module m;
  m.impl_ = std::move(impl);
  return m;
}

KernelFunction Module::getKernel(const std::string& name) const {
  if (!impl_) return nullptr;
  if (!impl_->unusable.empty()) throwDiagnostic("amx_permission", impl_->unusable, {}, name);
  auto it = impl_->functions.find(name);
  return it == impl_->functions.end() ? nullptr : it->second;
}

void Module::call(const std::string& name, const std::vector<NDArray>& args) const {
  KernelFunction fn = getKernel(name);
  if (fn == nullptr) throwDiagnostic("codegen_call", "no compiled function named '" + name + "'");
  std::vector<DLTensor> tensors(args.size());
  std::vector<void*> pointers(args.size(), nullptr);
  for (size_t i = 0; i < args.size(); ++i) {
    if (!args[i].defined()) continue;
    tensors[i] = args[i].dlTensor();
    pointers[i] = &tensors[i];
  }
  if (fn(pointers.data(), static_cast<int32_t>(args.size())) != 0)
    throwDiagnostic("codegen_call", TesseraGetLastError(), {}, name);
}

PackedFunc Module::getFunction(const std::string& name) const {
  if (!getKernel(name)) return nullptr;
  // The copy of the module keeps the code loaded for as long as the function lives.
  return [module = *this, name](PackedArgs args) -> PackedValue {
    std::vector<NDArray> tensors;
    for (const PackedValue& a : args) tensors.push_back(a.tensor());
    module.call(name, tensors);
    return {};
  };
}

const std::vector<std::string>& Module::functionNames() const {
  static const std::vector<std::string> none;
  return impl_ ? impl_->names : none;
}

std::string Module::entryName() const {
  return impl_ ? impl_->entry : "";
}

Module loadModule(const std::string& path) {
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) throwDiagnostic("codegen_load", dlerror(), {}, path);
  std::shared_ptr<void> owner(handle, [](void* h) { dlclose(h); });
  const auto* list = static_cast<const char*>(dlsym(handle, kFunctionListSymbol));
  if (list == nullptr)
    throwDiagnostic("codegen_load", "not a library exported by Tessera", {}, path);
  const auto* entry = static_cast<const char*>(dlsym(handle, kEntryNameSymbol));
  return Module::bind([handle](const char* symbol) { return dlsym(handle, symbol); },
                      splitList(list), entry ? entry : "", std::move(owner), "codegen_load", path);
}

}  // namespace tessera::runtime
