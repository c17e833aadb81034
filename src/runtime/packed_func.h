// Packed functions: type-erased callables taking a list of tagged values (tensors, integers,
// floats, strings), and the process-wide registry through which user C++ code publishes them by
// name ("env.linear") for the VM's call_dps_packed to find.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "runtime/ndarray.h"

namespace tessera {

/// One argument or result of a packed function: null, an integer, a float, a string or a tensor.
class PackedValue {
 public:
  PackedValue() = default;
  PackedValue(NDArray value) : value_(std::move(value)) {}         // NOLINT: implicit on purpose
  PackedValue(int64_t value) : value_(value) {}                    // NOLINT
  PackedValue(int value) : value_(static_cast<int64_t>(value)) {}  // NOLINT
  PackedValue(double value) : value_(value) {}                     // NOLINT
  PackedValue(std::string value) : value_(std::move(value)) {}     // NOLINT
  PackedValue(const char* value) : value_(std::string(value)) {}   // NOLINT

  bool isNull() const { return std::holds_alternative<std::monostate>(value_); }
  bool isTensor() const { return std::holds_alternative<NDArray>(value_); }
  bool isInt() const { return std::holds_alternative<int64_t>(value_); }
  bool isFloat() const { return std::holds_alternative<double>(value_); }
  bool isString() const { return std::holds_alternative<std::string>(value_); }

  /// The held value; a DiagnosticError (code "packed_arg") names the expected and actual kind.
  const NDArray& tensor() const;
  int64_t toInt() const;
  double toFloat() const;  ///< integers convert
  const std::string& str() const;
  /// "tensor", "int", "float", "str" or "null".
  const char* kindName() const;

 private:
  std::variant<std::monostate, int64_t, double, std::string, NDArray> value_;
};

/// The arguments of one call.
using PackedArgs = std::span<const PackedValue>;
/// A packed function. Destination-passing functions return a null PackedValue.
using PackedFunc = std::function<PackedValue(PackedArgs)>;

/// Registers `fn` under `name`. Registering a taken name is a DiagnosticError (code
/// "packed_func_exists") unless `override` is set, as TVM's register_func(override=True).
void registerGlobal(const std::string& name, PackedFunc fn, bool override = false);
/// The function registered under `name`, or null. The pointer stays valid until `name` is
/// registered again or removed; callers that keep a function copy it.
const PackedFunc* findGlobal(const std::string& name);
/// The function registered under `name`; DiagnosticError (code "packed_func_missing") otherwise.
PackedFunc getGlobal(const std::string& name);
/// Removes `name`; returns whether it was registered.
bool removeGlobal(const std::string& name);
/// Registered names in sorted order.
std::vector<std::string> listGlobals();

/// Checks that a packed function got `count` arguments; `fn` names it in the error.
void checkArgCount(const std::string& fn, PackedArgs args, size_t count);

}  // namespace tessera
