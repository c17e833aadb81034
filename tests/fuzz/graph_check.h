// The graph fuzzer's differential check: a generated module runs on the reference interpreter (the
// oracle), then after a text round trip, after each graph pass of the pass table on its own, after
// the default optimization pipeline, and compiled by build() for the host on the graph executor;
// and built by build() inside control flow on the VM (withControlFlow), and with every input
// extent `?` on the VM (withUnknownExtents);
// every result must match the oracle's (integers and bools exactly, floats within a tolerance).
// A mismatch, a crash, an internal error or a DiagnosticError on a well-typed graph is a finding.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "relay/module.h"
#include "relay/value.h"

namespace tessera::fuzz {

struct CheckOptions {
  bool passes = true;       ///< each pass of the pass table, and the optimization pipeline
  bool build = true;        ///< build() at opt level 3 with the target's schedules
  bool plainBuild = false;  ///< also build() at opt level 0 with plain loop nests
  /// Also the graph inside control flow (withControlFlow) through build() on the VM, both
  /// branches.
  bool vm = false;
  /// Also the graph with its parameters' leading extents `?`, then all of them
  /// (withUnknownExtents), each compiled once for the VM and run on the same inputs; a clean
  /// refusal (type inference or a compute that needs constant extents) is counted, not a finding.
  bool dynamic = false;
  double rtol = 1e-3;
  double atol = 1e-4;  ///< scaled by 1 + the largest magnitude of the oracle's tensor
};

/// What went wrong, where: the stage ("interpreter", a pass name, "build", ...), the symptom, and
/// the module printed as text.
struct Finding {
  std::string stage;
  std::string symptom;
  std::string module;
  /// A report of all three, for a test failure or the fuzzer's abort message.
  std::string str() const;
};

/// Counters over many checks, for the summary a long run prints.
struct CheckStats {
  int graphs = 0;
  int stagesRun = 0;
  std::map<std::string, int> opCalls;  ///< calls per op name over the checked graphs
  int dynamicCompiled = 0;             ///< graphs compiled with `?` input extents
  int dynamicRefused = 0;              ///< ... and refused with a diagnostic
  int dynamicRefusedWhenRun = 0;       ///< ... compiled, then refused when run (`vm_shape`)
};

/// `module` behind control flow, for the VM: @main(%branch: bool, params...) tail-calls a recursive
/// @wrapped that counts down two calls and then runs `if (%branch) { the graph } else { the graph
/// with its first float (or signed integer) parameter negated }`. With %branch true it computes
/// what `module` does.
relay::IRModule withControlFlow(const relay::IRModule& module);

/// `module` with every extent but 1 of every parameter unknown (`?`), or only each parameter's
/// leading one, typed afresh; nullopt when no parameter has such an extent or type inference
/// refuses with a diagnostic.
std::optional<relay::IRModule> withUnknownExtents(const relay::IRModule& module, bool leadingOnly);

/// Seeded random arguments for @main's parameters: floats in [-1, 1), integers in [-64, 64).
std::vector<relay::Value> graphInputs(const relay::IRModule& module, uint64_t seed);

/// Runs every stage on `module` with inputs from `dataSeed`; returns the first finding.
std::optional<Finding> checkGraph(const relay::IRModule& module, uint64_t dataSeed,
                                  const CheckOptions& options = {}, CheckStats* stats = nullptr);

/// Generates the graph for `seed` (graph_gen.h) and checks it; a generator failure (an ill-typed
/// graph) is a finding of stage "generate".
std::optional<Finding> checkSeed(uint64_t seed, const CheckOptions& options = {},
                                 CheckStats* stats = nullptr);

}  // namespace tessera::fuzz
