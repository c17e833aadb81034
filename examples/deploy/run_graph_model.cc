// Deploying a compiled model without the compiler: loads a directory written by
// `tessera compile` (kernels.so, graph.json, params.npz) with the runtime library alone — no LLVM,
// no graph IR — runs it on .npy inputs and writes the outputs.
//
//   run_graph_model MODEL_DIR NAME=INPUT.npy... -o OUTPUT_0.npy [-o OUTPUT_1.npy ...]
//
// Exit status 0 on success, 1 with a diagnostic on bad input, 2 on a usage mistake.
#include <iostream>
#include <string>
#include <vector>

#include "runtime/graph_executor.h"
#include "runtime/graph_model.h"
#include "runtime/npy.h"
#include "support/diagnostic.h"

namespace {

int usage(const std::string& problem) {
  std::cerr << "run_graph_model: " << problem
            << "\nusage: run_graph_model MODEL_DIR NAME=INPUT.npy... -o OUTPUT.npy...\n";
  return 2;
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
