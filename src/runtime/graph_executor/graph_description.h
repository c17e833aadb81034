// The graph executor description build() produces: tensor entries with their planned storage,
// the inputs and parameters that fill some of them, the kernel calls in evaluation order and the
// outputs. It is plain data, saved as graph.json (format in docs/user/runtime.md).
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

  /// Bytes of the tensor's data.
  int64_t bytes() const;
};

/// A graph input (a parameter of @main) or a parameter (a constant), naming its entry.
struct NamedEntry {
  std::string name;
  int entry = -1;
};

/// One call of a compiled kernel: arguments are the PrimFunc's parameters in order (inputs, its
/// constants, then its outputs), every one an entry.
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
/// smallest free buffer that fits (else growing the largest free one). Fills storage,
/// storageBytes, naiveBytes and plannedBytes.
void planMemory(GraphDescription& graph);

/// Checks that every index of `graph` is in range and every entry has a storage; throws
/// DiagnosticError (code "graph_json", context `source`) naming the first problem.
void validate(const GraphDescription& graph, const std::string& source);

}  // namespace tessera::runtime
