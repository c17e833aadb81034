// Saving a BuiltModule as a directory (kernels.so, graph.json, params.npz) and reopening it,
// possibly in another process. Each file is written whole or not at all.
#include <filesystem>
#include <fstream>
#include <sstream>

#include "driver/build.h"
#include "runtime/npy.h"
#include "support/diagnostic.h"

namespace tessera::driver {

using runtime::GraphDescription;
using runtime::NamedEntry;
using runtime::TensorEntry;

namespace {

namespace fs = std::filesystem;

constexpr const char* kLibraryFile = "kernels.so";
constexpr const char* kGraphFile = "graph.json";
constexpr const char* kParamsFile = "params.npz";

void writeWhole(const fs::path& path, const std::string& text) {
  const fs::path temp = path.string() + ".tmp";
  {
    std::ofstream out(temp, std::ios::binary);
    out << text;
    if (!out.flush()) throwDiagnostic("export", "cannot write the file", {}, temp.string());
  }
  std::error_code ec;
  fs::rename(temp, path, ec);
  if (ec) throwDiagnostic("export", "cannot rename into place: " + ec.message(), {}, path.string());
}

std::string readWhole(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throwDiagnostic("export", "cannot open the file", {}, path.string());
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

void exportBuilt(const BuiltModule& built, const std::string& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throwDiagnostic("export", "cannot create the directory: " + ec.message(), {}, dir);
  const fs::path root(dir);
  // A graph without kernel calls has no library; a stale one from an earlier export must go so
  // the directory describes exactly this module.
  if (built.graph.calls.empty())
    fs::remove(root / kLibraryFile, ec);
  else
    built.lib.exportLibrary((root / kLibraryFile).string());
  writeNpz((root / kParamsFile).string(), built.params);
  writeWhole(root / kGraphFile, built.graph.toJson());
}

BuiltModule loadBuilt(const std::string& dir) {
  const fs::path root(dir);
  const fs::path graphPath = root / kGraphFile;
  if (!fs::is_regular_file(graphPath))
    throwDiagnostic("export", "is not a compiled module directory (no graph.json)", {}, dir);
  BuiltModule built;
  built.graph = GraphDescription::fromJson(readWhole(graphPath), graphPath.string());
  const fs::path paramsPath = root / kParamsFile;
  if (!fs::is_regular_file(paramsPath))
    throwDiagnostic("export", "missing params.npz next to graph.json", {}, dir);
  // An archive without members is not a valid .npz to every reader; a graph without
  // parameters does not need to open it.
  if (!built.graph.params.empty()) built.params = readNpz(paramsPath.string());
  for (const NamedEntry& p : built.graph.params) {
    auto it = built.params.find(p.name);
    if (it == built.params.end())
      throwDiagnostic("export", "has no array '" + p.name + "' that graph.json needs", {},
                      paramsPath.string());
    const TensorEntry& e = built.graph.entries[p.entry];
    if (it->second.shape() != e.shape || it->second.dtype() != e.dtype)
      throwDiagnostic("export",
                      "array '" + p.name + "' is " + it->second.describe() + " but graph.json " +
                          "expects shape " + shapeString(e.shape) + " " + e.dtype.name(),
                      {}, paramsPath.string());
  }
  if (!built.graph.calls.empty()) built.lib = codegen::loadLibrary((root / kLibraryFile).string());
  return built;
}

bool isBuiltDirectory(const std::string& path) {
  std::error_code ec;
  return fs::is_directory(path, ec) && fs::is_regular_file(fs::path(path) / kGraphFile, ec);
}

}  // namespace tessera::driver
