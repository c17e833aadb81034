// Op strategies (TVM's OpStrategy): for each op and target key, a list of implementations, each a
// compute and the schedule of the kernel it anchors, with a priority and a condition. Lowering a
// fused function picks one implementation per call (the highest priority whose condition holds,
// under the target's most specific key that has one); the kernel is then scheduled by the
// implementation that produced it, found by name. A target adds its rows under its own key
// (x86/strategies.cc registers "cpu"); an op without rows for any key of the target gets its
// generic implementation: its FTVMCompute and only the target's generic schedule steps.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "relay/expr.h"
#include "relay/strategy/packed_weights.h"
#include "support/applicability.h"
#include "target/target.h"
#include "te/tensor.h"
#include "tir/schedule/schedule.h"

namespace tessera::relay::strategy {

/// What an implementation's condition and compute see of one call.
struct StrategyCall {
  const CallNode& call;          ///< type-checked
  const Type& outType;           ///< the call's type
  const target::Target& target;  ///< resolved (codegen's host defaults filled in)
  /// How argument 1 arrives: packed at compile time (a constant) or as it is (kNone).
  WeightPacking weight = {};
  /// Argument 1 is a constant that could still be packed: asked while lowering decides which
  /// constants to pack (weight is then kNone).
  bool weightConstant = false;
  /// Every value of argument 0 lies in [0, 127] (relay/value_range.h: what its producers prove).
  bool smallNonNegativeData = false;
};

/// The schedule an implementation gives the kernel it anchors, on top of which the target's
/// generic steps run. "Does not apply" leaves the kernel to the generic steps.
using KernelSchedule = std::function<Applicability(tir::Schedule&, const target::Target&)>;

struct OpImplementation {
  std::string name;   ///< unique, `<what>.<target key>`: "conv2d_nchw_winograd.x86"
  int priority = 10;  ///< TVM's plevel: the highest applicable one wins
  /// Whether the implementation fits the call; null: always.
  std::function<Applicability(const StrategyCall&)> condition = {};
  /// The packing a constant weight (argument 1) should get for this implementation; null: none.
  std::function<WeightPacking(const StrategyCall&)> packWeight = {};
  /// The TE compute; null: the op's FTVMCompute.
  std::function<std::vector<te::Tensor>(const StrategyCall&, const std::vector<te::Tensor>&)>
      compute = {};
  /// The schedule of the kernel this call anchors; null: the generic steps only.
  KernelSchedule schedule = {};
  /// Whether the compute takes an int32 addend per output channel as a third input, where the
  /// call's only use is `add(call, addend)` in the same kernel (lowering then skips that add; a
  /// quantized conv2d's bias starts its accumulators instead of being added to every output).
  bool foldsChannelAddend = false;
};

/// The channel addend a foldsChannelAddend compute was given (its third input), if any.
inline std::optional<te::Tensor> channelAddendInput(const std::vector<te::Tensor>& inputs) {
  if (inputs.size() > 2) return inputs[2];
  return std::nullopt;
}

/// One implementation considered for a call, and whether it applied.
struct ConsideredImplementation {
  std::string name;
  int priority;
  Applicability answer;
};

/// The choice for one call: the implementation (null: the op's generic compute) and every
/// implementation that was considered, in the order they were tried.
struct StrategyChoice {
  std::string op;
  const OpImplementation* chosen = nullptr;
  std::vector<ConsideredImplementation> considered;
  /// The chosen implementation's name, or "<op>.generic".
  std::string chosenName() const;
};

/// The implementations of every op under every target key. Rows are added by explicit calls
/// (registerStrategies), not static constructors.
class StrategyRegistry {
 public:
  static StrategyRegistry& global();

  /// Adds an implementation of `op` under target key `key`. An internal error when the name is
  /// already taken (names identify kernels).
  void add(const std::string& op, const std::string& key, OpImplementation impl);
  /// Removes every implementation of `op` under `key` (so that a user may register others).
  void reset(const std::string& op, const std::string& key);
  /// The implementations of `op` under `key`, highest priority first (ties: registration order).
  std::vector<const OpImplementation*> implementations(const std::string& op,
                                                       const std::string& key) const;
  /// The implementation named `name`, or nullptr.
  const OpImplementation* find(const std::string& name) const;
  /// Sets the steps every kernel for targets with key `key` gets after its anchor schedule
  /// (`anchored`: whether one applied).
  void setGenericSchedule(const std::string& key,
                          std::function<void(tir::Schedule&, const target::Target&, bool)> steps);
  /// The generic steps of the target's most specific key that has them, or null.
  const std::function<void(tir::Schedule&, const target::Target&, bool)>* genericSchedule(
      const target::Target& target) const;

 private:
  StrategyRegistry() = default;
  struct Row {
    std::string op, key;
    OpImplementation impl;
  };
  std::vector<std::unique_ptr<Row>> rows_;  // stable addresses: choices point into them
  std::map<std::string, std::function<void(tir::Schedule&, const target::Target&, bool)>> generic_;
};

/// Registers the built-in strategies of every target, and their target hooks (the
/// FTVMAlterOpLayout rules); idempotent.
void registerStrategies();

/// Chooses the implementation of `call` for its target: under each key of the target in turn,
/// the highest-priority implementation whose condition holds; none under any key gives the
/// generic implementation.
StrategyChoice selectImplementation(const StrategyCall& call);

/// Human-readable lines of a choice: "nn.conv2d: conv2d_nchw_winograd.x86 (priority 15)" and,
/// for each implementation that was skipped, "  skipped NAME (priority P): REASON".
std::vector<std::string> explainChoice(const StrategyChoice& choice);

}  // namespace tessera::relay::strategy
