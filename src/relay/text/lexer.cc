// The Relay text lexer (spec §2.2). One forward pass with no recursion: nested block comments are
// tracked with a depth counter, so no input can exhaust the stack.
#include "relay/text/lexer.h"

#include <charconv>
#include <cmath>
#include <limits>

#include "support/diagnostic.h"

namespace tessera::relay::text {

namespace {

bool isIdentStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool isDigit(char c) {
  return c >= '0' && c <= '9';
}
bool isIdentChar(char c) {
  return isIdentStart(c) || isDigit(c);
}

class Lexer {
 public:
  Lexer(std::string_view text, std::shared_ptr<const std::string> source, int line, int column)
      : text_(text), source_(std::move(source)), line_(line), column_(column) {}

  LexResult run() {
    while (skipSpaceAndComments()) {
      Token tok = start();
      lexToken(tok);
      result_.tokens.push_back(std::move(tok));
      if (result_.tokens.back().kind == TokenKind::kMetadata) break;
    }
    Token eof = start();
    eof.kind = TokenKind::kEof;
    result_.tokens.push_back(eof);
    return std::move(result_);
  }

 private:
  char peek(size_t k = 0) const { return pos_ + k < text_.size() ? text_[pos_ + k] : '\0'; }
  bool more(size_t k = 0) const { return pos_ + k < text_.size(); }
  bool startsWith(std::string_view s) const { return text_.substr(pos_).starts_with(s); }

  void advance(size_t n = 1) {
    for (size_t i = 0; i < n && pos_ < text_.size(); ++i, ++pos_) {
      if (text_[pos_] == '\n') {
        ++line_;
        column_ = 1;
      } else {
        ++column_;
      }
    }
  }

  Token start() const {
    Token t;
    t.line = line_;
    t.column = column_;
    t.offset = pos_;
    return t;
  }

  [[noreturn]] void fail(const Token& at, const std::string& message) const {
    throwDiagnostic("parse", message, tokenSpan(at, source_));
  }
  [[noreturn]] void failHere(const std::string& message) const { fail(start(), message); }

  // Skips whitespace and comments; returns false at the end of the input.
  bool skipSpaceAndComments() {
    while (more()) {
      const char c = peek();
      if (c == ' ' || c == '\t' || c == '\n') {
        advance();
      } else if (c == '\r') {
        if (peek(1) != '\n') failHere("expected '\\n' after '\\r'");
        advance(2);
      } else if (c == '/' && peek(1) == '/') {
        while (more() && peek() != '\n') advance();
      } else if (c == '/' && peek(1) == '*') {
        blockComment();
      } else {
        return true;
      }
    }
    return false;
  }

  void blockComment() {
    const Token open = start();
    advance(2);
    Comment comment{.body = {}, .line = line_, .column = column_};
    const size_t bodyStart = pos_;
    int depth = 1;
    while (true) {
      if (!more()) fail(open, "unterminated comment: expected '*/' but found end of input");
      if (peek() == '/' && peek(1) == '*') {
        ++depth;
        advance(2);
      } else if (peek() == '*' && peek(1) == '/') {
        if (--depth == 0) break;
        advance(2);
      } else {
        advance();
      }
    }
    comment.body = std::string(text_.substr(bodyStart, pos_ - bodyStart));
    advance(2);
    if (!result_.tokens.empty())
      result_.commentsAfter[result_.tokens.size() - 1].push_back(std::move(comment));
  }

  void lexToken(Token& tok) {
    const char c = peek();
    if (isDigit(c)) return number(tok, false);
    if (c == '-') return minus(tok);
    if (isIdentStart(c)) return identifier(tok);
    switch (c) {
      case '%':
        return local(tok);
      case '@':
        return global(tok);
      case '"':
        return string(tok);
      case '#':
        return hash(tok);
      default:
        break;
    }
    punctuation(tok);
  }

