// Deploying a compiled model without the compiler: loads a directory written by
// `tessera compile` (kernels.so, graph.json, params.npz; or, for a model with control flow,
// kernels.so, vm.json, constants.npz) with the runtime library alone — no LLVM, no graph IR —
// runs it on .npy inputs and writes the outputs (a tuple's fields in order).
//
//   run_graph_model MODEL_DIR NAME=INPUT.npy... -o OUTPUT_0.npy [-o OUTPUT_1.npy ...]
//
// Exit status 0 on success, 1 with a diagnostic on bad input, 2 on a usage mistake.
#include <iostream>
#include <string>
#include <vector>

#include "runtime/graph_executor/graph_executor.h"
#include "runtime/graph_executor/graph_model.h"
#include "runtime/npy.h"
#include "runtime/vm/vm.h"
#include "runtime/vm/vm_file.h"
#include "support/diagnostic.h"

namespace {

int usage(const std::string& problem) {
  std::cerr << "run_graph_model: " << problem
            << "\nusage: run_graph_model MODEL_DIR NAME=INPUT.npy... -o OUTPUT.npy...\n";
  return 2;
}

void flatten(const tessera::runtime::vm::VMValue& v, std::vector<tessera::NDArray>& out) {
  if (!v.isTuple()) {
    out.push_back(v.tensor);
    return;
  }
  for (const auto& field : *v.tuple) flatten(field, out);
}

// A VM program: inputs matched to @main's parameters by name.
std::vector<tessera::NDArray> runProgram(
    const std::string& dir, const std::vector<std::pair<std::string, std::string>>& inputs) {
  using namespace tessera;
  runtime::vm::VirtualMachine vm(runtime::vm::loadExecutable(dir));
  const runtime::vm::VMFunction& main = vm.executable().functions.at("main");
  std::vector<NDArray> args(main.params.size());
  for (const auto& [name, path] : inputs) {
    size_t i = 0;
    while (i < main.params.size() && main.params[i].name != name) ++i;
    if (i == main.params.size())
      throwDiagnostic("input", "the model has no input named '" + name + "'");
    args[i] = readNpy(path);
  }
  std::vector<NDArray> outputs;
  flatten(vm.invoke("main", args), outputs);
  return outputs;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace tessera;
  if (argc < 2) return usage("expected a model directory");
  std::vector<std::pair<std::string, std::string>> inputs;
  std::vector<std::string> outputs;
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "-o") {
      if (++i == argc) return usage("-o needs a file");
      outputs.push_back(argv[i]);
      continue;
    }
    const size_t eq = arg.find('=');
    if (eq == std::string::npos || eq == 0) return usage("expected NAME=INPUT.npy, got " + arg);
    inputs.emplace_back(arg.substr(0, eq), arg.substr(eq + 1));
  }
  try {
    if (runtime::vm::isExecutableDirectory(argv[1])) {
      const std::vector<NDArray> results = runProgram(argv[1], inputs);
      if (outputs.size() > results.size())
        return usage("the model has " + std::to_string(results.size()) + " outputs");
      for (size_t i = 0; i < outputs.size(); ++i) writeNpy(outputs[i], results[i]);
      return 0;
    }
    runtime::GraphExecutor executor(runtime::loadGraphModel(argv[1]));
    for (const auto& [name, path] : inputs) executor.setInput(name, readNpy(path));
    executor.run();
    if (static_cast<int>(outputs.size()) > executor.numOutputs())
      return usage("the model has " + std::to_string(executor.numOutputs()) + " outputs");
    for (size_t i = 0; i < outputs.size(); ++i)
      writeNpy(outputs[i], executor.getOutput(static_cast<int>(i)));
  } catch (const DiagnosticError& e) {
    std::cerr << e.diagnostic().str() << "\n";
    return 1;
  }
  return 0;
}
