// The Relay text lexer: turns the whole input into tokens in one pass. Block comments are kept on
// the side (the parser reads a meta constant's type from the `/* ty=... */` after it); everything
// after `#[metadata]` is one token holding the metadata payload. Lexical errors are
// DiagnosticErrors (code "parse") located at line:column.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/data_type.h"
#include "support/span.h"

namespace tessera::relay::text {

enum class TokenKind : uint8_t {
  kEof,
  kIdent,     ///< identifiers and keywords: `fn`, `nn`, `float32`, `True`
  kLocal,     ///< `%x` (text = "x")
  kGraph,     ///< `%12` (intValue = 12)
  kGlobal,    ///< `@main` (text = "main")
  kInt,       ///< integer literal (intValue, dtype)
  kFloat,     ///< float literal (floatValue, dtype)
  kString,    ///< string literal, escapes resolved
  kMeta,      ///< `meta[relay.Constant][0]` (text = type key, intValue = index)
  kVersion,   ///< TVM 0.6's bare `v0.0.4` header line (text = "0.0.4")
  kMetadata,  ///< `#[metadata]` and the rest of the input (text = the payload)
  kLParen,
  kRParen,
  kLBracket,
  kRBracket,
  kLBrace,
  kRBrace,
  kComma,
  kDot,
  kEqual,
  kSemicolon,
  kColon,
  kPlus,
  kMinus,
  kStar,
  kSlash,
  kLess,
  kGreater,
  kLessEqual,
  kGreaterEqual,
  kEqualEqual,
  kNotEqual,
  kBang,
  kQuestion,
  kHash,
  kArrow,
};

/// How a token kind is named in "expected X but found Y" messages.
const char* tokenKindName(TokenKind kind);

struct Token {
  TokenKind kind = TokenKind::kEof;
  int line = 1;
  int column = 1;
  std::string text;
  int64_t intValue = 0;
  double floatValue = 0;
  DataType dtype;
  /// Byte offset of the token in the input (the metadata payload's start, for kMetadata).
  size_t offset = 0;
};

/// A block comment's body (without the delimiters) and where the body starts.
struct Comment {
  std::string body;
  int line = 1;
  int column = 1;
};

struct LexResult {
  std::vector<Token> tokens;  ///< always ends with kEof
  /// Block comments that directly follow token i (before token i + 1).
  std::map<size_t, std::vector<Comment>> commentsAfter;
};

/// Tokenizes `text`. `source` names the input in diagnostics; `line`/`column` are where `text`
/// starts (not 1:1 when lexing the inside of a comment). Throws DiagnosticError on bad input.
LexResult lex(std::string_view text, const std::shared_ptr<const std::string>& source, int line = 1,
              int column = 1);

/// "'('", "identifier 'fn'", "integer 3": a token as named in diagnostics.
std::string describeToken(const Token& token);

/// The span of a token.
Span tokenSpan(const Token& token, const std::shared_ptr<const std::string>& source);

}  // namespace tessera::relay::text
