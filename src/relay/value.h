// Run-time values of the graph IR: a tensor, a tuple of values, or a closure (used by the
// interpreter).
#pragma once

#include <memory>
#include <variant>
#include <vector>

#include "runtime/ndarray.h"

namespace tessera::relay {

struct ClosureData;

/// A tensor (NDArray), a tuple of values, or a function closure.
class Value {
 public:
  Value() = default;
  Value(NDArray tensor) : data_(std::move(tensor)) {}  // NOLINT: implicit by design
  static Value tuple(std::vector<Value> fields) {
    Value v;
    v.data_ = std::move(fields);
    return v;
  }
  static Value closure(std::shared_ptr<const ClosureData> c) {
    Value v;
    v.data_ = std::move(c);
    return v;
  }

  bool isTensor() const { return std::holds_alternative<NDArray>(data_); }
  bool isTuple() const { return std::holds_alternative<std::vector<Value>>(data_); }
  bool isClosure() const {
    return std::holds_alternative<std::shared_ptr<const ClosureData>>(data_);
  }
  const NDArray& tensor() const { return std::get<NDArray>(data_); }
  const std::vector<Value>& fields() const { return std::get<std::vector<Value>>(data_); }
  const std::shared_ptr<const ClosureData>& closure() const {
    return std::get<std::shared_ptr<const ClosureData>>(data_);
  }

 private:
  std::variant<NDArray, std::vector<Value>, std::shared_ptr<const ClosureData>> data_;
};

}  // namespace tessera::relay