  void punctuation(Token& tok) {
    struct Punct {
      std::string_view text;
      TokenKind kind;
    };
    // Two-character tokens first, so "<=" is not read as "<" "=".
    static constexpr Punct kPuncts[] = {
        {"==", TokenKind::kEqualEqual}, {"!=", TokenKind::kNotEqual},
        {"<=", TokenKind::kLessEqual},  {">=", TokenKind::kGreaterEqual},
        {"(", TokenKind::kLParen},      {")", TokenKind::kRParen},
        {"[", TokenKind::kLBracket},    {"]", TokenKind::kRBracket},
        {"{", TokenKind::kLBrace},      {"}", TokenKind::kRBrace},
        {",", TokenKind::kComma},       {".", TokenKind::kDot},
        {"=", TokenKind::kEqual},       {";", TokenKind::kSemicolon},
        {":", TokenKind::kColon},       {"+", TokenKind::kPlus},
        {"*", TokenKind::kStar},        {"/", TokenKind::kSlash},
        {"<", TokenKind::kLess},        {">", TokenKind::kGreater},
        {"!", TokenKind::kBang},        {"?", TokenKind::kQuestion},
    };
    for (const Punct& p : kPuncts) {
      if (!startsWith(p.text)) continue;
      tok.kind = p.kind;
      tok.text = std::string(p.text);
      advance(p.text.size());
      return;
    }
    const auto byte = static_cast<unsigned char>(peek());
    if (byte >= 0x20 && byte < 0x7f)
      failHere(std::string("unexpected character '") + static_cast<char>(byte) + "'");
    static constexpr char kHex[] = "0123456789abcdef";
    failHere(std::string("unexpected byte 0x") + kHex[byte >> 4] + kHex[byte & 15]);
  }

  // A run of '-' directly before a number negates it when its length is odd (`--10` is 10);
  // otherwise '-' is the minus operator or the start of `->`.
  void minus(Token& tok) {
    if (peek(1) == '>') {
      tok.kind = TokenKind::kArrow;
      tok.text = "->";
      advance(2);
      return;
    }
    // Inside a run already known not to precede a number, each '-' is a minus: rescanning the
    // rest of the run every time would make a long run of '-' quadratic.
    if (pos_ < plainMinusEnd_) {
      tok.kind = TokenKind::kMinus;
      tok.text = "-";
      advance();
      return;
    }
    size_t run = 0;
    while (peek(run) == '-') ++run;
    if (isDigit(peek(run))) {
      advance(run);
      return number(tok, run % 2 == 1);
    }
    if (text_.substr(pos_ + run).starts_with("inff") && !isIdentChar(peek(run + 4))) {
      advance(run + 4);
      return infinity(tok, run % 2 == 1);
    }
    plainMinusEnd_ = pos_ + run;
    tok.kind = TokenKind::kMinus;
    tok.text = "-";
    advance();
  }

  void infinity(Token& tok, bool negative) {
    tok.kind = TokenKind::kFloat;
    tok.dtype = DataType::float32();
    tok.floatValue = negative ? -std::numeric_limits<double>::infinity()
                              : std::numeric_limits<double>::infinity();
    tok.text = negative ? "-inff" : "inff";
  }

  // digits ['.' digits] [('e'|'E') ['+'|'-'] digits] [suffix]. Unlike TVM, '+'/'-' belong to a
  // number only after the exponent mark, so `1-1` is not lexed as one (invalid) number.
  void number(Token& tok, bool negative) {
    const size_t begin = pos_;
    bool isFloat = false;
    while (isDigit(peek())) advance();
    // After '.', a number is a tuple index: `%x.0.1` must not read "0.1" as one number.
    const bool projection =
        !result_.tokens.empty() && result_.tokens.back().kind == TokenKind::kDot;
    if (!projection && peek() == '.' && isDigit(peek(1))) {
      isFloat = true;
      advance();
      while (isDigit(peek())) advance();
    }
    if (!projection && (peek() == 'e' || peek() == 'E')) {
      size_t k = 1;
      if (peek(k) == '+' || peek(k) == '-') ++k;
      if (isDigit(peek(k))) {
        isFloat = true;
        advance(k);
        while (isDigit(peek())) advance();
      }
    }
    const std::string digits = std::string(text_.substr(begin, pos_ - begin));
    tok.text = (negative ? "-" : "") + digits;
    const size_t suffixStart = pos_;
    char kind = 0;
    int bits = 0;
    if (!projection && (peek() == 'f' || peek() == 'i')) {
      kind = peek();
      advance();
      for (std::string_view width : {"16", "32", "64"}) {
        if (startsWith(width)) {
          bits = width[0] == '1' ? 16 : width[0] == '3' ? 32 : 64;
          advance(2);
          break;
        }
      }
    }
    if (isIdentChar(peek())) {
      while (isIdentChar(peek())) advance();
      fail(tok, "invalid number suffix '" +
                    std::string(text_.substr(suffixStart, pos_ - suffixStart)) + "' in '" +
                    tok.text + std::string(text_.substr(suffixStart, pos_ - suffixStart)) +
                    "' (expected f, f16, f32, f64, i, i16, i32 or i64)");
    }
    if (kind == 'f') return floatValue(tok, bits == 0 ? 32 : bits);
    if (isFloat)
      fail(tok,
           "invalid integer '" + tok.text + "': a float needs the 'f' suffix (" + tok.text + "f)");
    intValue(tok, bits, kind == 'i');
  }

