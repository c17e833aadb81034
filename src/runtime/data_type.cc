#include "runtime/data_type.h"

#include <array>
#include <utility>

namespace tessera {

namespace {
struct NamedType {
  std::string_view name;
  DataType type;
};
// The closed set of names the text format and attributes accept.
constexpr std::array<NamedType, 14> kNamedTypes{{
    {"bool", DataType::boolType()},
    {"int8", DataType::int8()},
    {"int16", DataType::int16()},
    {"int32", DataType::int32()},
    {"int64", DataType::int64()},
    {"uint8", DataType::uint8()},
    {"uint16", DataType::uint16()},
    {"uint32", DataType::uint32()},
    {"uint64", DataType::uint64()},
    {"float16", DataType::float16()},
    {"bfloat16", DataType::bfloat16()},
    {"float32", DataType::float32()},
    {"float64", DataType::float64()},
    {"", DataType::voidType()},
}};
}  // namespace

std::string DataType::name() const {
  if (lanes_ == 1) {
    for (const NamedType& t : kNamedTypes)
      if (t.type == *this) return std::string(t.name);
  }
  std::string base;
  switch (code_) {
    case Code::kInt:
      base = "int";
      break;
    case Code::kUInt:
      base = "uint";
      break;
    case Code::kFloat:
      base = "float";
      break;
    case Code::kBFloat:
      base = "bfloat";
      break;
    case Code::kHandle:
      return "handle";
  }
  base += std::to_string(bits_);
  if (lanes_ != 1) base += "x" + std::to_string(lanes_);
  return base;
}

std::optional<DataType> DataType::parse(std::string_view name) {
  for (const NamedType& t : kNamedTypes)
    if (t.name == name) return t.type;
  return std::nullopt;
}

}  // namespace tessera
