#include "ir/attrs.h"

#include <cmath>
#include <set>

#include "support/hash.h"

namespace tessera {

AttrValue AttrsNode::get(const std::string& name) const {
  const std::vector<std::string> names = fieldNames();
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return values()[i];
  return AttrValue();
}

std::vector<std::pair<std::string, AttrValue>> AttrsNode::printedFields() const {
  const std::vector<std::string> names = fieldNames();
  const std::vector<FieldMode> modes = fieldModes();
  const std::vector<AttrValue> vals = values();
  const std::vector<AttrValue> defaults = defaultValues();
  std::vector<std::pair<std::string, AttrValue>> out;
  for (size_t i = 0; i < names.size(); ++i) {
    if (modes[i] == FieldMode::kDefault && vals[i] == defaults[i]) continue;
    out.emplace_back(names[i], vals[i]);
  }
  return out;
}

std::string AttrsNode::nonDefaultString() const {
  std::string s;
  for (const auto& [name, value] : printedFields()) {
    if (!s.empty()) s += ", ";
    s += name + "=" + value.str();
  }
  return s;
}

bool AttrsNode::equals(const AttrsNode& other) const {
  // Field names matter for attrs whose fields are not fixed by the type (GenericAttrs from text).
  return std::string(typeKey()) == other.typeKey() && fieldNames() == other.fieldNames() &&
         values() == other.values();
}

uint64_t AttrsNode::hash() const {
  uint64_t h = hashString(typeKey());
  for (const AttrValue& v : values()) h = hashCombine(h, v.hash());
  return h;
}

AttrValue toAttrValue(int64_t v) {
  return AttrValue::integer(v);
}
AttrValue toAttrValue(int v) {
  return AttrValue::integer(v);
}
AttrValue toAttrValue(double v) {
  return AttrValue::floating(v);
}
AttrValue toAttrValue(bool v) {
  return AttrValue::boolean(v);
}
AttrValue toAttrValue(const std::string& v) {
  return AttrValue::string(v);
}
AttrValue toAttrValue(const DataType& v) {
  return AttrValue::string(v.name());
}
AttrValue toAttrValue(const AttrValue& v) {
  return v;
}
AttrValue toAttrValue(const std::vector<int64_t>& v) {
  std::vector<AttrValue> items;
  for (int64_t x : v) items.push_back(AttrValue::integer(x));
  return AttrValue::array(std::move(items));
}
AttrValue toAttrValue(const std::vector<double>& v) {
  std::vector<AttrValue> items;
  for (double x : v) items.push_back(AttrValue::floating(x));
  return AttrValue::array(std::move(items));
}
AttrValue toAttrValue(const std::vector<std::vector<int64_t>>& v) {
  std::vector<AttrValue> items;
  for (const auto& row : v) items.push_back(toAttrValue(row));
  return AttrValue::array(std::move(items));
}

std::string fromAttrValue(const AttrValue& a, int64_t& out) {
  if (a.kind() == AttrValue::Kind::kInt || a.kind() == AttrValue::Kind::kBool) {
    out = a.asInt();
    return {};
  }
  return "expected an integer but found " + a.str();
}

std::string fromAttrValue(const AttrValue& a, int& out) {
  int64_t v = 0;
  std::string err = fromAttrValue(a, v);
  if (!err.empty()) return err;
  if (v < INT32_MIN || v > INT32_MAX)
    return "value " + std::to_string(v) + " does not fit in int32";
  out = static_cast<int>(v);
  return {};
}

std::string fromAttrValue(const AttrValue& a, double& out) {
  if (a.kind() == AttrValue::Kind::kFloat) {
    out = a.asFloat();
    return {};
  }
  if (a.kind() == AttrValue::Kind::kInt) {
    out = static_cast<double>(a.asInt());
    return {};
  }
  return "expected a number but found " + a.str();
}

std::string fromAttrValue(const AttrValue& a, bool& out) {
  if (a.kind() == AttrValue::Kind::kBool || a.kind() == AttrValue::Kind::kInt) {
    out = a.asInt() != 0;
    return {};
  }
  return "expected a boolean but found " + a.str();
}

std::string fromAttrValue(const AttrValue& a, std::string& out) {
  if (a.kind() != AttrValue::Kind::kString) return "expected a string but found " + a.str();
  out = a.asString();
  return {};
}

std::string fromAttrValue(const AttrValue& a, DataType& out) {
  if (a.kind() != AttrValue::Kind::kString) return "expected a dtype string but found " + a.str();
  std::optional<DataType> t = DataType::parse(a.asString());
  if (!t) return "unknown dtype \"" + a.asString() + "\"";
  out = *t;
  return {};
}

std::string fromAttrValue(const AttrValue& a, std::vector<int64_t>& out) {
  // A bare integer is accepted where a list is expected (kernel_size=3 means [3]).
  if (a.kind() == AttrValue::Kind::kInt) {
    out = {a.asInt()};
    return {};
  }
  if (a.kind() != AttrValue::Kind::kArray)
    return "expected a list of integers but found " + a.str();
  out.clear();
  for (const AttrValue& item : a.asArray()) {
    if (item.kind() != AttrValue::Kind::kInt)
      return "expected a list of integers but found " + a.str();
    out.push_back(item.asInt());
  }
  return {};
}

std::string fromAttrValue(const AttrValue& a, std::vector<double>& out) {
  if (a.kind() != AttrValue::Kind::kArray) return "expected a list of numbers but found " + a.str();
  out.clear();
  for (const AttrValue& item : a.asArray()) {
    double v = 0;
    if (!fromAttrValue(item, v).empty()) return "expected a list of numbers but found " + a.str();
    out.push_back(v);
  }
  return {};
}

std::string fromAttrValue(const AttrValue& a, std::vector<std::vector<int64_t>>& out) {
  if (a.kind() != AttrValue::Kind::kArray)
    return "expected a list of integer lists but found " + a.str();
  out.clear();
  for (const AttrValue& item : a.asArray()) {
    std::vector<int64_t> row;
    if (item.kind() != AttrValue::Kind::kArray || !fromAttrValue(item, row).empty())
      return "expected a list of integer lists but found " + a.str();
    out.push_back(std::move(row));
  }
  return {};
}

std::string fromAttrValue(const AttrValue& a, AttrValue& out) {
  out = a;
  return {};
}

AttrsRegistry& AttrsRegistry::global() {
  static AttrsRegistry registry;
  return registry;
}

std::shared_ptr<AttrsNode> AttrsRegistry::create(const std::string& typeKey) const {
  auto it = factories_.find(typeKey);
  return it == factories_.end() ? nullptr : it->second();
}

std::shared_ptr<AttrsNode> makeAttrs(const std::string& typeKey,
                                     const std::vector<std::pair<std::string, AttrValue>>& pairs,
                                     std::string& error) {
  std::shared_ptr<AttrsNode> attrs = AttrsRegistry::global().create(typeKey);
  if (!attrs) {
    error = "unknown attribute type '" + typeKey + "'";
    return nullptr;
  }
  std::set<std::string> given;
  for (const auto& [key, value] : pairs) {
    if (!given.insert(key).second) {
      error = "attribute '" + key + "' is given twice";
      return nullptr;
    }
    error = attrs->setField(key, value);
    if (!error.empty()) return nullptr;
  }
  const std::vector<std::string> names = attrs->fieldNames();
  const std::vector<FieldMode> modes = attrs->fieldModes();
  for (size_t i = 0; i < names.size(); ++i) {
    if (modes[i] == FieldMode::kRequired && !given.count(names[i])) {
      error = "required attribute '" + names[i] + "' is missing";
      return nullptr;
    }
  }
  return attrs;
}

}  // namespace tessera
