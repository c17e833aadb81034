// Tokens of the Python subset TVMScript is written in, with Python's layout rules: INDENT and
// DEDENT tokens from leading whitespace, NEWLINE at the end of a logical line, and no line breaks
// inside brackets. Comments and blank lines produce nothing.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "support/span.h"

namespace tessera::tir::script {

enum class TokenKind : uint8_t {
  kName,
  kInt,
  kFloat,
  kString,
  kOp,  ///< an operator or delimiter; text holds it ("(", "//", "->", ...)
  kNewline,
  kIndent,
  kDedent,
  kEnd,
};

struct Token {
  TokenKind kind = TokenKind::kEnd;
  std::string text;  ///< the name, operator, or the string's decoded value
  int64_t intValue = 0;
  double floatValue = 0;
  int line = 1;
  int column = 1;
};

/// The tokens of `text`; a malformed token (an unterminated string, a stray character, an
/// inconsistent dedent) is a DiagnosticError (code "tvmscript") located in `source`.
std::vector<Token> tokenize(std::string_view text,
                            const std::shared_ptr<const std::string>& source);

/// Short description of a token for messages: "name 'x'", "'('", "end of line".
std::string describe(const Token& token);

}  // namespace tessera::tir::script
