// BindParams (spec tir_relax.md §5.7): replaces parameters of a Relax function by constants,
// inferring symbolic dimensions from the constants' shapes and substituting them everywhere.
#pragma once

#include <map>
#include <string>

#include "relax/expr.h"

namespace tessera::relax {

/// A copy of `module` whose function `funcName` no longer has the parameters named in `params`.
/// DiagnosticError (code "bind_params") for an unknown or ambiguous name, a dtype or rank
/// mismatch, or a symbolic dimension given two values.
IRModule bindParams(const IRModule& module, const std::string& funcName,
                    const std::map<std::string, NDArray>& params);

}  // namespace tessera::relax
