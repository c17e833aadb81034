// create_prim_func: turns a TE graph into a TensorIR PrimFunc with one block per compute op
// (spatial loops outside reduce loops, init for reductions, intermediates allocated in the root
// block). The algorithm is spec tir_relax.md §1.7; unlike TVM 0.16, a reduction's `where`
// condition and user `init` are honoured.
#pragma once

#include <optional>
#include <vector>

#include "te/tensor.h"
#include "tir/function.h"

namespace tessera::te {

/// The PrimFunc "main" computing `args`' outputs from `args`' inputs. Every placeholder the
/// outputs depend on must be in `args` (DiagnosticError "te_args" otherwise). With
/// `indexDtypeOverride` (int64 for Relax's emit_te), every shape, loop, block var and index uses
/// that integer type.
tir::PrimFunc createPrimFunc(const std::vector<Tensor>& args,
                             std::optional<DataType> indexDtypeOverride = std::nullopt);

}  // namespace tessera::te
