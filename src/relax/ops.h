// Relax operators: call_tir and call_dps_packed (destination-passing calls of a PrimFunc of the
// module or of a packed function found by name at run time, spec §5.4) and a few high-level
// tensor ops. Each constructor deduces the call's struct info and reports a DiagnosticError
// (code "relax_op") naming the op when its arguments do not fit.
#pragma once

#include <string>
#include <vector>

#include "relax/expr.h"

namespace tessera::relax {

inline constexpr const char* kCallTir = "relax.call_tir";
inline constexpr const char* kCallDpsPacked = "relax.call_dps_packed";

/// `R.call_tir(cls.<primFunc>, (args...), out_sinfo=out)`. `out` is a tensor or a tuple of tensors.
Expr callTir(const std::string& primFunc, std::vector<Expr> args, StructInfo out);
/// `R.call_dps_packed("<name>", (args...), out_sinfo=out)`.
Expr callDpsPacked(const std::string& name, std::vector<Expr> args, StructInfo out);

/// Elementwise with numpy broadcasting.
Expr add(Expr a, Expr b);
Expr multiply(Expr a, Expr b);
Expr relu(Expr x);
/// (..., m, k) x (..., k, n) -> (..., m, n); batch dimensions must be equal.
Expr matmul(Expr a, Expr b);
/// Reorders dimensions; empty `axes` reverses them.
Expr permuteDims(Expr x, std::vector<int64_t> axes = {});

/// Whether `op` is one of the high-level ops LegalizeOps turns into call_tir.
bool isHighLevelOp(const std::string& op);

}  // namespace tessera::relax
