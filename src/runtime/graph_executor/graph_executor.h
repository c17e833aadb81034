// The graph executor: runs a compiled model's kernel calls in order over buffers allocated once
// from the memory plan. Inputs are copied in (set_input), outputs are read after run(). Part of
// the runtime: it needs nothing from the compiler.
#pragma once

#include <string>
#include <vector>

#include "runtime/graph_executor/graph_model.h"
#include "runtime/kernel_time.h"

namespace tessera::runtime {

class GraphExecutor {
 public:
  /// Allocates the planned storage and copies the parameters in. Throws DiagnosticError (code
  /// "graph_executor") when the module lacks a kernel the description calls.
  explicit GraphExecutor(const GraphModel& model);

  int numInputs() const { return static_cast<int>(graph_.inputs.size()); }
  int numOutputs() const { return static_cast<int>(graph_.outputs.size()); }
  /// The name of input `index` (the @main parameter's name, without '%').
  const std::string& inputName(int index) const;
  /// The index of input `name`; throws DiagnosticError (code "graph_input") listing the inputs
  /// when there is none of that name.
  int inputIndex(const std::string& name) const;
  /// The expected shape and dtype of input `index`.
  const TensorEntry& inputInfo(int index) const;
  const TensorEntry& outputInfo(int index) const;

  /// Copies `value` into input `name`/`index`. Throws DiagnosticError (code "graph_input",
  /// context the input's name) when the shape or dtype differs or the index is out of range.
  void setInput(const std::string& name, const NDArray& value);
  void setInput(int index, const NDArray& value);
  /// Runs every kernel call. Throws DiagnosticError (code "graph_run") with the kernel's own
  /// message when a kernel fails.
  void run();
  /// Time spent in one kernel over a profile (TVM's debug executor): calls of the kernel in the
  /// graph and the median over the runs of their summed time.
  using KernelTime = runtime::KernelTime;
  /// Runs the graph `runs` times (after one warm-up run) timing every call; kernels in order of
  /// their first call. Same errors as run().
  std::vector<KernelTime> profile(int runs);
  /// Output `index` of the last run. The array shares the executor's buffer: the next run()
  /// overwrites it (copy() to keep it). DiagnosticError (code "graph_output") when out of range.
  NDArray getOutput(int index) const;
  /// Output by name: "output_<i>", the names `tessera run --output` uses in .npz files.
  NDArray getOutput(const std::string& name) const;
  /// The current value of input `index` (shares the executor's buffer).
  NDArray getInput(int index) const;

 private:
  struct PreparedCall {
    KernelFunction fn;
    std::string kernel;
    std::vector<void*> args;  // DLTensor* of every argument, fixed for the executor's lifetime
  };

  GraphDescription graph_;
  Module lib_;
  std::vector<NDArray> storage_;
  std::vector<NDArray> entries_;  // views of storage_ with each entry's shape and dtype
  std::vector<PreparedCall> calls_;
};

}  // namespace tessera::runtime
