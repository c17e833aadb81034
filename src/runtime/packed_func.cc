// The global packed-function registry. A mutex guards the map because user code may register
// functions from any thread; a looked-up function is copied out so that a later override does not
// invalidate a call in flight.
#include "runtime/packed_func.h"

#include <map>
#include <memory>
#include <mutex>

#include "support/diagnostic.h"

namespace tessera {

namespace {

struct Registry {
  std::mutex mutex;
  // Stable addresses: findGlobal hands out pointers into the map's values.
  std::map<std::string, std::unique_ptr<PackedFunc>> functions;
};

Registry& registry() {
  static Registry* instance = new Registry();  // never destroyed: used during static teardown
  return *instance;
}

[[noreturn]] void wrongKind(const char* expected, const PackedValue& v) {
  throwDiagnostic("packed_arg",
                  std::string("packed argument: expected ") + expected + ", got " + v.kindName());
}

}  // namespace

const NDArray& PackedValue::tensor() const {
  if (!isTensor()) wrongKind("tensor", *this);
  return std::get<NDArray>(value_);
}

int64_t PackedValue::toInt() const {
  if (!isInt()) wrongKind("int", *this);
  return std::get<int64_t>(value_);
}

double PackedValue::toFloat() const {
  if (isInt()) return static_cast<double>(std::get<int64_t>(value_));
  if (!isFloat()) wrongKind("float", *this);
  return std::get<double>(value_);
}

const std::string& PackedValue::str() const {
  if (!isString()) wrongKind("str", *this);
  return std::get<std::string>(value_);
}

const char* PackedValue::kindName() const {
  if (isTensor()) return "tensor";
  if (isInt()) return "int";
  if (isFloat()) return "float";
  if (isString()) return "str";
  return "null";
}

void registerGlobal(const std::string& name, PackedFunc fn, bool override) {
  if (name.empty()) throwDiagnostic("packed_func_name", "registerGlobal: empty function name");
  if (!fn) throwDiagnostic("packed_func_name", "registerGlobal('" + name + "'): empty function");
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.functions.find(name);
  if (it != r.functions.end() && !override)
    throwDiagnostic("packed_func_exists", "packed function '" + name +
                                              "' is already registered (pass override=true to "
                                              "replace it)");
  r.functions[name] = std::make_unique<PackedFunc>(std::move(fn));
}

const PackedFunc* findGlobal(const std::string& name) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.functions.find(name);
  return it == r.functions.end() ? nullptr : it->second.get();
}

PackedFunc getGlobal(const std::string& name) {
  const PackedFunc* fn = findGlobal(name);
  if (!fn)
    throwDiagnostic("packed_func_missing", "no packed function named '" + name +
                                               "' is registered (register it with "
                                               "registerGlobal before running)");
  return *fn;
}

bool removeGlobal(const std::string& name) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  return r.functions.erase(name) > 0;
}

std::vector<std::string> listGlobals() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  std::vector<std::string> names;
  for (const auto& entry : r.functions) names.push_back(entry.first);
  return names;
}

void checkArgCount(const std::string& fn, PackedArgs args, size_t count) {
  if (args.size() == count) return;
  throwDiagnostic("packed_arg", fn + ": expected " + std::to_string(count) + " arguments, got " +
                                    std::to_string(args.size()));
}

}  // namespace tessera
