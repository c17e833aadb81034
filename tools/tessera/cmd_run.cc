// `tessera run FILE`: evaluate a module's entry function on .npy inputs, compiled (build() and
// the graph executor) by default, or with the reference interpreter.
#include <algorithm>
#include <functional>
#include <iostream>
#include <set>
#include <sstream>

#include "cli.h"
#include "codegen/llvm/target.h"
#include "driver/build.h"
#include "driver/pipeline.h"
#include "pass_options.h"
#include "relay/interp/interpreter.h"
#include "runtime/graph_executor/graph_executor.h"
#include "runtime/npy.h"
#include "runtime/time_evaluator.h"
#include "runtime/vm/vm.h"
#include "support/diagnostic.h"
#include "tuning_db.h"
#include "vta_report.h"

namespace tessera::cli {

const char* const kRunUsage =
    "usage: tessera run FILE [--input NAME=FILE.npy ...] [--random-inputs SEED] [--output "
    "OUT.npy]\n"
    "                        [--entry NAME] [--opt-level N] [--no-optimize] [--interpreter]\n"
    "                        [--no-fallback] [--target TARGET] [--bench N] [--profile N]\n"
    "                        [--pass-config KEY=VALUE] [--disabled-pass NAME[,NAME]] [--db DIR]\n"
    "                        [--vta-stats] [--vta-trace OUT.json]\n"
    "\n"
    "FILE is Relay text, an ONNX model (.onnx) or a directory written by `tessera compile`.\n"
    "Compiles FILE with the relay.build pipeline (graph optimization, fusion, LLVM), runs @main\n"
    "with the graph executor and prints the result. Control flow on run-time values (if, loops\n"
    "written as recursive functions) runs compiled on the VM. A module the compiler cannot\n"
    "handle (e.g. data-dependent shapes) runs on the reference interpreter, with a note on\n"
    "stderr. The first line on stdout names the engine that ran: `engine: compiled (graph\n"
    "executor)`, `engine: compiled (VM)`, `engine: interpreter (asked: FLAG)` or\n"
    "`engine: interpreter (fallback: ERROR)`.\n"
    "  --input NAME=FILE.npy   value of parameter %NAME (repeat for each parameter)\n"
    "  --random-inputs SEED    fill parameters without --input with seeded uniform values in [-1, "
    "1)\n"
    "  --output OUT            save the result: OUT.npy for a tensor, OUT.npz for a tuple\n"
    "  --no-optimize           run the module exactly as written (on the interpreter)\n"
    "  --input-shape NAME=D0,D1,...  shape of an ONNX graph input (repeatable)\n"
    "  --interpreter           use the reference interpreter instead of compiled code\n"
    "  --no-fallback           a module that does not compile is an error (exit 1), not a run\n"
    "                          on the interpreter\n"
    "  --entry NAME            run @NAME instead of @main (on the interpreter)\n"
    "  --target TARGET         code generation target (default: the host); `vta`: packed\n"
    "                          convolutions on the VTA simulator, the rest on the CPU\n"
    "  --vta-stats             after the result, the simulator's counters over the run\n"
    "                          (`Execution statistics:` and one line per counter)\n"
    "  --vta-trace OUT.json    the cycle model's timeline of the run (Chrome trace format)\n"
    "  --db DIR                apply the best schedules of a tuning database (`tessera tune`)\n"
    "  --bench N               also time N runs and print median, min and max\n"
    "  --profile N             compiled code: time every kernel over N runs and print a table\n"
    "                          (median per run, share of the total), slowest "
    "first\n" TESSERA_PASS_CONTEXT_USAGE TESSERA_PASS_INSTRUMENTS_USAGE;

namespace {

// Seeded values in [-1, 1) for floats and [-128, 128) for integers; a small LCG keeps them
// reproducible across platforms (and identical for the interpreter and compiled code).
NDArray randomArray(const std::vector<int64_t>& shape, DataType dtype, uint64_t seed) {
  NDArray a = NDArray::empty(shape, dtype);
  uint64_t state = seed * 6364136223846793005ull + 1442695040888963407ull;
  for (int64_t i = 0; i < a.numel(); ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    const double u = static_cast<double>(state >> 11) / 9007199254740992.0;  // [0, 1)
    if (dtype.isFloat())
      a.setFloat(i, 2 * u - 1);
    else
      a.setInt(i, static_cast<int64_t>(u * 256) - 128);
  }
  return a;
}

NDArray randomFor(const Type& type, const std::string& name, uint64_t seed) {
  const auto* t = type ? type->as<TensorTypeNode>() : nullptr;
  if (!t)
    throwDiagnostic("input", "only tensor parameters can be filled randomly", Span{}, "%" + name);
  std::optional<std::vector<int64_t>> dims = staticShape(t->shape);
  if (!dims)
    throwDiagnostic("input",
                    "has a non-static shape " + typeToString(type) + "; give it with --input",
                    Span{}, "%" + name);
  return randomArray(*dims, t->dtype, seed);
}

// What the command line asked for, shared by both engines.
struct RunRequest {
  std::map<std::string, NDArray> given;
  std::optional<uint64_t> seed;
  std::string entry;
  int bench = 0;
  int profile = 0;
  std::string timing;  // filled by the engine when bench or profile > 0
  bool ranCompiled = false;
  VtaReportOptions vta;
  std::string vtaReport;  // filled after the run when vta.wanted()
};

// A result as .npy can hold it: bfloat16, which numpy lacks, widens exactly to float32.
NDArray savable(const NDArray& a) {
  return a.dtype() == DataType::bfloat16() ? a.toFloat(DataType::float32()) : a;
}

// One value per parameter, from --input or --random-inputs; the messages name what is missing
// or unknown the same way for both engines.
struct InputResolver {
  const RunRequest& request;
  std::set<std::string> used;
  std::string missing;

