// `tessera compile FILE -o OUT_DIR`: relay.build from the command line. Writes the compiled
// kernels, the graph executor description and the parameters (or, for control flow, the VM
// program and its constants) to a directory that `tessera run` runs without recompiling.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <optional>
#include <utility>

#include "cli.h"
#include "driver/build.h"
#include "pass_options.h"
#include "runtime/npy.h"
#include "support/diagnostic.h"
#include "tuning_db.h"

namespace tessera::cli {

const char* const kCompileUsage =
    "usage: tessera compile FILE -o OUT_DIR [--target TARGET] [--opt-level N]\n"
    "                       [--input-shape NAME=D0,...] [--params FILE.npz]\n"
    "                       [--explain-strategy] [--print-after NAME|all] [--time-passes]\n"
    "                       [--pass-config KEY=VALUE] [--disabled-pass NAME[,NAME]] [--db DIR]\n"
    "\n"
    "Compiles @main of FILE (Relay text or ONNX) as relay.build does: graph optimization and\n"
    "fusion, one kernel per distinct fused function (TensorIR, lowered, LLVM), a graph executor\n"
    "description with planned memory. OUT_DIR receives kernels.so, graph.json and params.npz;\n"
    "run it with `tessera run OUT_DIR`. Prints the kernels and the planned memory. A module with\n"
    "control flow on run-time values (if, loops as recursive functions) compiles for the VM\n"
    "instead: OUT_DIR receives kernels.so, vm.json and constants.npz. So does a module with `?`\n"
    "dimensions: an ONNX input's dynamic dimension (a dim_param such as a batch axis) that\n"
    "--input-shape does not fix is compiled once for every extent.\n"
    "  -o OUT_DIR          output directory (created when missing)\n"
    "  --target TARGET     e.g. \"llvm -mcpu=skylake-avx512 -num-cores=4\" (default: the host);\n"
    "                      kinds: llvm (CPU code), vta / ext_dev -device=vta (VTA: no code\n"
    "                      generator yet)\n"
    "  --input-shape NAME=D0,D1,...  shape of an ONNX graph input (repeatable): specialises\n"
    "                      the module to it\n"
    "  --params FILE.npz   bind these arrays to @main's parameters of the same names\n"
    "  --db DIR            apply the best schedules of a tuning database (`tessera tune`);\n"
    "                      kernels without a record keep their default schedules\n"
    "  --explain-strategy  print, per kernel, the implementation chosen for each call, the\n"
    "                      ones skipped and why, and whether its schedule applied\n"
    "  --print-after NAME  print the program to stderr after the step or pass NAME (repeatable;\n"
    "                      `all` for every one): Optimize, LowerGraphToTIR, ScheduleKernels,\n"
    "                      LowerTIR, CodegenLLVM, PlanMemory, any graph pass or TIR pass\n"
    "  --time-passes       report the time of every step and pass on stderr, with the import,\n"
    "                      the export and the peak memory\n" TESSERA_PASS_CONTEXT_USAGE;

namespace {

// The process's peak resident memory so far, in MiB (Linux reports kilobytes).
long peakMemoryMiB() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss / 1024;
}

double millisecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

std::string formatBytes(int64_t bytes) {
  if (bytes < 10 * 1024) return std::to_string(bytes) + " B";
  if (bytes < 10 * 1024 * 1024) return std::to_string(bytes / 1024) + " KiB";
  return std::to_string(bytes / (1024 * 1024)) + " MiB";
}

std::string memorySummary(const runtime::GraphDescription& graph) {
  const double saved =
      graph.naiveBytes ? 100.0 * (graph.naiveBytes - graph.plannedBytes) / graph.naiveBytes : 0;
  char percent[16];
  std::snprintf(percent, sizeof percent, "%.1f%%", saved);
  return "memory: planned " + std::to_string(graph.plannedBytes) + " bytes (" +
         formatBytes(graph.plannedBytes) + ") in " + std::to_string(graph.storageBytes.size()) +
         " buffers; naive " + std::to_string(graph.naiveBytes) + " bytes (" +
         formatBytes(graph.naiveBytes) + ") in " + std::to_string(graph.entries.size()) +
         " tensors; saved " + percent;
}

}  // namespace

