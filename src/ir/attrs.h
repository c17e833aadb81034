// Typed attribute structs for operators. A struct declares its fields once, in a static `fields`
// function that names each member and says whether it has a default; printing (non-default fields
// only), parsing from key=value pairs, equality and hashing are derived from that list.
//
//   struct ClipAttrs {
//     static constexpr const char* kTypeKey = "relay.attrs.ClipAttrs";
//     double aMin = 0, aMax = 0;
//     template <typename V> static void fields(V& v) {
//       v.required("a_min", &ClipAttrs::aMin);
//       v.required("a_max", &ClipAttrs::aMax);
//     }
//   };
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ir/attr_value.h"

namespace tessera {

/// How a field relates to its default value.
enum class FieldMode : uint8_t {
  kDefault,      ///< printed only when it differs from the default; may be omitted in text
  kAlwaysShown,  ///< has no declared default (None unless given): always printed, may be omitted
  kRequired,     ///< must be given in text; always printed
};

/// Base of every attribute struct. Immutable once attached to a Call.
class AttrsNode {
 public:
  virtual ~AttrsNode() = default;
  /// "relay.attrs.Conv2DAttrs".
  virtual const char* typeKey() const = 0;
  virtual std::vector<std::string> fieldNames() const = 0;
  virtual std::vector<FieldMode> fieldModes() const = 0;
  /// Field values in declaration order.
  virtual std::vector<AttrValue> values() const = 0;
  /// Values of a default-constructed instance.
  virtual std::vector<AttrValue> defaultValues() const = 0;
  /// Sets a field from a dynamic value; returns an error message (empty on success).
  virtual std::string setField(const std::string& name, const AttrValue& value) = 0;
  virtual std::shared_ptr<AttrsNode> clone() const = 0;

  /// The value of one field by name (None if there is no such field).
  AttrValue get(const std::string& name) const;
  /// `key=value` pairs for printing: fields that differ from the default plus those always shown.
  std::vector<std::pair<std::string, AttrValue>> printedFields() const;
  /// "padding=[1, 1, 1, 1], channels=48" — the printed fields joined.
  std::string nonDefaultString() const;
  bool equals(const AttrsNode& other) const;
  uint64_t hash() const;
};

/// Conversion between C++ member types and AttrValue. Each returns an error message, empty on
/// success.
AttrValue toAttrValue(int64_t v);
AttrValue toAttrValue(int v);
AttrValue toAttrValue(double v);
AttrValue toAttrValue(bool v);
AttrValue toAttrValue(const std::string& v);
AttrValue toAttrValue(const DataType& v);
AttrValue toAttrValue(const std::vector<int64_t>& v);
AttrValue toAttrValue(const std::vector<double>& v);
AttrValue toAttrValue(const std::vector<std::vector<int64_t>>& v);
AttrValue toAttrValue(const AttrValue& v);
template <typename T>
AttrValue toAttrValue(const std::optional<T>& v) {
  return v ? toAttrValue(*v) : AttrValue();
}

std::string fromAttrValue(const AttrValue& a, int64_t& out);
std::string fromAttrValue(const AttrValue& a, int& out);
std::string fromAttrValue(const AttrValue& a, double& out);
std::string fromAttrValue(const AttrValue& a, bool& out);
std::string fromAttrValue(const AttrValue& a, std::string& out);
std::string fromAttrValue(const AttrValue& a, DataType& out);
std::string fromAttrValue(const AttrValue& a, std::vector<int64_t>& out);
std::string fromAttrValue(const AttrValue& a, std::vector<double>& out);
std::string fromAttrValue(const AttrValue& a, std::vector<std::vector<int64_t>>& out);
std::string fromAttrValue(const AttrValue& a, AttrValue& out);
template <typename T>
std::string fromAttrValue(const AttrValue& a, std::optional<T>& out) {
  if (a.isNone()) {
    out.reset();
    return {};
  }
  T value{};
  std::string err = fromAttrValue(a, value);
  if (err.empty()) out = std::move(value);
  return err;
}

namespace detail {
template <typename T>
struct FieldCollector {
  const T* self = nullptr;
  std::vector<std::string> names;
  std::vector<FieldMode> modes;
  std::vector<AttrValue> values;
  template <typename M>
  void add(const char* name, M T::* member, FieldMode mode) {
    names.emplace_back(name);
    modes.push_back(mode);
    if (self) values.push_back(toAttrValue(self->*member));
  }
  template <typename M>
  void operator()(const char* name, M T::* member) {
    add(name, member, FieldMode::kDefault);
  }
  template <typename M>
  void required(const char* name, M T::* member) {
    add(name, member, FieldMode::kRequired);
  }
  template <typename M>
  void alwaysShown(const char* name, M T::* member) {
    add(name, member, FieldMode::kAlwaysShown);
  }
};

template <typename T>
struct FieldSetter {
  T* self;
  const std::string& name;
  const AttrValue& value;
  bool found = false;
  std::string error;
  template <typename M>
  void set(const char* fieldName, M T::* member) {
    if (found || name != fieldName) return;
    found = true;
    error = fromAttrValue(value, self->*member);
  }
  template <typename M>
  void operator()(const char* n, M T::* m) {
    set(n, m);
  }
  template <typename M>
  void required(const char* n, M T::* m) {
    set(n, m);
  }
  template <typename M>
  void alwaysShown(const char* n, M T::* m) {
    set(n, m);
  }
};
}  // namespace detail

/// The AttrsNode holding a plain attribute struct T (an aggregate, so callers can write
/// `Conv2DAttrs{.strides = {2, 2}, .channels = 32}`); every AttrsNode method derives from
/// `T::fields`.
template <typename T>
class TypedAttrs final : public AttrsNode {
 public:
  TypedAttrs() = default;
  explicit TypedAttrs(T v) : value(std::move(v)) {}
  T value;

