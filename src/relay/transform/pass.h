// Pass infrastructure: module and function passes, Sequential, and the PassContext that gates
// passes by opt level, required/disabled names and a config map, and instruments them (timing,
// printing the module after a named pass).
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "ir/attr_value.h"
#include "relay/module.h"
#include "target/target.h"

namespace tessera::relay {

/// Wall time of one pass execution (filled when PassContext::timePasses is set).
struct PassTiming {
  std::string name;
  double milliseconds = 0;
  int depth = 0;     ///< nesting inside Sequentials
  long peakMiB = 0;  ///< the process's peak resident memory when the pass ended
};

/// The environment passes run in (TVM's PassContext). Default opt level 2, as in TVM.
struct PassContext {
  int optLevel = 2;
  std::set<std::string> requiredPasses;     ///< run even when the opt level is too low
  std::set<std::string> disabledPasses;     ///< never run inside a Sequential
  std::map<std::string, AttrValue> config;  ///< e.g. "relay.FuseOps.max_depth" -> 256
  /// The target being compiled for (TVM's Target.current()); target hooks such as
  /// AlterOpLayout's do nothing without one.
  std::optional<target::Target> target;
  /// Instrumentation.
  bool timePasses = false;
  std::vector<PassTiming> timings;
  std::set<std::string> printAfter;  ///< print the module after each pass with one of these names
  bool printAfterAll = false;
  std::ostream* printStream = nullptr;  ///< where printAfter goes (std::cerr when null)

  /// The config value for `key`, or `fallback` when unset.
  AttrValue configValue(const std::string& key, AttrValue fallback = {}) const;
};

/// Name, minimal opt level, and passes that must run first (e.g. InferType).
struct PassInfo {
  std::string name;
  int optLevel = 0;
  std::vector<std::string> required;
};

class PassNode;
using Pass = std::shared_ptr<const PassNode>;

/// A transformation of an IRModule. Calling a pass directly runs it regardless of opt level (as TVM
/// does); inside a Sequential it is gated by the context.
class PassNode {
 public:
  explicit PassNode(PassInfo info) : info_(std::move(info)) {}
  virtual ~PassNode() = default;
  const PassInfo& info() const { return info_; }
  /// Runs the pass with instrumentation (timing, printing after). A module passed by value
  /// (std::move) is the pass's to consume: FoldConstant then frees each weight it replaces as it
  /// goes. A caller that keeps its module keeps it intact, at the price of both sets of weights.
  IRModule operator()(IRModule module, PassContext& ctx) const;
  /// Runs the pass under a default context.
  IRModule operator()(IRModule module) const;

 protected:
  /// The transformation itself.
  virtual IRModule transform(IRModule module, PassContext& ctx) const = 0;
  friend class SequentialPass;

 private:
  PassInfo info_;
};

using ModuleTransform = std::function<IRModule(IRModule, PassContext&)>;
using FunctionTransform = std::function<Function(const Function&, const IRModule&, PassContext&)>;

/// A pass over the whole module.
Pass makeModulePass(PassInfo info, ModuleTransform transform);
/// True for functions that function passes leave alone: those with a `Compiler`, `Extern` or
/// `SkipOptimization` attribute.
bool skippedByFunctionPasses(const FunctionNode& fn);
/// A pass applied to every function without `Compiler`, `Extern` or `SkipOptimization` attributes;
/// InferType always runs on the result, so a function pass leaves the module typed.
Pass makeFunctionPass(PassInfo info, FunctionTransform transform);
/// Runs passes in order, skipping those the context disables or whose opt level is above the
/// context's (unless required), running each pass's required passes first.
Pass sequential(std::vector<Pass> passes, std::string name = "Sequential", int optLevel = 0);

/// True when `ctx` lets a pass with `info` run inside a Sequential (TVM's enable rule).
bool passEnabled(const PassInfo& info, const PassContext& ctx);

/// The InferType pass (level 0).
Pass inferTypePass();

}  // namespace tessera::relay
