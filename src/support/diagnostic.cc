#include "support/diagnostic.h"

#include <sstream>

namespace tessera {

std::string Span::str() const {
  if (!source) return "<unknown>";
  return *source + ":" + std::to_string(line) + ":" + std::to_string(column);
}

std::string Diagnostic::str() const {
  std::ostringstream os;
  if (span.defined()) os << span.str() << ": ";
  os << "error";
  if (!code.empty()) os << "[" << code << "]";
  os << ": ";
  if (!context.empty()) os << context << ": ";
  os << message;
  for (const std::string& note : notes) os << "\n  note: " << note;
  return os.str();
}

DiagnosticError::DiagnosticError(Diagnostic diag)
    : std::runtime_error(diag.str()), diag_(std::move(diag)) {}

void throwDiagnostic(std::string code, std::string message, Span span, std::string context) {
  throw DiagnosticError(Diagnostic{.span = std::move(span),
                                   .code = std::move(code),
                                   .message = std::move(message),
                                   .context = std::move(context),
                                   .notes = {}});
}

}  // namespace tessera
