// Reading a model for any entry point (the CLI, the Python package): Relay text, or an ONNX model
// (recognised by its extension or its first bytes) imported with given input shapes and, for inputs
// the importer needs as constants, their values.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "relay/module.h"
#include "runtime/ndarray.h"

namespace tessera::driver {

/// What loadModel needs besides the path (both apply to ONNX models only).
struct ModelInputs {
  /// Shapes of graph inputs whose ONNX shapes are dynamic or to be overridden.
  std::map<std::string, std::vector<int64_t>> shapes;
  /// Values of inputs the importer needs as constants (a Reshape's shape, a Resize's sizes, a
  /// Loop's trip count): the model is specialised to them. A value also fixes its input's shape.
  std::map<std::string, NDArray> values;
  /// A dynamic ONNX input dimension neither fixes stays Relay's `?`: the module compiles once for
  /// every extent (ImportOptions::dynamicDims). Off: such a dimension is an error.
  bool dynamicDims = false;
};

/// The module in `path`. DiagnosticError naming the file: code "io" when it cannot be read,
/// "load" for input shapes given for Relay text, the parser's and importer's codes for malformed
/// text or ONNX.
relay::IRModule loadModel(const std::string& path, const ModelInputs& inputs = {});

/// Whether the file at `path` holds an ONNX model (by its extension, else its first bytes).
bool isOnnxFile(const std::string& path);

}  // namespace tessera::driver
