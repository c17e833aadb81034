// The tuning tasks of a model: its kernels as `tessera compile` makes them for `target` —
// optimized and fused, lowered by the target's strategies with weights packed (AlterOpLayout
// done), not yet scheduled — one per workload key, weighted by how often the graph calls them,
// each with the design space of its default schedule (first) and the spaces the schedule rules
// make (tune/rules/post_order_apply.h).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "relay/module.h"
#include "runtime/ndarray.h"
#include "target/target.h"
#include "tune/task_scheduler.h"

namespace tessera::tune {

/// The tasks of @main of `module` (a graph, not VM code) whose kernel names match `filter` (an
/// ECMAScript regex, searched; empty: all). `target` is resolved (codegen::withHostDefaults).
/// DiagnosticError (code "tune") for a module that needs the VM or has no task left.
std::vector<TuneTask> modelTasks(relay::IRModule module, const target::Target& target,
                                 const std::map<std::string, NDArray>& params = {},
                                 const std::string& filter = "");

}  // namespace tessera::tune
