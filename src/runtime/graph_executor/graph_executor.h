// The graph executor: runs a compiled model's kernel calls in order over buffers allocated once
// from the memory plan. Inputs are copied in (set_input), outputs are read after run(). Part of
// the runtime: it needs nothing from the compiler. A heterogeneous graph's devices are opened
// through their registered runtimes (runtime/device_api.h); their buffers are allocated there,
// and copy calls move tensors between them and the CPU.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "runtime/device_api.h"

#include "runtime/graph_executor/graph_model.h"
#include "runtime/kernel_time.h"

namespace tessera::runtime {

class GraphExecutor {
 public:
  /// Opens the graph's devices, allocates the planned storage on each and copies the parameters
  /// in. Throws DiagnosticError (code "graph_executor") when the module lacks a kernel the
  /// description calls, (code "device") when a device has no registered runtime.
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
  /// The opened device named `name` (as in the description's devices), or null when the graph
  /// has none of that name (the CPU is not one).
  std::shared_ptr<DeviceApi> device(const std::string& name) const;

 private:
  struct PreparedCall {
    KernelFunction fn;  // null for a copy
    std::string kernel;
    std::vector<void*> args;  // DLTensor* of every argument, fixed for the executor's lifetime
    int device = 0;           // where the kernel runs (its first output's device)
  };
  // Buffers and DLTensors of the entries that live on devices (kept together, shared by copies
  // of the executor, so that the prepared argument pointers stay valid).
  struct DeviceMemory;

  DLTensor* tensorOf(int entry) const;
  void runCall(PreparedCall& call);

  GraphDescription graph_;
  Module lib_;
  std::vector<std::shared_ptr<DeviceApi>> devices_;  // by device index; [0] (the CPU) is null
  std::vector<NDArray> storage_;                      // the CPU's storage (empty for a device's)
  std::vector<NDArray> entries_;  // views of storage_ with each entry's shape and dtype
  std::shared_ptr<DeviceMemory> deviceMemory_;
  std::vector<PreparedCall> calls_;
};

}  // namespace tessera::runtime
