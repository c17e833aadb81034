// compiledRunner (driver/compiled_runner.h): build() once per module, then the graph executor
// per call.
#include "driver/compiled_runner.h"

#include <memory>

#include "codegen/llvm/target.h"
#include "driver/build.h"
#include "runtime/graph_executor/graph_executor.h"

namespace tessera::driver {
namespace {

// The module last built: its main function identifies it (calibration builds one profile module
// and runs it on every sample).
struct Compiled {
  relay::Function main;
  Built built;
  std::unique_ptr<runtime::GraphExecutor> executor;
};

}  // namespace

ModuleRunner compiledRunner() {
  auto cache = std::make_shared<Compiled>();
  return [cache](const relay::IRModule& module, const std::map<std::string, NDArray>& inputs) {
    const relay::Function main = module.main();
    if (cache->main != main || !cache->executor) {
      cache->executor.reset();
      // A context of its own, as TVM's _get_profile_runtime builds under PassContext(opt_level=3):
      // the caller's instruments and config do not apply to the calibration graph.
      relay::PassContext profileContext;
      cache->built = build(module, codegen::hostTarget(), {}, {.context = &profileContext});
      cache->executor = std::make_unique<runtime::GraphExecutor>(cache->built.model());
      cache->main = main;
    }
    runtime::GraphExecutor& executor = *cache->executor;
    for (const relay::Var& p : main->params) executor.setInput(p->nameHint, inputs.at(p->nameHint));
    executor.run();
    std::vector<NDArray> out;
    for (int i = 0; i < executor.numOutputs(); ++i) out.push_back(executor.getOutput(i).copy());
    return out;
  };
}

}  // namespace tessera::driver
