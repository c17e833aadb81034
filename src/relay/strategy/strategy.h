// Op strategy: the TE compute of every relay op, registered as the op attribute "FTVMCompute",
// and the lowering of a fused primitive function (FuseOps output, Primitive=1) to one TensorIR
// PrimFunc by composing those computes. Registration is an explicit call, not a static
// constructor (docs/design/foundation.md).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "relay/expr.h"
#include "relay/op_registry.h"
#include "relay/strategy/op_strategy.h"
#include "relay/strategy/packed_weights.h"
#include "runtime/ndarray.h"
#include "te/tensor.h"
#include "tir/function.h"

namespace tessera::relay::strategy {

/// The compute of one call: the op's attrs, one TE tensor per argument tensor (tuple arguments
/// contribute their fields in order) and the call's inferred type. Returns one tensor per output
/// (tuple-typed calls return one per field).
using FTVMCompute = std::function<std::vector<te::Tensor>(
    const Attrs& attrs, const std::vector<te::Tensor>& inputs, const Type& outType)>;

/// The op attribute map of the computes (the generic implementation of every op; per-target
/// implementations are in op_strategy.h).
inline constexpr OpAttrMap<FTVMCompute> kComputeMap{"FTVMCompute"};

/// Registers the compute of every op in the catalogue at level 10 (idempotent).
void registerComputes();

/// Ops of the catalogue that have no TE compute, each with the reason (lowering a call to one is
/// a DiagnosticError quoting it). Empty when every op has one; ops with a data-dependent output
/// shape (OpDef::dataDependentShape) have none by design and are not listed.
std::vector<std::pair<std::string, std::string>> opsWithoutCompute();

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
};

/// The PrimFunc attribute naming the implementation whose schedule the kernel gets (the first
/// call, in evaluation order, whose implementation has a schedule).
inline constexpr const char* kImplementationAttr = "tessera.implementation";

/// How lowerPrimitive chooses computes.
struct LowerOptions {
  /// The target whose op strategies choose each call's compute (and the anchor schedule named in
  /// kImplementationAttr), with its weights packed at compile time as they say; resolved
  /// (codegen::withHostDefaults). Null: every op's generic compute, nothing packed (the plain
  /// loop nests differential tests compare against).
  const target::Target* target = nullptr;
  /// Indices of parameters whose argument is a constant at the call site: with a target, such a
  /// parameter used only as a packable weight is taken packed (LoweredFunction).
  std::vector<size_t> constantParams;
};

/// Lowers a type-checked primitive function (static shapes; parameters are tensors or tuples of
/// tensors, flattened in order), choosing each call's implementation with the target's op
/// strategies (op_strategy.h). PrimFunc parameters: the inputs, then the constants, then one
/// output per tensor of the result. DiagnosticError for an op without a compute, a dynamic shape,
/// or control flow.
LoweredFunction lowerPrimitive(const Function& primitiveFunction, const LowerOptions& options = {});
/// lowerPrimitive(...).func.
tir::PrimFunc lowerToPrimFunc(const Function& primitiveFunction);

}  // namespace tessera::relay::strategy
