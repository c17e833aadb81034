// Reading a model for any command: the --input-shape flags parsed, then driver::loadModel.
#include <sstream>

#include "cli.h"
#include "driver/load.h"

namespace tessera::cli {

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
                           const std::map<std::string, NDArray>& inputValues, bool dynamicDims) {
  const std::map<std::string, std::vector<int64_t>> shapes = parseInputShapes(inputShapes);
  if (!shapes.empty() && !driver::isOnnxFile(path))
    throw UsageError{"--input-shape applies to ONNX models only"};
  return driver::loadModel(path,
                           {.shapes = shapes, .values = inputValues, .dynamicDims = dynamicDims});
}

}  // namespace tessera::cli
