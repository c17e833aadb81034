// ONNX element types and TensorProto contents as Tessera DataTypes and NDArrays. Internal to the
// importer (it includes the protobuf definitions).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "frontend/onnx/onnx_proto.h"
#include "runtime/ndarray.h"

namespace tessera::frontend::onnx {

/// The DataType of an ONNX TensorProto.DataType value, or nullopt for strings, complex numbers and
/// unknown codes.
std::optional<DataType> dataTypeOf(int32_t onnxType);
/// "FLOAT", "INT64", ... (or the number) for diagnostics.
std::string onnxTypeName(int32_t onnxType);
/// The ONNX TensorProto.DataType code of `dtype`, or nullopt when ONNX has none.
std::optional<int32_t> onnxTypeOf(DataType dtype);

/// The tensor's values (raw_data or the typed repeated fields). `what` names the tensor in
/// diagnostics; external data, strings, a size that disagrees with the dims or negative dims are
/// errors.
NDArray tensorFromProto(const ::onnx::TensorProto& proto, const std::string& what);
/// tensorFromProto that takes raw_data's bytes as the tensor's memory instead of copying them
/// (raw_data is released from `proto`).
NDArray takeTensorFromProto(::onnx::TensorProto& proto, const std::string& what);

}  // namespace tessera::frontend::onnx
