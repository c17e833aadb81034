// Saving what build() made as a directory and reopening it, possibly in another process: a graph
// module as kernels.so, graph.json and params.npz, a VM module as kernels.so, vm.json and
// constants.npz. Each file is written whole or not at all.
#include <filesystem>

#include "driver/build.h"
#include "vta/rt/device.h"
#include "runtime/file_io.h"
#include "runtime/npy.h"
#include "runtime/vm/vm_file.h"
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

namespace {

void exportGraph(const Built& built, const std::string& dir) {
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

void exportVM(const Built& built, const std::string& dir) {
  runtime::vm::writeProgram(*built.exec, dir);
  std::error_code ec;
  const fs::path library = fs::path(dir) / kLibraryFile;
  if (built.exec->kernels.loaded())
    built.lib.exportLibrary(library.string());
  else
    fs::remove(library, ec);
  fs::remove(fs::path(dir) / kGraphFile, ec);  // one kind of module per directory
  fs::remove(fs::path(dir) / kParamsFile, ec);
}

}  // namespace

void exportBuilt(const Built& built, const std::string& dir) {
  if (built.isVM())
    exportVM(built, dir);
  else
    exportGraph(built, dir);
}

Built loadBuilt(const std::string& dir) {
  // A heterogeneous module's code calls VTA's C functions and its graph opens the VTA device.
  vta::registerVtaDevice();
  Built built;
  if (runtime::vm::isExecutableDirectory(dir)) {
    built.exec = runtime::vm::loadExecutable(dir);
    return built;
  }
  runtime::GraphModel model = runtime::loadGraphModel(dir);
  built.graph = std::move(model.graph);
  built.params = std::move(model.params);
  if (model.lib.loaded()) built.lib = codegen::CompiledModule::fromLoaded(std::move(model.lib));
  return built;
}

bool isBuiltDirectory(const std::string& path) {
  return runtime::isGraphModelDirectory(path) || runtime::vm::isExecutableDirectory(path);
}

}  // namespace tessera::driver
