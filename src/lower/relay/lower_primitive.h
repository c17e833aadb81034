// Lowering a fused primitive function (FuseOps output, Primitive=1) to one TensorIR PrimFunc:
// each call's implementation is chosen by the target's op strategies (relay/strategy/), its
// compute applied to the tensors of its arguments, and createPrimFunc turns the TE graph into
// TensorIR. The bridge from the graph IR to kernels, used by kernel_set for every kernel.
#pragma once

#include <vector>

#include "relay/expr.h"
#include "relay/strategy/op_strategy.h"
#include "relay/strategy/packed_weights.h"
#include "runtime/ndarray.h"
#include "target/target.h"
#include "tir/function.h"

namespace tessera::lower {

using relay::Function;
using relay::strategy::StrategyChoice;
using relay::strategy::WeightPacking;

/// A lowered primitive function: the PrimFunc, and the non-scalar constants of the function,
/// which become extra parameters after the function's own (outputs come last).
struct LoweredFunction {
  tir::PrimFunc func;
  std::vector<NDArray> constants;
  /// Parameters taken packed: the caller passes packWeight(argument, block) instead of the
  /// argument (relay/strategy/packed_weights.h).
  struct PackedParam {
    size_t index;
    WeightPacking packing;
  };
  std::vector<PackedParam> packedParams;
  /// The implementation chosen for each call that has strategies, in evaluation order (empty
  /// without a target).
  std::vector<StrategyChoice> strategies;
  /// Whether flipping a call's data fact (StrategyCall::smallNonNegativeData) would change one
  /// of its choices: only then does the kernel depend on the smallNonNegativeParams it was
  /// lowered with (KernelSet shares the others between call sites with and without them).
  bool dataFactsMatter = false;
};

/// How lowerPrimitive chooses computes.
struct PrimitiveLoweringOptions {
  /// The target whose op strategies choose each call's compute (and the anchor schedule named in
  /// kImplementationAttr), with its weights packed at compile time as they say; resolved
  /// (codegen::withHostDefaults). Null: every op's generic compute, nothing packed (the plain
  /// loop nests differential tests compare against).
  const target::Target* target = nullptr;
  /// Indices of parameters whose argument is a constant at the call site: with a target, such a
  /// parameter used only as a packable weight is taken packed (LoweredFunction).
  std::vector<size_t> constantParams;
  /// Indices of parameters whose argument is known to lie in [0, 127] at every element (what the
  /// producers prove: relay/value_range.h). Calls whose data derives from them, or is proven so
  /// inside the function, may take implementations that need it (StrategyCall).
  std::vector<size_t> smallNonNegativeParams;
};

/// Lowers a type-checked primitive function (static shapes; parameters are tensors or tuples of
/// tensors, flattened in order), choosing each call's implementation with the target's op
/// strategies (op_strategy.h). PrimFunc parameters: the inputs, then the constants, then one
/// output per tensor of the result. DiagnosticError for an op without a compute, a dynamic shape,
/// or control flow.
LoweredFunction lowerPrimitive(const Function& primitiveFunction,
                               const PrimitiveLoweringOptions& options = {});
/// lowerPrimitive(...).func.
tir::PrimFunc lowerToPrimFunc(const Function& primitiveFunction);

}  // namespace tessera::lower
