// Scalar element types (code, bits, lanes), laid out like DLPack's DLDataType so NDArrays share
// memory with other frameworks without conversion.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <dlpack/dlpack.h>

namespace tessera {

/// An element type: int8/16/32/64, uint8/16/32/64, float16/32/64, bfloat16, bool (1-bit uint), or
/// the unset "void" type (bits 0) used as the default of `out_dtype`-style attributes.
class DataType {
 public:
  enum class Code : uint8_t {
    kInt = kDLInt,
    kUInt = kDLUInt,
    kFloat = kDLFloat,
    kBFloat = kDLBfloat,
    kHandle = kDLOpaqueHandle  ///< a pointer (TensorIR buffer data variables); never a tensor dtype
  };

  constexpr DataType() = default;  ///< void
  constexpr DataType(Code code, int bits, int lanes = 1)
      : code_(code), bits_(static_cast<uint8_t>(bits)), lanes_(static_cast<uint16_t>(lanes)) {}

  static constexpr DataType voidType() { return DataType(); }
  static constexpr DataType boolType() { return DataType(Code::kUInt, 1); }
  static constexpr DataType int8() { return DataType(Code::kInt, 8); }
  static constexpr DataType int16() { return DataType(Code::kInt, 16); }
  static constexpr DataType int32() { return DataType(Code::kInt, 32); }
  static constexpr DataType int64() { return DataType(Code::kInt, 64); }
  static constexpr DataType uint8() { return DataType(Code::kUInt, 8); }
  static constexpr DataType uint16() { return DataType(Code::kUInt, 16); }
  static constexpr DataType uint32() { return DataType(Code::kUInt, 32); }
  static constexpr DataType uint64() { return DataType(Code::kUInt, 64); }
  static constexpr DataType float16() { return DataType(Code::kFloat, 16); }
  static constexpr DataType bfloat16() { return DataType(Code::kBFloat, 16); }
  static constexpr DataType float32() { return DataType(Code::kFloat, 32); }
  static constexpr DataType float64() { return DataType(Code::kFloat, 64); }
  static constexpr DataType handle() { return DataType(Code::kHandle, 64); }

  Code code() const { return code_; }
  int bits() const { return bits_; }
  int lanes() const { return lanes_; }
  bool isVoid() const { return bits_ == 0; }
  bool isBool() const { return code_ == Code::kUInt && bits_ == 1; }
  bool isInt() const { return code_ == Code::kInt && bits_ > 0; }
  bool isUInt() const { return code_ == Code::kUInt && bits_ > 1; }
  /// Signed or unsigned integer (not bool).
  bool isInteger() const { return isInt() || isUInt(); }
  bool isFloat() const { return (code_ == Code::kFloat || code_ == Code::kBFloat) && bits_ > 0; }
  bool isHandle() const { return code_ == Code::kHandle; }
  bool isScalar() const { return lanes_ == 1; }
  /// The same element type with `lanes` lanes (a vector type when lanes > 1).
  constexpr DataType withLanes(int lanes) const { return DataType(code_, bits_, lanes); }
  /// The scalar element type of a vector type.
  constexpr DataType element() const { return DataType(code_, bits_, 1); }
  /// Bytes one element occupies in memory (bool takes a whole byte, as in DLPack).
  int bytes() const { return bits_ == 1 ? 1 : (bits_ + 7) / 8; }

  /// Canonical name: "int8", "float32", "bool", "bfloat16", "" for void.
  std::string name() const;
  /// Parses a canonical name; nullopt when unknown. "" parses as void.
  static std::optional<DataType> parse(std::string_view name);

  DLDataType toDLPack() const { return DLDataType{static_cast<uint8_t>(code_), bits_, lanes_}; }
  static DataType fromDLPack(DLDataType t) {
    return DataType(static_cast<Code>(t.code), t.bits, t.lanes);
  }

  friend bool operator==(DataType a, DataType b) = default;

 private:
  Code code_ = Code::kInt;
  uint8_t bits_ = 0;
  uint16_t lanes_ = 1;
};

}  // namespace tessera
