// libFuzzer target: the graph fuzzer. The input bytes choose a random well-typed graph
// (graph_gen.h) that must give the interpreter's results after every pass and when compiled
// (graph_check.h); anything else aborts with the stage, the symptom and the module's text.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "graph_check.h"
#include "graph_gen.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tessera::fuzz;
  Choices choices(data, size);
  tessera::relay::IRModule module;
  try {
    module = generateGraph(choices);
  } catch (const IllTypedGraph& e) {
    std::fprintf(stderr, "graph fuzzer finding at stage generate: %s\n", e.what());
    std::abort();
  }
  CheckOptions options;
  options.plainBuild = choices.chance(25);
  options.dynamic = choices.chance(25);
  if (auto finding = checkGraph(module, choices.dataSeed(), options)) {
    std::fprintf(stderr, "%s\n", finding->str().c_str());
    std::abort();
  }
  return 0;
}