int cmdCompile(Args& args) {
  const std::optional<std::string> out = args.value("-o");
  const std::string targetText = args.value("--target").value_or("");
  const bool explain = args.flag("--explain-strategy");
  PassContextFlags flags = parsePassContext(args, /*instruments=*/true);
  relay::PassContext& ctx = flags.ctx;
  const std::vector<std::string> inputShapes = args.values("--input-shape");
  const std::optional<std::string> paramsPath = args.value("--params");
  const std::optional<std::string> dbDir = args.value("--db");
  const std::vector<std::string> files = args.positionals();
  if (files.size() != 1) throw UsageError{"expected exactly one FILE"};
  if (!out) throw UsageError{"-o OUT_DIR is required"};

  const target::Target requested = target::Target::parse(targetText.empty() ? "llvm" : targetText);
  std::map<std::string, NDArray> params;
  if (paramsPath) params = readNpz(*paramsPath);
  auto start = std::chrono::steady_clock::now();
  // A dynamic input dimension not given by --input-shape is compiled for every extent (the VM).
  relay::IRModule module = loadModule(files[0], inputShapes, {}, /*dynamicDims=*/true);
  const double importMs = millisecondsSince(start);
  const long importPeak = peakMemoryMiB();
  driver::BuildOptions options;
  options.optLevel = std::nullopt;  // the context's, from --opt-level
  options.context = &ctx;
  // Control flow on run-time values compiles for the VM; a plain graph for the graph executor.
  options.executor = driver::Executor::kAuto;
  options.scheduleProvider = openTuningDatabase(dbDir);
  // The weights leave memory as they become the graph's (packed) params, and those are written
  // to OUT_DIR as they are made (committed by the export), so LLVM never works beside them. A
  // directory made here goes again if the build or the export fails.
  const bool existed = std::filesystem::exists(*out);
  long buildPeak = 0;
  std::optional<driver::Built> built;
  try {
    std::error_code ec;
    std::filesystem::create_directories(*out, ec);
    if (ec) throwDiagnostic("export", "cannot create the directory: " + ec.message(), {}, *out);
    options.paramsFile = (std::filesystem::path(*out) / runtime::kModelParamsFile).string();
    built = driver::build(std::move(module), requested, params, options);
    buildPeak = peakMemoryMiB();
    if (requested.isVta() && built->graph.devices.size() < 2)
      std::cerr << "note: no convolution of this module runs on VTA (it has no int8 convolution "
                   "to pack; quantize it first with `tessera quantize`); every kernel is the CPU's\n";
    start = std::chrono::steady_clock::now();
    driver::exportBuilt(*built, *out);
  } catch (...) {
    std::error_code ec;
    if (!existed) std::filesystem::remove_all(*out, ec);
    throw;
  }
  if (ctx.timePasses) {
    std::cerr << "Import: " << importMs << " ms\n";
    printPassTimings(ctx);
    std::cerr << "Export: " << millisecondsSince(start) << " ms\n"
              << "peak memory: " << importPeak << " MiB after Import, " << buildPeak
              << " MiB after PlanMemory, " << peakMemoryMiB() << " MiB after Export\n";
  }

  if (dbDir) reportTunedKernels(*dbDir, *built);
  const target::Target& target = built->target;
  std::cout << "compiled " << files[0] << " for llvm -mtriple=" << target.triple
            << " -mcpu=" << target.cpu << " to " << *out << "\n";
  if (built->isVM()) {
    const runtime::vm::Executable& exec = *built->exec;
    size_t instructions = 0;
    for (const auto& [name, fn] : exec.functions) instructions += fn.code.size();
    std::cout << "VM program (control flow or dynamic shapes): " << exec.functions.size()
              << " functions, " << instructions << " instructions, " << exec.constants.size()
              << " constants; " << built->kernels.size() << " kernels:\n";
  } else {
    std::cout << built->kernels.size() << " kernels, " << built->graph.calls.size() << " calls:\n";
  }
  for (const tir::PrimFunc& k : built->kernels) std::cout << "  " << k->name << "\n";
  if (!built->isVM()) std::cout << memorySummary(built->graph) << "\n";
  if (explain) {
    std::cout << "strategies (target " << target.kindName() << ", keys";
    for (const std::string& key : target.keys) std::cout << " " << key;
    std::cout << "):\n";
    for (const driver::KernelStrategy& k : built->strategies)
      for (const std::string& line : driver::explainStrategy(k)) std::cout << "  " << line << "\n";
  }
  return kExitOk;
}

}  // namespace tessera::cli
