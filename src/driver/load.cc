#include "driver/load.h"

#include <filesystem>
#include <fstream>

#include "frontend/onnx/importer.h"
#include "relay/text/parser.h"
#include "runtime/file_io.h"
#include "support/diagnostic.h"

namespace tessera::driver {

namespace {

bool endsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

void checkReadableFile(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throwDiagnostic("io", "is a directory, not a file", Span{}, path);
  if (!std::ifstream(path, std::ios::binary))
    throwDiagnostic("io", "cannot open file", Span{}, path);
}

}  // namespace

bool isOnnxFile(const std::string& path) {
  if (endsWith(path, ".onnx")) return true;
  checkReadableFile(path);
  std::ifstream in(path, std::ios::binary);
  std::string prefix(16, '\0');
  in.read(prefix.data(), static_cast<std::streamsize>(prefix.size()));
  prefix.resize(static_cast<size_t>(in.gcount()));
  return frontend::onnx::looksLikeOnnx(prefix);
}

relay::IRModule loadModel(const std::string& path, const ModelInputs& inputs) {
  checkReadableFile(path);
  // An ONNX model is parsed from the file itself: reading it into memory first would hold a copy
  // of every weight next to the parsed model.
  if (isOnnxFile(path)) {
    frontend::onnx::ImportOptions options;
    options.inputShapes = inputs.shapes;
    options.sourceName = path;
    options.inputValues = inputs.values;
    options.dynamicDims = inputs.dynamicDims;
    return frontend::onnx::importOnnx(path, options);
  }
  if (!inputs.shapes.empty())
    throwDiagnostic("load", "input shapes apply to ONNX models only; this is Relay text", Span{},
                    path);
  return relay::parseModule(runtime::readWholeFile(path, "io"), path);
}

}  // namespace tessera::driver