  std::optional<NDArray> valueFor(const std::string& name, size_t index,
                                  const std::function<NDArray(uint64_t)>& random,
                                  const std::string& typeText, DataType expected) {
    auto it = request.given.find(name);
    if (it != request.given.end()) {
      used.insert(name);
      // numpy has no bfloat16: a bfloat16 parameter takes float32 data, rounded to nearest even.
      if (expected == DataType::bfloat16() && it->second.dtype() == DataType::float32())
        return it->second.toFloat(expected);
      return it->second;
    }
    if (request.seed) return random(*request.seed + index);
    missing += (missing.empty() ? "" : ", ") + ("%" + name) + ": " + typeText;
    return std::nullopt;
  }
  void finish() const {
    if (!missing.empty())
      throwDiagnostic(
          "input",
          "missing inputs " + missing + " (give --input NAME=FILE.npy or --random-inputs SEED)",
          Span{}, "@" + request.entry);
    for (const auto& [name, array] : request.given)
      if (!used.count(name))
        throwDiagnostic("input", "@" + request.entry + " has no parameter named %" + name, Span{},
                        "--input");
  }
};

// "bench (compiled, N runs): mean ..., median ..."; printed after the result.
std::string timingLine(const std::function<void()>& fn, int runs, const std::string& engine) {
  TimeEvaluatorOptions options;
  options.repeat = runs;
  return "bench (" + engine + ", " + std::to_string(runs) +
         " runs): " + timeEvaluator(fn, options).str();
}

// Kernels slowest first: median ms per run, calls per run, share of the summed time.
std::string profileTable(std::vector<runtime::KernelTime> kernels) {
  std::stable_sort(kernels.begin(), kernels.end(),
                   [](const auto& a, const auto& b) { return a.seconds > b.seconds; });
  double total = 0;
  for (const auto& k : kernels) total += k.seconds;
  std::ostringstream out;
  out << "profile (median of the runs):\n"
      << "      ms  calls  share  kernel\n";
  for (const auto& k : kernels) {
    char line[64];
    std::snprintf(line, sizeof line, "%8.3f  %5d  %4.1f%%  ", k.seconds * 1e3, k.calls,
                  total > 0 ? 100.0 * k.seconds / total : 0.0);
    out << line << k.kernel << "\n";
  }
  char sum[64];
  std::snprintf(sum, sizeof sum, "%8.3f  total", total * 1e3);
  out << sum;
  return out.str();
}

relay::Value runInterpreter(const relay::IRModule& module, RunRequest& request) {
  relay::Interpreter interpreter(module);
  const relay::Function& fn = interpreter.module().lookup(request.entry);
  std::vector<relay::Value> values;
  InputResolver inputs{request, {}, {}};
  for (const relay::Var& p : fn->params) {
    auto random = [&](uint64_t seed) { return randomFor(p->typeAnnotation, p->nameHint, seed); };
    const auto* tensor = p->typeAnnotation ? p->typeAnnotation->as<TensorTypeNode>() : nullptr;
    if (auto v =
            inputs.valueFor(p->nameHint, values.size(), random, typeToString(p->typeAnnotation),
                            tensor ? tensor->dtype : DataType::voidType()))
      values.emplace_back(*v);
    else
      values.emplace_back();  // placeholder; finish() reports every missing input at once
  }
  inputs.finish();
  relay::Value result = interpreter.call(request.entry, values);
  if (request.bench > 0)
    request.timing =
        timingLine([&] { interpreter.call(request.entry, values); }, request.bench, "interpreter");
  return result;
}

relay::Value runCompiled(const driver::Built& built, RunRequest& request) {
  runtime::GraphExecutor executor(built.model());
  InputResolver inputs{request, {}, {}};
  std::vector<std::pair<int, NDArray>> values;
  for (int i = 0; i < executor.numInputs(); ++i) {
    const runtime::TensorEntry& info = executor.inputInfo(i);
    auto random = [&](uint64_t seed) { return randomArray(info.shape, info.dtype, seed); };
    const std::string typeText =
        "Tensor[" + shapeString(info.shape) + ", " + info.dtype.name() + "]";
    if (auto v = inputs.valueFor(executor.inputName(i), i, random, typeText, info.dtype))
      values.emplace_back(i, *v);
  }
  inputs.finish();
  for (const auto& [index, value] : values) executor.setInput(index, value);
  if (request.vta.wanted()) {
    VtaRunReport report(executor, request.vta);
    executor.run();
    request.vtaReport = report.finish();
  } else {
    executor.run();
  }
  // The graph's outputs are flat: one output is the tensor @main returns, several a tuple.
  std::vector<relay::Value> fields;
  for (int i = 0; i < executor.numOutputs(); ++i) fields.emplace_back(executor.getOutput(i).copy());
  if (request.bench > 0)
    request.timing = timingLine([&] { executor.run(); }, request.bench, "compiled");
  if (request.profile > 0)
    request.timing +=
        (request.timing.empty() ? "" : "\n") + profileTable(executor.profile(request.profile));
  request.ranCompiled = true;
  return fields.size() == 1 ? fields[0] : relay::Value::tuple(std::move(fields));
}

relay::Value fromVM(const runtime::vm::VMValue& v) {
  if (!v.isTuple()) return relay::Value(v.tensor);
  std::vector<relay::Value> fields;
  for (const runtime::vm::VMValue& f : *v.tuple) fields.push_back(fromVM(f));
  return relay::Value::tuple(std::move(fields));
}

// A module with control flow, compiled for the VM.
relay::Value runOnVM(const driver::Built& built, RunRequest& request) {
  runtime::vm::VirtualMachine vm(*built.exec);
  const runtime::vm::VMFunction& main = built.exec->functions.at("main");
  InputResolver inputs{request, {}, {}};
  std::vector<NDArray> args;
  for (size_t i = 0; i < main.params.size(); ++i) {
    const runtime::vm::Param& p = main.params[i];
    auto random = [&](uint64_t seed) {
      std::vector<int64_t> shape;
      for (const runtime::vm::ShapeExpr& d :
           p.shape.value_or(std::vector<runtime::vm::ShapeExpr>{}))
        shape.push_back(d.value);
      if (!p.isTensor)
        throwDiagnostic("input", "only tensor parameters can be filled randomly", Span{},
                        "%" + p.name);
      return randomArray(shape, p.dtype, seed);
    };
    std::optional<NDArray> v = inputs.valueFor(p.name, i, random, p.annotation, p.dtype);
    args.push_back(v ? *v : NDArray());
  }
  inputs.finish();
  relay::Value result = fromVM(vm.invoke("main", args));
  if (request.bench > 0)
    request.timing = timingLine([&] { vm.invoke("main", args); }, request.bench, "compiled, VM");
  if (request.profile > 0)
    request.timing += (request.timing.empty() ? "" : "\n") +
                      profileTable(vm.profile("main", args, request.profile));
  request.ranCompiled = true;
  return result;
}

// The first line on stdout, flushed before the run so that a crash still names its engine;
// scripts (the conformance runner) read it instead of stderr's prose.
void reportEngine(const std::string& engine) {
  std::cout << "engine: " << engine << std::endl;
}

relay::Value runBuilt(const driver::Built& built, RunRequest& request) {
  if (request.vta.wanted() && built.isVM())
    throw UsageError{"--vta-stats and --vta-trace apply to modules compiled with --target vta"};
  std::string devices;
  for (size_t d = 1; !built.isVM() && d < built.graph.devices.size(); ++d)
    devices += " + " + built.graph.devices[d].name;
  reportEngine(built.isVM()        ? "compiled (VM)"
               : devices.empty() ? "compiled (graph executor)"
                                 : "compiled (graph executor: cpu" + devices + ")");
  return built.isVM() ? runOnVM(built, request) : runCompiled(built, request);
}

// Why @main is not compiled although the user did not ask for the interpreter: the build
// error's first line (its notes would break the one-line report).
std::string fallbackReason(const Diagnostic& diagnostic) {
  Diagnostic head = diagnostic;
  head.notes.clear();
  std::string text = head.str();
  std::replace(text.begin(), text.end(), '\n', ' ');
  return text;
}

// The flag that chose the interpreter; the caller has established that one did.
std::string interpreterFlag(bool forceInterpreter, bool optimizeModule, const std::string& entry) {
  if (forceInterpreter) return "--interpreter";
  if (!optimizeModule) return "--no-optimize";
  return "--entry " + entry;
}

int parseRuns(const std::optional<std::string>& text, const std::string& flag) {
  if (!text) return 0;
  try {
    size_t used = 0;
    const int n = std::stoi(*text, &used);
    if (used == text->size() && n >= 1) return n;
  } catch (const std::exception&) {
  }
  throw UsageError{flag + " expects a positive number of runs"};
}

}  // namespace

int cmdRun(Args& args) {
  const bool forceInterpreter = args.flag("--interpreter");
  const bool noFallback = args.flag("--no-fallback");
  const bool optimizeModule = !args.flag("--no-optimize");
  PassContextFlags flags = parsePassContext(args, /*instruments=*/true);
  relay::PassContext& ctx = flags.ctx;
  const bool level = flags.given;
  std::vector<std::string> inputs = args.values("--input");
  std::optional<std::string> seedText = args.value("--random-inputs");
  std::optional<std::string> output = args.value("--output");
  const std::optional<std::string> entryFlag = args.value("--entry");
  const std::optional<std::string> targetText = args.value("--target");
  const std::optional<std::string> dbDir = args.value("--db");
  RunRequest request;
  request.entry = entryFlag.value_or("main");
  request.bench = parseRuns(args.value("--bench"), "--bench");
  request.profile = parseRuns(args.value("--profile"), "--profile");
  request.vta.stats = args.flag("--vta-stats");
  request.vta.tracePath = args.value("--vta-trace");
  std::vector<std::string> inputShapes = args.values("--input-shape");
  std::vector<std::string> files = args.positionals();
  if (files.size() != 1) throw UsageError{"expected exactly one FILE"};

  for (const std::string& spec : inputs) {
    const size_t eq = spec.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size())
      throw UsageError{"--input expects NAME=FILE.npy but got '" + spec + "'"};
    const std::string name = spec.substr(0, eq);
    if (request.given.count(name)) throw UsageError{"input '" + name + "' is given twice"};
    request.given[name] = readNpy(spec.substr(eq + 1));
  }
  if (seedText) {
    try {
      request.seed = std::stoull(*seedText);
    } catch (const std::exception&) {
      throw UsageError{"--random-inputs expects a non-negative integer seed"};
    }
  }

