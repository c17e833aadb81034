// Literal and attribute formatting for the Relay printer (spec §2.5). The default mode reproduces
// TVM's ostream formatting byte for byte; exact mode adds digits only where 6 are not enough.
#include "relay/text/print_values.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "relay/text/generic_attrs.h"
#include "support/float16.h"

namespace tessera::relay::text {

namespace {

bool sameValue(double a, double b, DataType dtype) {
  if (dtype == DataType::float16())
    return floatToHalf(static_cast<float>(a)) == floatToHalf(static_cast<float>(b));
  if (dtype == DataType::float32()) return static_cast<float>(a) == static_cast<float>(b);
  return a == b;
}

std::string floatSuffix(DataType t) {
  if (t == DataType::float64()) return "f64";
  if (t == DataType::float16()) return "f16";
  return "f";
}

std::string intSuffix(DataType t) {
  if (t == DataType::int64()) return "i64";
  if (t == DataType::int16()) return "i16";
  return "";
}

}  // namespace

std::string floatText(double value, DataType dtype, bool exact) {
  if (!exact || !std::isfinite(value)) return formatFloat(value);
  // Start at %g's 6 digits so that values TVM prints exactly keep TVM's spelling.
  char buf[64];
  for (int precision = 6; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, value);
    if (sameValue(std::strtod(buf, nullptr), value, dtype)) break;
  }
  return buf;
}

bool isSimpleScalar(const ConstantNode& constant, bool exact) {
  if (!constant.hasData() || constant.data.ndim() != 0) return false;
  const DataType t = constant.data.dtype();
  if (t == DataType::int16() || t == DataType::int32() || t == DataType::int64() || t.isBool())
    return true;
  if (t == DataType::float16() || t == DataType::float32() || t == DataType::float64())
    return !(exact && std::isnan(constant.data.getFloat(0)));
  return false;
}

std::string scalarLiteral(const ConstantNode& constant, bool exact) {
  const NDArray& data = constant.data;
  const DataType t = data.dtype();
  if (t.isBool()) return data.getInt(0) ? "True" : "False";
  if (t.isInt()) return std::to_string(data.getInt(0)) + intSuffix(t);
  return floatText(data.getFloat(0), t, exact) + floatSuffix(t);
}

std::string attrValueText(const AttrValue& value, bool exact, bool typeKeys) {
  switch (value.kind()) {
    case AttrValue::Kind::kFloat:
      // Attribute floats are C++ doubles: exactness is judged on the double.
      return floatText(value.asFloat(), DataType::float64(), exact) +
             floatSuffix(value.numberType());
    case AttrValue::Kind::kInt:
      return std::to_string(value.asInt()) + intSuffix(value.numberType());
    case AttrValue::Kind::kArray: {
      std::string s = "[";
      const std::vector<AttrValue>& items = value.asArray();
      for (size_t i = 0; i < items.size(); ++i)
        s += (i ? ", " : "") + attrValueText(items[i], exact, typeKeys);
      return s + "]";
    }
    case AttrValue::Kind::kAttrs: {
      if (!value.asAttrs()) return "None";
      const AttrsNode& attrs = *value.asAttrs();
      const bool generic = std::string(attrs.typeKey()) == GenericAttrs::kTypeKey;
      return "{" + attrsItems(attrs, exact, typeKeys, typeKeys && !generic) + "}";
    }
    case AttrValue::Kind::kNone:
    case AttrValue::Kind::kBool:
    case AttrValue::Kind::kString:
      return value.str();
  }
  return value.str();
}

std::string attrsItems(const AttrsNode& attrs, bool exact, bool typeKeys, bool withTypeKey) {
  std::string s;
  for (const auto& [key, value] : attrs.printedFields()) {
    if (!s.empty()) s += ", ";
    s += key + "=" + attrValueText(value, exact, typeKeys);
  }
  if (withTypeKey) {
    if (!s.empty()) s += ", ";
    s += "attrs_type_key=" + AttrValue::string(attrs.typeKey()).str();
  }
  return s;
}

}  // namespace tessera::relay::text
