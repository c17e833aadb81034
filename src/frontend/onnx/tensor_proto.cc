// TensorProto decoding. Every size is checked against the dims before anything is copied, so a
// truncated or hostile tensor is a diagnostic, never an out-of-bounds read or a huge allocation.
#include "frontend/onnx/tensor_proto.h"

#include <cstring>

#include "support/diagnostic.h"

namespace tessera::frontend::onnx {

namespace {

using ::onnx::TensorProto;

struct TypeRow {
  int32_t code;
  const char* name;
  DataType dtype;
};

// TensorProto.DataType codes; strings and complex numbers have no DataType.
constexpr TypeRow kTypes[] = {
    {TensorProto::FLOAT, "FLOAT", DataType::float32()},
    {TensorProto::UINT8, "UINT8", DataType::uint8()},
    {TensorProto::INT8, "INT8", DataType::int8()},
    {TensorProto::UINT16, "UINT16", DataType::uint16()},
    {TensorProto::INT16, "INT16", DataType::int16()},
    {TensorProto::INT32, "INT32", DataType::int32()},
    {TensorProto::INT64, "INT64", DataType::int64()},
    {TensorProto::STRING, "STRING", DataType::voidType()},
    {TensorProto::BOOL, "BOOL", DataType::boolType()},
    {TensorProto::FLOAT16, "FLOAT16", DataType::float16()},
    {TensorProto::DOUBLE, "DOUBLE", DataType::float64()},
    {TensorProto::UINT32, "UINT32", DataType::uint32()},
    {TensorProto::UINT64, "UINT64", DataType::uint64()},
    {TensorProto::COMPLEX64, "COMPLEX64", DataType::voidType()},
    {TensorProto::COMPLEX128, "COMPLEX128", DataType::voidType()},
    {TensorProto::BFLOAT16, "BFLOAT16", DataType::bfloat16()},
};

[[noreturn]] void fail(const std::string& what, const std::string& message) {
  throwDiagnostic("onnx_tensor", message, Span{}, what);
}

// Copies `count` typed values into `out` with setters that wrap like the ONNX field encodings:
// int32_data holds 8/16-bit ints, bools and the bit patterns of float16/bfloat16.
template <typename Field, typename Store>
void copyField(const Field& field, int64_t numel, const std::string& what, const char* fieldName,
               Store store) {
  if (static_cast<int64_t>(field.size()) != numel)
    fail(what, std::string(fieldName) + " holds " + std::to_string(field.size()) +
                   " values but the dims need " + std::to_string(numel));
  for (int64_t i = 0; i < numel; ++i) store(i, field.Get(static_cast<int>(i)));
}

}  // namespace

std::optional<DataType> dataTypeOf(int32_t onnxType) {
  for (const TypeRow& row : kTypes)
    if (row.code == onnxType && !row.dtype.isVoid()) return row.dtype;
  return std::nullopt;
}

std::string onnxTypeName(int32_t onnxType) {
  for (const TypeRow& row : kTypes)
    if (row.code == onnxType) return row.name;
  return "type code " + std::to_string(onnxType);
}

std::optional<int32_t> onnxTypeOf(DataType dtype) {
  for (const TypeRow& row : kTypes)
    if (!row.dtype.isVoid() && row.dtype == dtype) return row.code;
  return std::nullopt;
}

namespace {

// An NDArray over `bytes` (a released raw_data string, malloc-aligned: enough for any element
// type), freed when the last NDArray using it goes away.
NDArray adoptBytes(std::string* bytes, const std::vector<int64_t>& dims, DataType dtype) {
  return NDArray::adopt(bytes->data(), dims, dtype, [bytes] { delete bytes; });
}

}  // namespace

namespace {

// `consume`, when given (the same message as `proto`), lets raw_data be adopted rather than copied.
NDArray convertTensor(const TensorProto& proto, const std::string& what, TensorProto* consume) {
  if (proto.data_location() == TensorProto::EXTERNAL || proto.external_data_size() > 0)
    fail(what,
         "tensors with external data are not supported (save the model with the weights "
         "inside the .onnx file)");
  if (proto.has_segment()) fail(what, "segmented tensors are not supported");
  const int32_t code = proto.data_type();
  std::optional<DataType> dtype = dataTypeOf(code);
  if (!dtype)
    fail(what,
         "element type " + onnxTypeName(code) + " is not supported (numeric and bool tensors are)");
  std::vector<int64_t> dims(proto.dims().begin(), proto.dims().end());
  for (int64_t d : dims)
    if (d < 0) fail(what, "has a negative dimension " + std::to_string(d));
  // NDArray::empty rejects overflowing sizes; check the stored size first so a tiny hostile
  // message cannot make us allocate gigabytes.
  int64_t numel = 1;
  for (int64_t d : dims) {
    if (d != 0 && numel > (int64_t{1} << 40) / d) fail(what, "is too large");
    numel *= d;
  }
  const size_t bytes = static_cast<size_t>(numel) * dtype->bytes();
  if (proto.has_raw_data()) {
    if (proto.raw_data().size() != bytes)
      fail(what, "raw_data has " + std::to_string(proto.raw_data().size()) +
                     " bytes but the dims and element type need " + std::to_string(bytes));
    // The parsed bytes become the tensor's memory: a model's weights are then held once during
    // the import, not twice while the largest is copied.
    if (consume != nullptr && bytes > 0)
      return adoptBytes(consume->release_raw_data(), dims, *dtype);
    NDArray out = NDArray::empty(dims, *dtype);
    if (bytes > 0) std::memcpy(out.data(), proto.raw_data().data(), bytes);
    return out;
  }
  // The typed fields: validate the count before allocating.
  auto count = [&]() -> int64_t {
    switch (code) {
      case TensorProto::FLOAT:
        return proto.float_data_size();
      case TensorProto::DOUBLE:
        return proto.double_data_size();
      case TensorProto::INT64:
        return proto.int64_data_size();
      case TensorProto::UINT32:
      case TensorProto::UINT64:
        return proto.uint64_data_size();
      default:
        return proto.int32_data_size();
    }
  }();
  if (count != numel)
    fail(what, "holds " + std::to_string(count) + " values but the dims " + "need " +
                   std::to_string(numel));
  NDArray out = NDArray::empty(dims, *dtype);
  switch (code) {
    case TensorProto::FLOAT:
      copyField(proto.float_data(), numel, what, "float_data",
                [&](int64_t i, float v) { out.as<float>()[i] = v; });
      break;
    case TensorProto::DOUBLE:
      copyField(proto.double_data(), numel, what, "double_data",
                [&](int64_t i, double v) { out.as<double>()[i] = v; });
      break;
    case TensorProto::INT64:
      copyField(proto.int64_data(), numel, what, "int64_data",
                [&](int64_t i, int64_t v) { out.as<int64_t>()[i] = v; });
      break;
    case TensorProto::UINT32:
    case TensorProto::UINT64:
      copyField(proto.uint64_data(), numel, what, "uint64_data",
                [&](int64_t i, uint64_t v) { out.setUInt(i, v); });
      break;
    case TensorProto::FLOAT16:
    case TensorProto::BFLOAT16:
      // The 16-bit patterns travel in int32_data.
      copyField(proto.int32_data(), numel, what, "int32_data",
                [&](int64_t i, int32_t v) { out.as<uint16_t>()[i] = static_cast<uint16_t>(v); });
      break;
    case TensorProto::BOOL:
      copyField(proto.int32_data(), numel, what, "int32_data",
                [&](int64_t i, int32_t v) { out.setInt(i, v != 0); });
      break;
    default:
      copyField(proto.int32_data(), numel, what, "int32_data",
                [&](int64_t i, int32_t v) { out.setInt(i, v); });
      break;
  }
  return out;
}

}  // namespace

NDArray tensorFromProto(const TensorProto& proto, const std::string& what) {
  return convertTensor(proto, what, nullptr);
}

NDArray takeTensorFromProto(TensorProto& proto, const std::string& what) {
  return convertTensor(proto, what, &proto);
}

}  // namespace tessera::frontend::onnx
