// Lowering a fused graph to TensorIR: @main of an optimized module (FuseOps done) becomes a graph
// executor description whose calls name kernels, and each distinct primitive function becomes one
// kernel (a PrimFunc from its op strategies, not yet scheduled). Also the tuning tasks of a model:
// its kernels with their workload keys and how often the graph calls them.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "lower/relay/kernel_set.h"
#include "relay/module.h"
#include "relay/strategy/op_strategy.h"
#include "runtime/graph_executor/graph_description.h"
#include "runtime/ndarray.h"
#include "target/target.h"
#include "tir/function.h"

namespace tessera::lower {

/// @main as a graph of kernel calls.
struct LoweredGraph {
  runtime::GraphDescription graph;        ///< memory not planned yet
  std::map<std::string, NDArray> params;  ///< by the names in graph.params (packed weights packed)
  std::vector<GraphKernel> kernels;       ///< in order of first use
};

/// Receives each param as lowering makes it (its name as in graph.params), instead of
/// LoweredGraph::params: a compile that writes them to disk at once never holds them all.
using ParamSink = std::function<void(const std::string& name, const NDArray& data)>;

/// Lowers @main of an optimized module. `target` (resolved) chooses the implementations and the
/// weights packed at compile time; null: every op's generic compute, nothing packed (the plain
/// loop nests). The walk is iterative. DiagnosticError (code "build") for what a graph executor
/// cannot run: a non-static shape, control flow, calls of other globals, tuple inputs. Each
/// weight is released once its last call is lowered (a packed weight's unpacked values do not
/// outlive its packing), so move a module in that nothing else holds to keep peak memory low.
///
/// `vta` (a VTA target, or null): a heterogeneous build. Each fused function holding a
/// convolution in VTA's packed layouts becomes a VTA kernel (vta/strategy: compiled and lowered
/// here, marked `tessera.device_type`), its tensors and constants on the `vta` device; the other
/// functions are the CPU's, through `target`'s strategies. Tensors crossing between the two are
/// copied by `__copy` calls (TVM's device_copy); graph inputs and outputs stay on the CPU.
LoweredGraph lowerGraphToTIR(relay::IRModule optimized, const target::Target* target,
                             ParamSink sink = {}, const target::Target* vta = nullptr);

/// One kernel to tune: what the auto-tuner searches schedules for.
struct TuningTask {
  std::string name;            ///< the kernel's name in the graph
  tir::PrimFunc func;          ///< unscheduled
  std::string implementation;  ///< the anchor implementation (empty: generic steps only)
  /// tir::structuralHash of the function without its name: equal for the same computation on
  /// the same shapes in any model (the key of the tuning database).
  uint64_t workloadKey = 0;
  int weight = 0;  ///< calls in the graph: how much of the model's time it stands for
};

/// The tuning tasks of a lowered graph, one per distinct workload key (the weights of kernels
/// with the same key add up), in order of first use.
std::vector<TuningTask> tuningTasks(const LoweredGraph& graph);

}  // namespace tessera::lower
