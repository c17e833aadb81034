// The Relay text parser: reads what the printer writes (and what TVM prints, including seed 003's
// `v0.0.4` header), with or without a metadata section. Syntax errors are DiagnosticErrors located at
// line:column that say what was expected and what was found.
#pragma once

#include <string>
#include <string_view>

#include "relay/expr.h"
#include "relay/module.h"

namespace tessera::relay {

/// Parses a module and runs type inference on it. `sourceName` names the input in diagnostics.
/// A `meta[relay.Constant][K]` without a metadata section becomes a constant with unknown value whose
/// type comes from the `/* ty=... */` annotation that follows it.
IRModule parseModule(std::string_view text, const std::string& sourceName = "<input>");

/// Parses a bare expression (no type inference), e.g. `fn (%x: float32) { add(%x, 1f) }`.
Expr parseExpr(std::string_view text, const std::string& sourceName = "<input>");

}  // namespace tessera::relay
