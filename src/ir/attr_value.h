// AttrValue: the dynamic value of one attribute (call attributes and function attributes alike).
// Typed attribute structs (attrs.h) convert their fields to and from AttrValue for printing,
// parsing, equality and hashing, so each of those is written once.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "runtime/data_type.h"

namespace tessera {

class AttrsNode;
using Attrs = std::shared_ptr<const AttrsNode>;

/// A dynamically typed attribute value: None, integer, float, bool, string, array, nested attrs
/// object.
class AttrValue {
 public:
  enum class Kind : uint8_t { kNone, kInt, kFloat, kBool, kString, kArray, kAttrs };

  AttrValue() = default;  ///< None
  static AttrValue integer(int64_t v, DataType type = DataType::int32());
  static AttrValue floating(double v, DataType type = DataType::float32());
  static AttrValue boolean(bool v);
  static AttrValue string(std::string v);
  static AttrValue array(std::vector<AttrValue> items);
  static AttrValue attrs(Attrs nested);

  Kind kind() const { return kind_; }
  bool isNone() const { return kind_ == Kind::kNone; }
  int64_t asInt() const { return int_; }
  double asFloat() const { return float_; }
  bool asBool() const { return int_ != 0; }
  const std::string& asString() const { return string_; }
  const std::vector<AttrValue>& asArray() const { return array_; }
  const Attrs& asAttrs() const { return attrs_; }
  /// The integer/float immediate's dtype (decides the printed suffix: 16i64, 1.5f64).
  DataType numberType() const { return numberType_; }

  /// Text-format spelling: 16, 16i64, -127f, 1e-05f, True, "NCHW", [1, 1], None, {k=v, ...}.
  std::string str() const;
  uint64_t hash() const;
  friend bool operator==(const AttrValue& a, const AttrValue& b);

 private:
  Kind kind_ = Kind::kNone;
  int64_t int_ = 0;
  double float_ = 0;
  DataType numberType_;
  std::string string_;
  std::vector<AttrValue> array_;
  Attrs attrs_;
};

/// "%g"-style float formatting shared by attribute and constant printing (16 -> "16", 1e-05 ->
/// "1e-05").
std::string formatFloat(double value);

/// An ordered string -> AttrValue dictionary: function attributes (Primitive=1, Composite="...").
/// Insertion order is kept because the printer shows attributes in that order.
class DictAttrs {
 public:
  DictAttrs() = default;
  /// Sets or replaces `key`, keeping its original position when replaced.
  void set(const std::string& key, AttrValue value);
  const AttrValue* find(const std::string& key) const;
  bool has(const std::string& key) const { return find(key) != nullptr; }
  void erase(const std::string& key);
  const std::vector<std::pair<std::string, AttrValue>>& entries() const { return entries_; }
  bool empty() const { return entries_.empty(); }
  friend bool operator==(const DictAttrs& a, const DictAttrs& b) {
    return a.entries_ == b.entries_;
  }
  uint64_t hash() const;

 private:
  std::vector<std::pair<std::string, AttrValue>> entries_;
};

}  // namespace tessera
