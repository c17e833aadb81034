// `tessera run FILE`: evaluate a module's entry function on .npy inputs with the reference
// interpreter.
#include <iostream>
#include <set>

#include "cli.h"
#include "driver/pipeline.h"
#include "relay/interp/interpreter.h"
#include "runtime/npy.h"
#include "support/diagnostic.h"

namespace tessera::cli {

const char* const kRunUsage =
    "usage: tessera run FILE [--input NAME=FILE.npy ...] [--random-inputs SEED] [--output "
    "OUT.npy]\n"
    "                        [--entry NAME] [--opt-level N] [--no-optimize] [--interpreter]\n"
    "\n"
    "FILE is Relay text or an ONNX model (.onnx).\n"
    "Optimizes FILE with the relay.build pipeline, runs @main (or --entry NAME) and prints the "
    "result.\n"
    "  --input NAME=FILE.npy   value of parameter %NAME (repeat for each parameter)\n"
    "  --random-inputs SEED    fill parameters without --input with seeded uniform values in [-1, "
    "1)\n"
    "  --output OUT            save the result: OUT.npy for a tensor, OUT.npz for a tuple\n"
    "  --opt-level N           opt level of the optimization pipeline (default 3)\n"
    "  --no-optimize           run the module exactly as written\n"
    "  --input-shape NAME=D0,D1,...  shape of an ONNX graph input (repeatable)\n"
    "  --interpreter           use the reference interpreter (currently the only engine)\n";

namespace {

NDArray randomFor(const Type& type, const std::string& name, uint64_t seed) {
  const auto* t = type ? type->as<TensorTypeNode>() : nullptr;
  if (!t)
    throwDiagnostic("input", "only tensor parameters can be filled randomly", Span{}, "%" + name);
  std::optional<std::vector<int64_t>> dims = staticShape(t->shape);
  if (!dims)
    throwDiagnostic("input",
                    "has a non-static shape " + typeToString(type) + "; give it with --input",
                    Span{}, "%" + name);
  NDArray a = NDArray::empty(*dims, t->dtype);
  // A small LCG keeps the values reproducible across platforms.
  uint64_t state = seed * 6364136223846793005ull + 1442695040888963407ull;
  for (int64_t i = 0; i < a.numel(); ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    const double u = static_cast<double>(state >> 11) / 9007199254740992.0;  // [0, 1)
    if (t->dtype.isFloat())
      a.setFloat(i, 2 * u - 1);
    else
      a.setInt(i, static_cast<int64_t>(u * 256) - 128);
  }
  return a;
}

}  // namespace

int cmdRun(Args& args) {
  args.flag("--interpreter");
  const bool optimizeModule = !args.flag("--no-optimize");
  int optLevel = 3;
  if (std::optional<std::string> level = args.value("--opt-level")) {
    if (level->size() != 1 || (*level)[0] < '0' || (*level)[0] > '4')
      throw UsageError{"--opt-level expects 0 to 4"};
    optLevel = (*level)[0] - '0';
  }
  std::vector<std::string> inputs = args.values("--input");
  std::optional<std::string> seedText = args.value("--random-inputs");
  std::optional<std::string> output = args.value("--output");
  std::string entry = args.value("--entry").value_or("main");
  std::vector<std::string> inputShapes = args.values("--input-shape");
  std::vector<std::string> files = args.positionals();
  if (files.size() != 1) throw UsageError{"expected exactly one FILE"};

  std::map<std::string, NDArray> given;
  for (const std::string& spec : inputs) {
    const size_t eq = spec.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size())
      throw UsageError{"--input expects NAME=FILE.npy but got '" + spec + "'"};
    const std::string name = spec.substr(0, eq);
    if (given.count(name)) throw UsageError{"input '" + name + "' is given twice"};
    given[name] = readNpy(spec.substr(eq + 1));
  }
  uint64_t seed = 0;
  if (seedText) {
    try {
      seed = std::stoull(*seedText);
    } catch (const std::exception&) {
      throw UsageError{"--random-inputs expects a non-negative integer seed"};
    }
  }

  relay::IRModule module = loadModule(files[0], inputShapes);
  if (optimizeModule) {
    relay::PassContext ctx;
    ctx.optLevel = optLevel;
    module = driver::optimize(module, ctx);
  }
  relay::Interpreter interpreter(module);
  const relay::Function& fn = interpreter.module().lookup(entry);
  std::vector<relay::Value> values;
  std::set<std::string> used;
  std::string missing;
  for (const relay::Var& p : fn->params) {
    auto it = given.find(p->nameHint);
    if (it != given.end()) {
      values.emplace_back(it->second);
      used.insert(p->nameHint);
    } else if (seedText) {
      values.emplace_back(randomFor(p->typeAnnotation, p->nameHint, seed + values.size()));
    } else {
      missing += (missing.empty() ? "" : ", ") + ("%" + p->nameHint) + ": " +
                 typeToString(p->typeAnnotation);
    }
  }
  if (!missing.empty())
    throwDiagnostic(
        "input",
        "missing inputs " + missing + " (give --input NAME=FILE.npy or --random-inputs SEED)",
        Span{}, "@" + entry);
  for (const auto& [name, array] : given)
    if (!used.count(name))
      throwDiagnostic("input", "@" + entry + " has no parameter named %" + name, Span{}, "--input");

  relay::Value result = interpreter.call(entry, values);
  if (output) {
    if (result.isTensor()) {
      writeNpy(*output, result.tensor());
    } else {
      std::map<std::string, NDArray> fields;
      for (size_t i = 0; i < result.fields().size(); ++i) {
        if (!result.fields()[i].isTensor())
          throwDiagnostic("output", "nested tuples cannot be saved", Span{}, *output);
        fields["output_" + std::to_string(i)] = result.fields()[i].tensor();
      }
      writeNpz(*output, fields);
    }
    std::cout << "saved result to " << *output << "\n";
    return kExitOk;
  }
  std::cout << formatValue(result) << "\n";
  return kExitOk;
}

}  // namespace tessera::cli
