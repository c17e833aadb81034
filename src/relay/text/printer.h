// The Relay text printer. Produces exactly what TVM prints for the seeds (PrettyPrint form), or a
// round-trippable form with a version header and a metadata section holding the constants' values.
#pragma once

#include <string>

#include "relay/expr.h"
#include "relay/module.h"

namespace tessera::relay {

struct PrintOptions {
  /// Print the `#[version = "0.0.5"]` header (astext form). Off: PrettyPrint form, as the seeds
  /// show.
  bool header = false;
  /// Append `#[metadata]` and the constants' values so the text parses back to an equal module.
  /// When off and constants were referenced in the astext form, a comment says the section was
  /// omitted.
  bool metadata = false;
  /// Print `/* ty=... */` annotations (and spans, if any) after each node.
  bool types = true;
  /// Print `span=NAME:LINE:COL` inside the annotations of nodes that have spans. Spans at line 0
  /// are provenance labels set by frontends (`span=aten___convolution_0:0:0`) and are printed;
  /// spans at line >= 1 are positions in a parsed text file, kept for diagnostics, and printed
  /// only with `textSpans` (re-printing a parsed file would otherwise locate every node).
  bool spans = true;
  /// Also print spans that are positions in a parsed text file (see `spans`).
  bool textSpans = false;
};

/// Prints a whole module: functions sorted by name, separated by blank lines.
std::string printModule(const IRModule& module, const PrintOptions& options = {});
/// Prints one expression (e.g. a Function as `fn (...) -> T { ... }`, or a bare expression with
/// `free_var` declarations).
std::string printExpr(const Expr& e, const PrintOptions& options = {});
/// The round-trippable form: header + metadata. parseModule(printRoundTrip(m)) is structurally
/// equal to m. Floats are written with as many digits as they need to read back exactly.
std::string printRoundTrip(const IRModule& module);

}  // namespace tessera::relay
