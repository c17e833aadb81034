#include "tune/model_tasks.h"

#include <regex>

#include "driver/build.h"
#include "driver/pipeline.h"
#include "lower/relay/to_graph.h"
#include "support/diagnostic.h"
#include "tune/rules/post_order_apply.h"

namespace tessera::tune {

std::vector<TuneTask> modelTasks(relay::IRModule module, const target::Target& target,
                                 const std::map<std::string, NDArray>& params,
                                 const std::string& filter) {
  if (driver::needsVM(module))
    throwDiagnostic("tune", "the model has control flow (VM code): its kernels cannot be tuned");
  driver::CompileState state{.module = std::move(module), .target = target, .params = params};
  relay::PassContext ctx;
  ctx.optLevel = 3;  // as `tessera compile` (relay.build) by default: the same kernels
  relay::PassContext::Scope scope(ctx);
  driver::runStep(state, ctx, "Optimize");
  driver::runStep(state, ctx, "LowerGraphToTIR");
  std::optional<std::regex> pattern;
  if (!filter.empty()) {
    try {
      pattern = std::regex(filter);
    } catch (const std::regex_error& e) {
      throwDiagnostic("tune", "--tasks is not a valid regular expression: " + filter);
    }
  }
  std::vector<TuneTask> tasks;
  for (lower::TuningTask& t : lower::tuningTasks(state.lowered)) {
    if (pattern && !std::regex_search(t.name, *pattern)) continue;
    TuneTask task{t.name, t.func, std::max(t.weight, 1), {}};
    task.spaces.push_back(defaultSpace(t.func, target));
    // The rule-made spaces (post-order-apply); a kernel the rules cannot walk (two blocks of
    // one name) keeps the default schedule's space only.
    try {
      for (DesignSpace& s : rules::ruleSpaces(t.func, target)) task.spaces.push_back(std::move(s));
    } catch (const DiagnosticError&) {
    }
    tasks.push_back(std::move(task));
  }
  if (tasks.empty())
    throwDiagnostic("tune", filter.empty() ? "the model has no kernels to tune"
                                           : "no kernel matches --tasks " + filter);
  return tasks;
}

}  // namespace tessera::tune
