// The Relay text parser: reads what the printer writes (and what TVM prints, including seed 003's
// `v0.0.4` header), with or without a metadata section. Syntax errors are DiagnosticErrors located
// at line:column that say what was expected and what was found. The grammar, the metadata format
// and the diagnostic codes are in docs/user/text-format.md.
#pragma once

#include <string>
#include <string_view>

#include "relay/expr.h"
#include "relay/module.h"

namespace tessera::relay {

/// Parses a module and runs type inference on it. `sourceName` names the input in diagnostics and
/// in the spans given to the parsed nodes. Throws DiagnosticError (codes `parse`, `unknown_op`,
/// `bad_attrs`, `undefined`, `duplicate_definition`, `metadata`, or a type error); nesting deeper
/// than 500 levels is a `parse` error, so no input can exhaust the stack.
/// A `meta[relay.Constant][K]` without a metadata section becomes a constant with unknown value
/// whose type comes from the `/* ty=... */` annotation that follows it.
IRModule parseModule(std::string_view text, const std::string& sourceName = "<input>");

/// Parses a bare expression (no type inference), e.g. `fn (%x: float32) { add(%x, 1f) }`.
Expr parseExpr(std::string_view text, const std::string& sourceName = "<input>");

}  // namespace tessera::relay
