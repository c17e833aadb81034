// `tessera tir FILE`: the TensorIR of a graph module's kernels. The module is optimized and fused
// as `relay.build` does; each fused primitive function becomes a PrimFunc through its ops' TE
// computes. Optionally a schedule trace is replayed on one of them, and the result lowered.
#include <algorithm>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>

#include "cli.h"
#include "codegen/llvm/target.h"
#include "driver/build.h"
#include "driver/pipeline.h"
#include "lower/relay/to_graph.h"
#include "pass_options.h"
#include "relax/printer.h"
#include "relax/script_parser.h"
#include "relay/strategy/strategy.h"
#include "relay/transform/passes.h"
#include "relay/visit.h"
#include "runtime/npy.h"
#include "support/diagnostic.h"
#include "tir/printer/printer.h"
#include "tir/schedule/schedule.h"
#include "tir/schedule/trace.h"
#include "tir/transform/lower.h"
#include "tune/database.h"
#include "tune/model_tasks.h"
#include "tune_command.h"

namespace tessera::cli {

const char* const kTirUsage =
    "usage: tessera tir FILE [--func NAME] [--trace TRACE.json] [--seed N] [--lower]\n"
    "                        [--print-after NAME|all] [--time-passes] [--opt-level N]\n"
    "                        [--pass-config KEY=VALUE] [--disabled-pass NAME[,NAME]]\n"
    "                        [--input-shape NAME=D0,...] [--params FILE.npz] [--list]\n"
    "                        [--default-schedule] [-o OUT]\n"
    "       tessera tir FILE --func NAME --tune --trials N --db DIR [tessera tune's options]\n"
    "\n"
    "Prints the TensorIR kernels of the model in FILE (Relay text or ONNX), made by the steps of\n"
    "`tessera compile`: the module is optimized and fused, and every fused primitive function\n"
    "becomes one PrimFunc named fused_<ops> (e.g. fused_nn_dense_add_nn_relu).\n"
    "A FILE ending in .py is TVMScript, as Tessera prints it (an @I.ir_module class of\n"
    "@T.prim_func and @R.function definitions, or bare @T.prim_func definitions): its PrimFuncs\n"
    "are the kernels. Without --func, --trace, --lower or --list a script with Relax functions\n"
    "prints back whole.\n"
    "  --func NAME        only this kernel\n"
    "  --list             list the kernel names and exit\n"
    "  --trace FILE       replay a schedule trace (JSON, as the schedule API saves it) on the\n"
    "                     kernel chosen with --func, then print the scheduled function\n"
    "  --seed N           seed for sampling instructions in the trace that have no decision\n"
    "  --default-schedule print the kernels as `tessera compile` builds them for the host:\n"
    "                     weights packed, the default x86 schedule applied\n"
    "  --lower            print the kernels after the TIR lowering passes (a flat loop program)\n"
    "  --input-shape NAME=D0,D1,...  shape of an ONNX graph input (repeatable)\n"
    "  --params FILE.npz  bind these arrays to @main's parameters of the same names first, as\n"
    "                     `tessera compile --params` does (constant weights get packed)\n"
    "  --tune             tune the kernel chosen with --func (as `tessera tune --tasks` does for\n"
    "                     one kernel), then print it with the database's best schedule\n"
    "  -o OUT             write the result to OUT (whole or not at "
    "all)\n" TESSERA_PASS_CONTEXT_USAGE TESSERA_PASS_INSTRUMENTS_USAGE
    "                         (a TIR lowering pass only with --lower)\n";

namespace {

// The kernels of `module` as `tessera compile` makes them, through ScheduleKernels (which
// leaves them unscheduled without `scheduled`). A module the compiler cannot lower is the
// compiler's error, reported as such (there is no second way of making kernels to fall back on).
std::vector<tir::PrimFunc> compiledKernels(relay::IRModule module,
                                           const std::map<std::string, NDArray>& params,
                                           bool scheduled, relay::PassContext& ctx) {
  driver::CompileState state{.module = std::move(module),
                             .target = codegen::hostTarget(),
                             .params = params,
                             .defaultSchedules = scheduled};
  state.vm = driver::needsVM(state.module);
  relay::PassContext::Scope scope(ctx);
  driver::runStep(state, ctx, "Optimize");
  driver::runStep(state, ctx, "LowerGraphToTIR");
  driver::runStep(state, ctx, "ScheduleKernels");
  return state.kernels;
}

bool isTvmScript(const std::string& path) {
  return path.size() > 3 && path.compare(path.size() - 3, 3, ".py") == 0;
}

// The PrimFuncs of a TVMScript module (named as defined, private ones staying private);
// `hasRelax` tells whether it also holds Relax functions.
std::vector<tir::PrimFunc> scriptKernels(const relax::IRModule& module, bool& hasRelax) {
  std::vector<tir::PrimFunc> kernels;
  hasRelax = false;
  for (const relax::IRModule::Entry& e : module.entries()) {
    const auto* prim = std::get_if<tir::PrimFunc>(&e.func);
    if (!prim) {
      hasRelax = true;
      continue;
    }
    kernels.push_back(*prim);
  }
  return kernels;
}

bool namesLoweringPass(const relay::PassContext& ctx) {
  for (const std::string& name : tir::transform::lowerPassNames())
    if (ctx.printAfter.count(name)) return true;
  return false;
}

// `--tune`: the one kernel named `name` tuned into the database, then printed as the database's
// best record schedules it.
int tuneOneKernel(relay::IRModule module, const std::string& name, const TuneFlags& flags,
                  const std::optional<std::string>& out) {
  std::vector<tune::TuneTask> tasks =
      tune::modelTasks(std::move(module), flags.target, flags.params);
  std::vector<tune::TuneTask> chosen;
  std::string names;
  for (tune::TuneTask& t : tasks) {
    names += (names.empty() ? "" : ", ") + t.name;
    if (t.name == name) chosen.push_back(std::move(t));
  }
  if (chosen.empty())
    throwDiagnostic("tir_cli", "no kernel named " + name + "; the kernels are: " + names);
  const tir::PrimFunc func = chosen[0].func;
  runTuning(std::move(chosen), flags);
  const tune::Database database(flags.db);
  std::optional<tir::PrimFunc> best = tune::compileTir(database, func, flags.target);
  if (!best) throwDiagnostic("tir_cli", "no valid measurement of " + name + " in " + flags.db);
  emitText(tir::toScript(*best), out);
  return kExitOk;
}

}  // namespace

int cmdTir(Args& args) {
  const bool tuneKernel = args.flag("--tune");
  std::optional<TuneFlags> tuneFlags;
  if (tuneKernel) tuneFlags = parseTuneFlags(args);
  PassContextFlags flags = parsePassContext(args, /*instruments=*/true);
  relay::PassContext& ctx = flags.ctx;
  const std::optional<std::string> only = args.value("--func");
  const std::optional<std::string> tracePath = args.value("--trace");
  const std::optional<std::string> seedText = args.value("--seed");
  const std::optional<std::string> out = args.value("-o");
  const std::vector<std::string> inputShapes = args.values("--input-shape");
  const std::optional<std::string> paramsPath = args.value("--params");
  const bool lower = args.flag("--lower");
  const bool scheduled = args.flag("--default-schedule");
  const bool list = args.flag("--list");
  const std::vector<std::string> files = args.positionals();
  if (files.size() != 1) throw UsageError{"expected exactly one FILE"};
  if (tracePath && !only) throw UsageError{"--trace needs --func NAME (the kernel it schedules)"};
  if (tracePath && scheduled) throw UsageError{"--trace and --default-schedule exclude each other"};
  if (namesLoweringPass(ctx) && !lower)
    throw UsageError{"--print-after names a TIR lowering pass: add --lower"};
  int64_t seed = 0;
  if (seedText) {
    try {
      seed = std::stoll(*seedText);
    } catch (const std::exception&) {
      throw UsageError{"--seed expects an integer"};
    }
  }

  const bool script = isTvmScript(files[0]);
  if (script && (tuneKernel || scheduled || paramsPath || !inputShapes.empty()))
    throw UsageError{
        "--tune, --default-schedule, --params and --input-shape apply to models, not TVMScript"};
  if (tuneKernel) {
    if (!only) throw UsageError{"--tune needs --func NAME (the kernel it tunes)"};
    if (tracePath || scheduled || lower || list)
      throw UsageError{"--tune excludes --trace, --default-schedule, --lower and --list"};
    return tuneOneKernel(loadModule(files[0], tuneFlags->inputShapes), *only, *tuneFlags, out);
  }
  std::vector<tir::PrimFunc> kernels;
  if (script) {
    const relax::IRModule module = relax::parseScript(readTextFile(files[0]), files[0]);
    bool hasRelax = false;
    kernels = scriptKernels(module, hasRelax);
    if (hasRelax && !only && !tracePath && !lower && !list) {
      emitText(relax::toScript(module), out);
      return kExitOk;
    }
    if (kernels.empty())
      throwDiagnostic("tir_cli", "the script has no @T.prim_func to print", {}, files[0]);
  } else {
    std::map<std::string, NDArray> params;
    if (paramsPath) params = readNpz(*paramsPath);
    kernels = compiledKernels(loadModule(files[0], inputShapes), params, scheduled, ctx);
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
  // A model's kernels are lowered as `tessera compile` lowers them: carrying their target (the
  // host; NarrowFixedPointMultiply reads its features), which the printout then leaves out.
  const bool withTarget = lower && !script;
  const AttrValue host = AttrValue::string(codegen::hostTarget().str());
  for (const tir::PrimFunc& k : kernels)
    result.add(withTarget ? tir::withAttr(k, "target", host) : k);
  // The same TIR passes as the LowerTIR step of `tessera compile`, configured by the context.
  if (lower) result = tir::transform::lower(std::move(result), ctx);
  if (withTarget) {
    tir::TirModule printed;
    for (const tir::PrimFunc& k : result.functions()) printed.add(tir::withoutAttr(k, "target"));
    result = std::move(printed);
  }
  emitText(tir::toScript(result), out);
  if (ctx.timePasses) printPassTimings(ctx);
  return kExitOk;
}

}  // namespace tessera::cli
