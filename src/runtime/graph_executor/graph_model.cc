// Loading a model directory: graph.json first (it says what the other files must hold), then the
// parameters checked against it, then the kernels.
#include "runtime/graph_executor/graph_model.h"

#include <filesystem>

#include "runtime/file_io.h"
#include "runtime/npy.h"
#include "support/diagnostic.h"

namespace tessera::runtime {
namespace {

namespace fs = std::filesystem;

void checkParams(const GraphModel& model, const std::string& paramsPath) {
  for (const NamedEntry& p : model.graph.params) {
    auto it = model.params.find(p.name);
    if (it == model.params.end())
      throwDiagnostic("export", "has no array '" + p.name + "' that graph.json needs", {},
                      paramsPath);
    const TensorEntry& e = model.graph.entries[p.entry];
    if (it->second.shape() != e.shape || it->second.dtype() != e.dtype)
      throwDiagnostic("export",
                      "array '" + p.name + "' is " + it->second.describe() + " but graph.json " +
                          "expects shape " + shapeString(e.shape) + " " + e.dtype.name(),
                      {}, paramsPath);
  }
}

}  // namespace

GraphModel loadGraphModel(const std::string& dir) {
  const fs::path root(dir);
  const fs::path graphPath = root / kModelGraphFile;
  if (!fs::is_regular_file(graphPath))
    throwDiagnostic("export", "is not a compiled module directory (no graph.json)", {}, dir);
  GraphModel model;
  model.graph = GraphDescription::fromJson(readWholeFile(graphPath.string()), graphPath.string());
  const fs::path paramsPath = root / kModelParamsFile;
  if (!fs::is_regular_file(paramsPath))
    throwDiagnostic("export", "missing params.npz next to graph.json", {}, dir);
  // An archive without members is not a valid .npz to every reader; a graph without
  // parameters does not need to open it.
  if (!model.graph.params.empty()) model.params = readNpz(paramsPath.string());
  checkParams(model, paramsPath.string());
  if (!model.graph.calls.empty()) model.lib = loadModule((root / kModelLibraryFile).string());
  return model;
}

bool isGraphModelDirectory(const std::string& path) {
  std::error_code ec;
  return fs::is_directory(path, ec) && fs::is_regular_file(fs::path(path) / kModelGraphFile, ec);
}

}  // namespace tessera::runtime
