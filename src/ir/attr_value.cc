#include "ir/attr_value.h"

#include <cmath>
#include <cstdio>

#include "ir/attrs.h"
#include "support/hash.h"

namespace tessera {

AttrValue AttrValue::integer(int64_t v, DataType type) {
  AttrValue a;
  a.kind_ = Kind::kInt;
  a.int_ = v;
  a.numberType_ = type;
  return a;
}
AttrValue AttrValue::floating(double v, DataType type) {
  AttrValue a;
  a.kind_ = Kind::kFloat;
  a.float_ = v;
  a.numberType_ = type;
  return a;
}
AttrValue AttrValue::boolean(bool v) {
  AttrValue a;
  a.kind_ = Kind::kBool;
  a.int_ = v ? 1 : 0;
  a.numberType_ = DataType::boolType();
  return a;
}
AttrValue AttrValue::string(std::string v) {
  AttrValue a;
  a.kind_ = Kind::kString;
  a.string_ = std::move(v);
  return a;
}
AttrValue AttrValue::array(std::vector<AttrValue> items) {
  AttrValue a;
  a.kind_ = Kind::kArray;
  a.array_ = std::move(items);
  return a;
}
AttrValue AttrValue::attrs(Attrs nested) {
  AttrValue a;
  a.kind_ = Kind::kAttrs;
  a.attrs_ = std::move(nested);
  return a;
}

std::string formatFloat(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", value);
  return buf;
}

namespace {
std::string quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

std::string intSuffix(DataType t) {
  if (t == DataType::int64()) return "i64";
  if (t == DataType::int16()) return "i16";
  return "";
}

std::string floatSuffix(DataType t) {
  if (t == DataType::float64()) return "f64";
  if (t == DataType::float16()) return "f16";
  return "f";
}
}  // namespace

std::string AttrValue::str() const {
  switch (kind_) {
    case Kind::kNone:
      return "None";
    case Kind::kInt:
      return std::to_string(int_) + intSuffix(numberType_);
    case Kind::kFloat:
      return formatFloat(float_) + floatSuffix(numberType_);
    case Kind::kBool:
      return int_ ? "True" : "False";
    case Kind::kString:
      return quote(string_);
    case Kind::kArray: {
      std::string s = "[";
      for (size_t i = 0; i < array_.size(); ++i) s += (i ? ", " : "") + array_[i].str();
      return s + "]";
    }
    case Kind::kAttrs:
      return "{" + attrs_->nonDefaultString() + "}";
  }
  return "None";
}

uint64_t AttrValue::hash() const {
  uint64_t h = static_cast<uint64_t>(kind_) * 31 + 7;
  switch (kind_) {
    case Kind::kNone:
      return h;
    case Kind::kInt:
    case Kind::kBool:
      return hashCombine(h, static_cast<uint64_t>(int_));
    case Kind::kFloat:
      return hashCombine(h, hashBytes(&float_, sizeof float_));
    case Kind::kString:
      return hashCombine(h, hashString(string_));
    case Kind::kArray:
      for (const AttrValue& v : array_) h = hashCombine(h, v.hash());
      return h;
    case Kind::kAttrs:
      return hashCombine(h, attrs_ ? attrs_->hash() : 0);
  }
  return h;
}

bool operator==(const AttrValue& a, const AttrValue& b) {
  if (a.kind_ != b.kind_) return false;
  switch (a.kind_) {
    case AttrValue::Kind::kNone:
      return true;
    case AttrValue::Kind::kInt:
    case AttrValue::Kind::kBool:
      return a.int_ == b.int_;
    // Bitwise-equal doubles compare equal (so NaN equals NaN and round trips are checkable).
    case AttrValue::Kind::kFloat:
      return a.float_ == b.float_ || (std::isnan(a.float_) && std::isnan(b.float_));
    case AttrValue::Kind::kString:
      return a.string_ == b.string_;
    case AttrValue::Kind::kArray:
      return a.array_ == b.array_;
    case AttrValue::Kind::kAttrs:
      if (a.attrs_ == b.attrs_) return true;
      return a.attrs_ && b.attrs_ && a.attrs_->equals(*b.attrs_);
  }
  return false;
}

void DictAttrs::set(const std::string& key, AttrValue value) {
  for (auto& [k, v] : entries_) {
    if (k == key) {
      v = std::move(value);
      return;
    }
  }
  entries_.emplace_back(key, std::move(value));
}

const AttrValue* DictAttrs::find(const std::string& key) const {
  for (const auto& [k, v] : entries_)
    if (k == key) return &v;
  return nullptr;
}

void DictAttrs::erase(const std::string& key) {
  std::erase_if(entries_, [&](const auto& e) { return e.first == key; });
}

uint64_t DictAttrs::hash() const {
  uint64_t h = 17;
  for (const auto& [k, v] : entries_) h = hashCombine(hashCombine(h, hashString(k)), v.hash());
  return h;
}

}  // namespace tessera
