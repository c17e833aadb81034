// LegalizeOps: replaces the high-level Relax ops (add, multiply, nn.relu, matmul, permute_dims) by
// call_tir to PrimFuncs generated from their TOPI computes, so a module mixes them freely with
// call_tir and call_dps_packed.
#pragma once

#include "relax/expr.h"

namespace tessera::relax {

/// A copy of `module` in which no high-level op call remains; the generated PrimFuncs (`add`,
/// `relu`, `matmul`, `transpose`, ... numbered when several differ) are added to it.
IRModule legalizeOps(const IRModule& module);

}  // namespace tessera::relax
