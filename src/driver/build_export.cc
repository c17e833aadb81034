// Saving a BuiltModule as a directory (kernels.so, graph.json, params.npz) and reopening it,
// possibly in another process; and a BuiltVM (kernels.so, vm.json, constants.npz). Each file is
// written whole or not at all.
#include <filesystem>

#include "driver/build.h"
#include "runtime/file_io.h"
#include "runtime/npy.h"
#include "runtime/vm_file.h"
#include "support/diagnostic.h"

namespace tessera::driver {

using runtime::GraphDescription;
using runtime::NamedEntry;
using runtime::TensorEntry;

namespace {

namespace fs = std::filesystem;

constexpr const char* kLibraryFile = runtime::kModelLibraryFile;
constexpr const char* kGraphFile = runtime::kModelGraphFile;
constexpr const char* kParamsFile = runtime::kModelParamsFile;

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
  if (built.writtenParams)
    built.writtenParams->commit((root / kParamsFile).string());
  else
    writeNpz((root / kParamsFile).string(), built.params);
  runtime::writeWholeFile((root / kGraphFile).string(), built.graph.toJson());
  fs::remove(root / runtime::vm::kProgramFile, ec);  // one kind of module per directory
  fs::remove(root / runtime::vm::kConstantsFile, ec);
}

void exportBuiltVM(const BuiltVM& built, const std::string& dir) {
  runtime::vm::writeProgram(built.exec, dir);
  std::error_code ec;
  const fs::path library = fs::path(dir) / kLibraryFile;
  if (built.exec.kernels.loaded())
    built.lib.exportLibrary(library.string());
  else
    fs::remove(library, ec);
}

BuiltModule loadBuilt(const std::string& dir) {
  runtime::GraphModel model = runtime::loadGraphModel(dir);
  BuiltModule built;
  built.graph = std::move(model.graph);
  built.params = std::move(model.params);
  if (model.lib.loaded()) built.lib = codegen::CompiledModule::fromLoaded(std::move(model.lib));
  return built;
}

bool isBuiltDirectory(const std::string& path) {
  return runtime::isGraphModelDirectory(path);
}

}  // namespace tessera::driver
