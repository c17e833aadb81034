// Op strategy: the TE compute of every relay op, registered as the op attribute "FTVMCompute"
// (lower/relay/lower_primitive.h composes them into one PrimFunc per fused function).
// Registration is an explicit call, not a static constructor (docs/design/foundation.md).
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

/// The PrimFunc attribute naming the implementation whose schedule the kernel gets (the first
/// call, in evaluation order, whose implementation has a schedule).
inline constexpr const char* kImplementationAttr = "tessera.implementation";

}  // namespace tessera::relay::strategy
