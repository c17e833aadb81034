// `tessera tir FILE`: the TensorIR of a graph module's kernels. The module is optimized and fused
// as `relay.build` does; each fused primitive function becomes a PrimFunc through its ops' TE
// computes. Optionally a schedule trace is replayed on one of them, and the result lowered.
#include <algorithm>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>

#include "cli.h"
#include "driver/build.h"
#include "driver/pipeline.h"
#include "lower/graph_to_tir/graph_to_tir.h"
#include "relay/strategy/strategy.h"
#include "relay/transform/passes.h"
#include "relay/visit.h"
#include "runtime/npy.h"
#include "support/diagnostic.h"
#include "tir/printer.h"
#include "tir/schedule/schedule.h"
#include "tir/schedule/trace.h"
#include "tir/transform/lower.h"

namespace tessera::cli {

const char* const kTirUsage =
    "usage: tessera tir FILE [--func NAME] [--trace TRACE.json] [--seed N] [--lower]\n"
    "                        [--print-after PASS] [--opt-level N] [--input-shape NAME=D0,...]\n"
    "                        [--params FILE.npz] [--list] [--default-schedule] [-o OUT]\n"
    "\n"
    "Prints the TensorIR kernels of the model in FILE (Relay text or ONNX): the module is\n"
    "optimized and fused, and every fused primitive function becomes one PrimFunc named\n"
    "fused_<ops> (e.g. fused_nn_dense_add_nn_relu).\n"
    "  --func NAME        only this kernel\n"
    "  --list             list the kernel names and exit\n"
    "  --trace FILE       replay a schedule trace (JSON, as the schedule API saves it) on the\n"
    "                     kernel chosen with --func, then print the scheduled function\n"
    "  --seed N           seed for sampling instructions in the trace that have no decision\n"
    "  --default-schedule print the kernels as `tessera compile` builds them for the host:\n"
    "                     weights packed, the default x86 schedule applied\n"
    "  --lower            print the kernels after lowering to a flat loop program\n"
    "  --print-after PASS with --lower: also print after this lowering pass (repeatable;\n"
    "                     'all' for every pass) on stderr\n"
    "  --opt-level N      graph optimization level (default 3)\n"
    "  --input-shape NAME=D0,D1,...  shape of an ONNX graph input (repeatable)\n"
    "  --params FILE.npz  bind these arrays to @main's parameters of the same names first, as\n"
    "                     `tessera compile --params` does (constant weights get packed)\n"
    "  -o OUT             write the result to OUT (whole or not at all)\n";

int cmdTir(Args& args) {
  relay::PassContext ctx;
  ctx.optLevel = 3;
  if (std::optional<std::string> level = args.value("--opt-level")) {
    if (level->size() != 1 || (*level)[0] < '0' || (*level)[0] > '4')
      throw UsageError{"--opt-level expects 0 to 4"};
    ctx.optLevel = (*level)[0] - '0';
  }
  const std::optional<std::string> only = args.value("--func");
  const std::optional<std::string> tracePath = args.value("--trace");
  const std::optional<std::string> seedText = args.value("--seed");
  const std::optional<std::string> out = args.value("-o");
  const std::vector<std::string> printAfter = args.values("--print-after");
  const std::vector<std::string> inputShapes = args.values("--input-shape");
  const std::optional<std::string> paramsPath = args.value("--params");
  const bool lower = args.flag("--lower");
  const bool scheduled = args.flag("--default-schedule");
  const bool list = args.flag("--list");
  const std::vector<std::string> files = args.positionals();
  if (files.size() != 1) throw UsageError{"expected exactly one FILE"};
  if (tracePath && !only) throw UsageError{"--trace needs --func NAME (the kernel it schedules)"};
  if (tracePath && scheduled) throw UsageError{"--trace and --default-schedule exclude each other"};
  if (!printAfter.empty() && !lower) throw UsageError{"--print-after needs --lower"};
  int64_t seed = 0;
  if (seedText) {
    try {
      seed = std::stoll(*seedText);
    } catch (const std::exception&) {
      throw UsageError{"--seed expects an integer"};
    }
  }

  relay::IRModule module = loadModule(files[0], inputShapes);
  if (paramsPath) module = relay::bindParams(module, readNpz(*paramsPath));
  const relay::IRModule optimized = driver::optimize(module, ctx);
  // The kernels as build() compiles them (same names as `tessera compile` and `run --profile`);
  // a module build() cannot compile (control flow, functions other than @main) is walked whole.
  std::vector<tir::PrimFunc> kernels;
  try {
    kernels = driver::graphKernels(optimized, codegen::hostTarget(), scheduled);
  } catch (const DiagnosticError&) {
    if (scheduled) throw;
    kernels = lower::primitiveKernels(optimized);
  }
  if (list) {
    std::string names;
    for (const tir::PrimFunc& k : kernels) names += k->name + "\n";
    emitText(names, out);
    return kExitOk;
  }
  if (only) {
    std::vector<tir::PrimFunc> chosen;
    for (const tir::PrimFunc& k : kernels)
      if (k->name == *only) chosen.push_back(k);
    if (chosen.empty()) {
      std::string names;
      for (const tir::PrimFunc& k : kernels) names += (names.empty() ? "" : ", ") + k->name;
      throwDiagnostic("tir_cli", "no kernel named " + *only + "; the kernels are: " + names, {},
                      files[0]);
    }
    kernels = chosen;
  }
  if (tracePath) {
    const tir::Trace trace = tir::Trace::fromJson(readTextFile(*tracePath));
    tir::Schedule sch(kernels[0], seed);
    tir::applyTrace(sch, trace);
    kernels[0] = lower::withKernelName(sch.func(), kernels[0]->name);
  }
  tir::TirModule result;
  for (tir::PrimFunc k : kernels) {
    if (lower) {
      tir::transform::LowerOptions options;
      const bool all = std::find(printAfter.begin(), printAfter.end(), "all") != printAfter.end();
      if (all || !printAfter.empty()) {
        options.printAfter = [&](const std::string& pass, const tir::PrimFunc& f) {
          if (all || std::find(printAfter.begin(), printAfter.end(), pass) != printAfter.end())
            std::cerr << "# after " << pass << "\n" << tir::toScript(f) << "\n";
        };
      }
      k = tir::transform::lower(k, options);
    }
    result.add(k);
  }
  emitText(tir::toScript(result), out);
  return kExitOk;
}

}  // namespace tessera::cli
