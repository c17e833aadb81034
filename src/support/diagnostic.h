// User-facing errors: a located Diagnostic carried by DiagnosticError. Internal invariants use
// TS_CHECK (check.h) instead; a user must never be able to trigger a TS_CHECK failure.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "support/span.h"

namespace tessera {

/// One problem found in user input: where it is, a short stable code, and what was expected vs
/// found. Messages follow LLVM style: lower-case start, no final period.
struct Diagnostic {
  Span span;            ///< where the problem is (may be undefined, then `context` names the place)
  std::string code;     ///< stable label shared with specs and tests, e.g. "parse", "conv2d_c3"
  std::string message;  ///< what was expected and what was found
  std::string context;  ///< a non-textual place: an op and argument, an ONNX node, a file name
  std::vector<std::string> notes;

  /// "file:3:14: error[parse]: expected ')' but found ','" plus notes on following lines.
  std::string str() const;
};

/// The exception that carries a Diagnostic up to the API boundary (the CLI prints it and exits 1).
class DiagnosticError : public std::runtime_error {
 public:
  explicit DiagnosticError(Diagnostic diag);
  const Diagnostic& diagnostic() const { return diag_; }

 private:
  Diagnostic diag_;
};

/// Throws a DiagnosticError built from the parts; for one-line error sites.
[[noreturn]] void throwDiagnostic(std::string code, std::string message, Span span = {},
                                  std::string context = {});

}  // namespace tessera