  void floatValue(Token& tok, int bits) {
    double value = 0;
    const std::string& s = tok.text;
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
    if (ec != std::errc() || ptr != s.data() + s.size())
      fail(tok, "float literal '" + s + "' is out of range");
    const double limit = bits == 16   ? 65504.0
                         : bits == 32 ? 3.4028234663852886e38
                                      : std::numeric_limits<double>::max();
    if (std::isfinite(value) && std::fabs(value) > limit)
      fail(tok, "float literal '" + s + "' does not fit in float" + std::to_string(bits));
    tok.kind = TokenKind::kFloat;
    tok.floatValue = value;
    tok.dtype = bits == 16   ? DataType::float16()
                : bits == 32 ? DataType::float32()
                             : DataType::float64();
  }

  void intValue(Token& tok, int bits, bool explicitType) {
    int64_t value = 0;
    const std::string& s = tok.text;
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
    if (ec != std::errc() || ptr != s.data() + s.size())
      fail(tok, "integer literal '" + s + "' does not fit in int64");
    tok.kind = TokenKind::kInt;
    tok.intValue = value;
    const bool fits32 = value >= INT32_MIN && value <= INT32_MAX;
    // An unsuffixed literal widens silently; an explicit width must hold the value.
    if (!explicitType || bits == 0) {
      if (explicitType && !fits32) fail(tok, "integer literal '" + s + "' does not fit in int32");
      tok.dtype = fits32 ? DataType::int32() : DataType::int64();
      return;
    }
    if (bits == 16 && (value < INT16_MIN || value > INT16_MAX))
      fail(tok, "integer literal '" + s + "' does not fit in int16");
    if (bits == 32 && !fits32) fail(tok, "integer literal '" + s + "' does not fit in int32");
    tok.dtype = bits == 16 ? DataType::int16() : bits == 32 ? DataType::int32() : DataType::int64();
  }

  void identifier(Token& tok) {
    // TVM 0.6 printed a bare `v0.0.4` line as the header; accept it as the first token.
    if (result_.tokens.empty() && peek() == 'v' && isDigit(peek(1))) {
      advance();
      const size_t begin = pos_;
      while (isDigit(peek()) || peek() == '.') advance();
      tok.kind = TokenKind::kVersion;
      tok.text = std::string(text_.substr(begin, pos_ - begin));
      return;
    }
    const size_t begin = pos_;
    while (isIdentChar(peek())) advance();
    tok.kind = TokenKind::kIdent;
    tok.text = std::string(text_.substr(begin, pos_ - begin));
    if (tok.text == "inff") return infinity(tok, false);
    if (tok.text == "meta" && peek() == '[') metaRef(tok);
  }

  // meta[TYPE_KEY][INDEX] is one token, so `meta` stays usable as an ordinary name elsewhere.
  void metaRef(Token& tok) {
    advance();  // '['
    const size_t keyBegin = pos_;
    while (isIdentChar(peek()) || peek() == '.') advance();
    const std::string key = std::string(text_.substr(keyBegin, pos_ - keyBegin));
    if (key.empty() || peek() != ']' || peek(1) != '[' || !isDigit(peek(2)))
      fail(tok, "malformed meta reference: expected meta[TYPE_KEY][INDEX]");
    advance(2);
    const size_t indexBegin = pos_;
    while (isDigit(peek())) advance();
    const std::string_view digits = text_.substr(indexBegin, pos_ - indexBegin);
    int64_t index = 0;
    auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), index);
    if (ec != std::errc() || index > INT32_MAX) fail(tok, "meta index is too large");
    if (peek() != ']') fail(tok, "malformed meta reference: expected ']' after the index");
    advance();
    tok.kind = TokenKind::kMeta;
    tok.text = key;
    tok.intValue = index;
  }

  // `%12` is a graph binding, `%name` a variable; names follow identifier rules (no dots), so
  // `%x.0` is the projection of %x.
  void local(Token& tok) {
    advance();  // '%'
    const size_t begin = pos_;
    if (isDigit(peek())) {
      while (isDigit(peek())) advance();
      const std::string_view digits = text_.substr(begin, pos_ - begin);
      int64_t n = 0;
      auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
      if (ec != std::errc() || n > INT32_MAX)
        fail(tok, "graph binding number %" + std::string(digits) + " is too large");
      tok.kind = TokenKind::kGraph;
      tok.intValue = n;
      tok.text = std::string(digits);
      return;
    }
    if (!isIdentStart(peek())) fail(tok, "expected a variable name after '%'");
    while (isIdentChar(peek())) advance();
    tok.kind = TokenKind::kLocal;
    tok.text = std::string(text_.substr(begin, pos_ - begin));
  }

