// The ONNX importer: reads an ONNX ModelProto (opsets 11 to 18) and builds a type-checked Relay
// IRModule whose @main takes the graph's non-initializer inputs. Protobuf stays behind this
// header: callers see only paths, bytes and the module.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "relay/module.h"
#include "runtime/ndarray.h"

namespace tessera::frontend::onnx {

/// The default-domain opsets the importer accepts.
inline constexpr int64_t kMinOpset = 11;
inline constexpr int64_t kMaxOpset = 18;

/// A caller's conversion of one operator outside the default domain: the node's given inputs and
/// their dtypes in, one expression per declared output out (Python's from_pytorch exports each
/// op of its `custom_convert_map` as such a node and converts it with the user's function).
using CustomConverter = std::function<std::vector<relay::Expr>(
    const std::vector<relay::Expr>& inputs, const std::vector<std::string>& dtypes)>;

/// What the caller may decide about an import.
struct ImportOptions {
  /// Shapes for graph inputs by ONNX name; they replace the declared shape (required for inputs
  /// with symbolic or missing dimensions). Naming an input the graph lacks is an error.
  std::map<std::string, std::vector<int64_t>> inputShapes = {};
  /// Values of graph inputs (by ONNX name or by the Relay parameter name the importer gives
  /// them) that the model uses as shapes, sizes, axes or other quantities needed while
  /// importing (Reshape's shape, Resize's sizes, Tile's repeats, ...). Where an input is needed
  /// that way, the module is specialised to this value; it stays a parameter, so callers pass
  /// the same value when they run it. A value also gives the input's dynamic dimensions (when
  /// inputShapes does not). `tessera run` gives every --input this way.
  std::map<std::string, NDArray> inputValues = {};
  /// Keep a symbolic (`dim_param`) or missing input dimension that neither inputShapes nor
  /// inputValues fixes as Relay's `?` (Any) instead of refusing it: the module is compiled once
  /// for every extent there (on the VM). Converters that need such an extent at import refuse it
  /// (`onnx_dynamic`, naming the node).
  bool dynamicDims = false;
  /// Name used for the model in diagnostics (the file name when importing from a path).
  std::string sourceName = "model.onnx";
  /// Converters for custom operators, by "domain::op_type" (e.g. "tessera::my_op").
  std::map<std::string, CustomConverter> customConverters = {};
};

/// Imports the model in the file at `path`. Throws DiagnosticError for unreadable files, malformed
/// protobuf, unsupported opsets, operators or attribute values; nothing is returned half-built.
relay::IRModule importOnnx(const std::string& path, const ImportOptions& options = {});

/// Imports a model from its serialized bytes (as read from a .onnx file).
relay::IRModule importOnnxBytes(std::string_view bytes, const ImportOptions& options = {});

/// True when `bytes` look like a serialized ONNX model rather than text (the first byte is a
/// protobuf field tag of ModelProto); used by the CLI to dispatch on content.
bool looksLikeOnnx(std::string_view bytes);

/// One supported operator: its ONNX type and a note on opset-dependent forms or limits.
struct SupportedOp {
  const char* opType;
  const char* note;
};
/// Every supported operator, sorted by name (the table in docs/user/onnx.md).
std::vector<SupportedOp> supportedOps();

}  // namespace tessera::frontend::onnx