  relay::Value result;
  if (driver::isBuiltDirectory(files[0])) {
    // A compiled directory (graph or VM) has no graph IR left to interpret or re-optimize.
    if (forceInterpreter || !optimizeModule || entryFlag || level || dbDir || !inputShapes.empty())
      throw UsageError{
          "a compiled directory runs as compiled: --interpreter, --no-optimize, "
          "--entry, --opt-level, --pass-config, --disabled-pass, --db and --input-shape do "
          "not apply"};
    driver::Built built = driver::loadBuilt(files[0]);
    // The directory records its devices; --target may only name what it was compiled for.
    if (targetText) {
      const bool wantsVta = target::Target::parse(*targetText).isVta();
      bool hasVta = false;
      for (const runtime::DeviceInfo& d : built.graph.devices) hasVta |= d.name == "vta";
      if (wantsVta != hasVta)
        throw UsageError{"--target " + *targetText + " does not match the directory, which was " +
                         "compiled " + (hasVta ? "for vta" : "without vta") +
                         " (a compiled directory records its targets; leave --target out)"};
    }
    result = runBuilt(built, request);
  } else {
    relay::IRModule module = loadModule(files[0], inputShapes, request.given);
    // Compiled code runs @main of the optimized module; anything else is the interpreter's.
    const bool compiled = !forceInterpreter && optimizeModule && request.entry == "main";
    std::optional<driver::Built> built;
    std::string engine;
    if (!compiled)
      engine = "interpreter (asked: " +
               interpreterFlag(forceInterpreter, optimizeModule, request.entry) + ")";
    if (compiled) {
      driver::BuildOptions options;
      options.optLevel = std::nullopt;  // the context's, from --opt-level
      options.context = &ctx;
      // Control flow on run-time values runs on the VM; a plain graph on the graph executor.
      options.executor = driver::Executor::kAuto;
      options.scheduleProvider = openTuningDatabase(dbDir);
      const target::Target target =
          targetText ? target::Target::parse(*targetText) : codegen::hostTarget();
      try {
        // Handed over, so that the weights are held once while the build rewrites and packs
        // them; the interpreter below reads the model again if the build fails.
        built = driver::build(std::move(module), target, {}, options);
      } catch (const DiagnosticError& e) {
        if (e.diagnostic().code == "target" || e.diagnostic().code == "pass_config") throw;
        if (noFallback) {
          Diagnostic refused = e.diagnostic();
          refused.notes.push_back("--no-fallback: not running the reference interpreter");
          throw DiagnosticError(std::move(refused));
        }
        std::cerr << "note: cannot compile this module (" << e.diagnostic().str()
                  << "); running the reference interpreter\n";
        engine = "interpreter (fallback: " + fallbackReason(e.diagnostic()) + ")";
      }
    }
    if (built) {
      if (dbDir) reportTunedKernels(*dbDir, *built);
      result = runBuilt(*built, request);
    } else {
      if (compiled) module = loadModule(files[0], inputShapes, request.given);
      if (optimizeModule) module = driver::optimize(module, ctx);
      reportEngine(engine);
      result = runInterpreter(module, request);
    }
  }

  if (output) {
    if (result.isTensor()) {
      writeNpy(*output, savable(result.tensor()));
    } else {
      std::map<std::string, NDArray> fields;
      for (size_t i = 0; i < result.fields().size(); ++i) {
        if (!result.fields()[i].isTensor())
          throwDiagnostic("output", "nested tuples cannot be saved", Span{}, *output);
        fields["output_" + std::to_string(i)] = savable(result.fields()[i].tensor());
      }
      writeNpz(*output, fields);
    }
    std::cout << "saved result to " << *output << "\n";
  } else {
    std::cout << formatValue(result) << "\n";
  }
  if (request.profile > 0 && !request.ranCompiled)
    std::cerr << "note: --profile times compiled kernels; the interpreter ran\n";
  if (!request.vtaReport.empty()) std::cout << request.vtaReport;
  if (!request.timing.empty()) std::cout << request.timing << "\n";
  if (ctx.timePasses) printPassTimings(ctx);
  return kExitOk;
}

}  // namespace tessera::cli
