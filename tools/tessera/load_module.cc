// Reading a model for any command: Relay text, or an ONNX file (by extension or content) imported
// with the --input-shape overrides.
#include <sstream>

#include "cli.h"
#include "frontend/onnx/importer.h"
#include "relay/text/parser.h"

namespace tessera::cli {

namespace {

bool endsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

std::map<std::string, std::vector<int64_t>> parseInputShapes(
    const std::vector<std::string>& specs) {
  std::map<std::string, std::vector<int64_t>> shapes;
  for (const std::string& spec : specs) {
    const size_t eq = spec.find('=');
    if (eq == std::string::npos || eq == 0)
      throw UsageError{"--input-shape expects NAME=D0,D1,... but got '" + spec + "'"};
    const std::string name = spec.substr(0, eq);
    if (shapes.count(name)) throw UsageError{"the shape of '" + name + "' is given twice"};
    std::vector<int64_t> dims;
    std::stringstream ss(spec.substr(eq + 1));
    std::string item;
    while (std::getline(ss, item, ',')) {
      size_t used = 0;
      int64_t d = -1;
      try {
        d = std::stoll(item, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used != item.size() || item.empty() || d < 0)
        throw UsageError{"--input-shape " + spec + ": '" + item + "' is not a non-negative extent"};
      dims.push_back(d);
    }
    shapes[name] = dims;
  }
  return shapes;
}

relay::IRModule loadModule(const std::string& path, const std::vector<std::string>& inputShapes,
                           const std::map<std::string, NDArray>& inputValues) {
  // An ONNX model is parsed from the file itself: reading it into memory first would hold a copy
  // of every weight next to the parsed model.
  if (endsWith(path, ".onnx") || frontend::onnx::looksLikeOnnx(readFilePrefix(path, 16))) {
    frontend::onnx::ImportOptions options;
    options.inputShapes = parseInputShapes(inputShapes);
    options.sourceName = path;
    options.inputValues = inputValues;
    return frontend::onnx::importOnnx(path, options);
  }
  if (!inputShapes.empty()) throw UsageError{"--input-shape applies to ONNX models only"};
  return relay::parseModule(readTextFile(path), path);
}

}  // namespace tessera::cli
