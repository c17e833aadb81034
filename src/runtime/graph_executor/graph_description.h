// The graph executor description build() produces: tensor entries with their planned storage,
// the inputs and parameters that fill some of them, the kernel calls in evaluation order and the
// outputs. It is plain data, saved as graph.json (format in docs/user/runtime.md). A
// heterogeneous graph (CPU and VTA kernels) places each entry on a device and moves tensors
// between devices with copy calls (TVM's device_copy, `__copy`).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/data_type.h"

namespace tessera::runtime {

/// One tensor the executor holds: an input, a parameter, or a kernel output.
struct TensorEntry {
  std::vector<int64_t> shape;
  DataType dtype;
  int storage = -1;  ///< index into GraphDescription::storageBytes
  int device = 0;    ///< index into GraphDescription::devices (0: the CPU)

  /// Bytes of the tensor's data.
  int64_t bytes() const;
};

/// A graph input (a parameter of @main) or a parameter (a constant), naming its entry.
struct NamedEntry {
  std::string name;
  int entry = -1;
};

/// The kernel name of a copy between devices: one input, one output of the same bytes on
/// another device; the executor copies instead of calling a kernel.
inline constexpr const char* kCopyKernel = "__copy";

/// A device the graph's tensors live on: its name, which selects the runtime's DeviceApi
/// (runtime/device_api.h), and the target its kernels were compiled for (e.g. "vta
/// -config=F.json"), from which the device is set up.
struct DeviceInfo {
  std::string name;
  std::string target;
};

/// One call of a compiled kernel: arguments are the PrimFunc's parameters in order (inputs, its
/// constants, then its outputs), every one an entry. Or a copy (kernel kCopyKernel).
struct KernelCall {
  std::string kernel;
  std::vector<int> inputs;   ///< entries read (the PrimFunc's inputs and constants)
  std::vector<int> outputs;  ///< entries written
};

/// The whole executor description.
struct GraphDescription {
  std::vector<TensorEntry> entries;
  std::vector<NamedEntry> inputs;  ///< in @main's parameter order
  std::vector<NamedEntry> params;  ///< constants, sorted by name
  std::vector<KernelCall> calls;   ///< in evaluation order
  std::vector<int> outputs;        ///< the flattened result of @main
  std::vector<int64_t> storageBytes;
  std::vector<int> storageDevices;  ///< per storage: its device (planMemory fills it)
  /// Device 0 is always the CPU; more only in a heterogeneous graph.
  std::vector<DeviceInfo> devices = {{"cpu", ""}};
  int64_t naiveBytes = 0;    ///< every entry in its own buffer
  int64_t plannedBytes = 0;  ///< the sum of storageBytes

  /// Serializes to the graph.json text (deterministic: same description, same bytes).
  std::string toJson() const;
  /// Parses graph.json text. Throws DiagnosticError (code "graph_json", context `source`) for
  /// malformed text or a description whose indices are out of range.
  static GraphDescription fromJson(const std::string& text, const std::string& source);
};

/// Assigns storage to every entry: inputs, parameters and outputs get buffers of their own;
/// kernel intermediates share buffers whose lifetimes do not overlap, choosing greedily the
/// smallest free buffer that fits (else growing the largest free one), and only with entries of
/// the same device (memory is planned per device). Fills storage, storageBytes, storageDevices,
/// naiveBytes and plannedBytes.
void planMemory(GraphDescription& graph);

/// Checks that every index of `graph` is in range and every entry has a storage; throws
/// DiagnosticError (code "graph_json", context `source`) naming the first problem.
void validate(const GraphDescription& graph, const std::string& source);

}  // namespace tessera::runtime