  void global(Token& tok) {
    advance();  // '@'
    const size_t begin = pos_;
    if (!isIdentStart(peek())) fail(tok, "expected a global name after '@'");
    while (isIdentChar(peek())) advance();
    tok.kind = TokenKind::kGlobal;
    tok.text = std::string(text_.substr(begin, pos_ - begin));
  }

  // TVM's tokenizer keeps backslashes verbatim; the printer escapes '"', '\\' and newlines, so
  // resolving those escapes here is what makes every string round-trip.
  void string(Token& tok) {
    advance();  // opening quote
    std::string value;
    while (true) {
      if (!more()) fail(tok, "unterminated string: expected '\"' but found end of input");
      const char c = peek();
      if (c == '"') break;
      if (c == '\\' && more(1)) {
        const char e = peek(1);
        value += e == 'n' ? '\n' : e == 't' ? '\t' : e;
        advance(2);
        continue;
      }
      value += c;
      advance();
    }
    advance();
    tok.kind = TokenKind::kString;
    tok.text = std::move(value);
  }

  // `#[metadata]` swallows the rest of the input: the payload is JSON, not Relay tokens.
  void hash(Token& tok) {
    if (startsWith("#[metadata]")) {
      advance(11);
      tok.kind = TokenKind::kMetadata;
      tok.offset = pos_;
      tok.line = line_;
      tok.column = column_;
      tok.text = std::string(text_.substr(pos_));
      pos_ = text_.size();
      return;
    }
    tok.kind = TokenKind::kHash;
    tok.text = "#";
    advance();
  }

  std::string_view text_;
  std::shared_ptr<const std::string> source_;
  size_t pos_ = 0;
  size_t plainMinusEnd_ = 0;  ///< end of a run of '-' that is not followed by a number
  int line_;
  int column_;
  LexResult result_;
};

}  // namespace

const char* tokenKindName(TokenKind kind) {
  // Indexed by TokenKind, in declaration order (the static_assert catches a new kind).
  static constexpr const char* kNames[] = {
      "end of input",    // kEof
      "identifier",      // kIdent
      "variable",        // kLocal
      "graph binding",   // kGraph
      "global",          // kGlobal
      "integer",         // kInt
      "float",           // kFloat
      "string",          // kString
      "meta reference",  // kMeta
      "version header",  // kVersion
      "'#[metadata]'",   // kMetadata
      "'('",             // kLParen
      "')'",             // kRParen
      "'['",             // kLBracket
      "']'",             // kRBracket
      "'{'",             // kLBrace
      "'}'",             // kRBrace
      "','",             // kComma
      "'.'",             // kDot
      "'='",             // kEqual
      "';'",             // kSemicolon
      "':'",             // kColon
      "'+'",             // kPlus
      "'-'",             // kMinus
      "'*'",             // kStar
      "'/'",             // kSlash
      "'<'",             // kLess
      "'>'",             // kGreater
      "'<='",            // kLessEqual
      "'>='",            // kGreaterEqual
      "'=='",            // kEqualEqual
      "'!='",            // kNotEqual
      "'!'",             // kBang
      "'?'",             // kQuestion
      "'#'",             // kHash
      "'->'",            // kArrow
  };
  static_assert(sizeof(kNames) / sizeof(kNames[0]) == static_cast<size_t>(TokenKind::kArrow) + 1);
  return kNames[static_cast<size_t>(kind)];
}

std::string describeToken(const Token& token) {
  switch (token.kind) {
    case TokenKind::kIdent:
      return "'" + token.text + "'";
    case TokenKind::kLocal:
      return "variable %" + token.text;
    case TokenKind::kGraph:
      return "graph binding %" + token.text;
    case TokenKind::kGlobal:
      return "global @" + token.text;
    case TokenKind::kInt:
    case TokenKind::kFloat:
      return std::string(tokenKindName(token.kind)) + " " + token.text;
    case TokenKind::kString:
      return "string \"" + token.text.substr(0, 40) + "\"";
    case TokenKind::kMeta:
      return "meta[" + token.text + "][" + std::to_string(token.intValue) + "]";
    default:
      return tokenKindName(token.kind);
  }
}

Span tokenSpan(const Token& token, const std::shared_ptr<const std::string>& source) {
  return Span{.source = source, .line = token.line, .column = token.column};
}

LexResult lex(std::string_view text, const std::shared_ptr<const std::string>& source, int line,
              int column) {
  return Lexer(text, source, line, column).run();
}

}  // namespace tessera::relay::text
