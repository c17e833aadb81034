// Op strategy: the TE compute of every relay op, registered as the op attribute "FTVMCompute",
// and the lowering of a fused primitive function (FuseOps output, Primitive=1) to one TensorIR
// PrimFunc by composing those computes. Registration is an explicit call, not a static
// constructor (docs/design/foundation.md).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "relay/expr.h"
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

/// The attribute key under which computes are registered.
inline constexpr const char* kComputeAttr = "FTVMCompute";

/// Registers the compute of every op in the catalogue at level 10 (idempotent).
void registerComputes();

/// Ops of the catalogue that have no TE compute, each with the reason (lowering a call to one is
/// a DiagnosticError quoting it). Empty when every op has one.
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
};

/// How lowerPrimitive chooses computes.
struct LowerOptions {
  /// Repack the constant weights of dense and NCHW conv2d calls for the x86 schedules
  /// (relay/strategy/packed_weights.h); the kernel then takes the packed constants.
  bool packWeights = false;
  /// Indices of parameters whose argument is a constant at the call site: with packWeights,
  /// such a parameter used only as a packable weight is taken packed (LoweredFunction).
  std::vector<size_t> constantParams;
};

/// Lowers a type-checked primitive function (static shapes; parameters are tensors or tuples of
/// tensors, flattened in order). PrimFunc parameters: the inputs, then the constants, then one
/// output per tensor of the result. DiagnosticError for an op without a compute, a dynamic shape,
/// or control flow.
LoweredFunction lowerPrimitive(const Function& primitiveFunction, const LowerOptions& options = {});
/// lowerPrimitive(...).func.
tir::PrimFunc lowerToPrimFunc(const Function& primitiveFunction);

}  // namespace tessera::relay::strategy