  const char* typeKey() const override { return T::kTypeKey; }
  std::vector<std::string> fieldNames() const override { return collect(nullptr).names; }
  std::vector<FieldMode> fieldModes() const override { return collect(nullptr).modes; }
  std::vector<AttrValue> values() const override { return collect(&value).values; }
  std::vector<AttrValue> defaultValues() const override {
    static const T defaults{};
    return collect(&defaults).values;
  }
  std::string setField(const std::string& name, const AttrValue& v) override {
    detail::FieldSetter<T> setter{&value, name, v, false, {}};
    T::fields(setter);
    if (!setter.found) return "unknown attribute '" + name + "' for " + T::kTypeKey;
    if (!setter.error.empty()) return "attribute '" + name + "': " + setter.error;
    return {};
  }
  std::shared_ptr<AttrsNode> clone() const override {
    return std::make_shared<TypedAttrs<T>>(value);
  }

 private:
  static detail::FieldCollector<T> collect(const T* self) {
    detail::FieldCollector<T> c;
    c.self = self;
    T::fields(c);
    return c;
  }
};

/// Wraps an attribute struct into a shareable attrs object.
template <typename T>
Attrs makeAttrs(T value) {
  return std::make_shared<TypedAttrs<T>>(std::move(value));
}

/// The struct inside an attrs object, or nullptr when it holds another type.
template <typename T>
const T* attrsAs(const AttrsNode* attrs) {
  const auto* typed = dynamic_cast<const TypedAttrs<T>*>(attrs);
  return typed ? &typed->value : nullptr;
}

/// Attribute struct types by type key, so the parser can build an attrs object for any op.
class AttrsRegistry {
 public:
  using Factory = std::function<std::shared_ptr<AttrsNode>()>;
  static AttrsRegistry& global();
  template <typename T>
  void add() {
    factories_[T::kTypeKey] = [] { return std::make_shared<TypedAttrs<T>>(); };
  }
  /// A default-constructed instance, or nullptr for an unknown key.
  std::shared_ptr<AttrsNode> create(const std::string& typeKey) const;

 private:
  std::map<std::string, Factory> factories_;
};

/// Builds an attrs object of `typeKey` from key=value pairs: unknown keys, wrongly typed values and
/// missing required fields give an error message; returns nullptr and sets `error` then.
std::shared_ptr<AttrsNode> makeAttrs(const std::string& typeKey,
                                     const std::vector<std::pair<std::string, AttrValue>>& pairs,
                                     std::string& error);

}  // namespace tessera
