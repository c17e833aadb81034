// The TVMScript tokenizer. Layout follows Python: a logical line ends at a newline outside
// brackets; its indentation, compared with a stack of open levels, yields INDENT/DEDENT tokens.
#include "tir/script/py_lexer.h"

#include <cctype>
#include <cerrno>
#include <cstdlib>

#include "support/diagnostic.h"

namespace tessera::tir::script {

namespace {

/// Open indentation levels deeper than this are rejected (the parser recurses per level).
constexpr size_t kMaxIndentLevels = 200;

bool isNameStart(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
bool isNameChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

class Lexer {
 public:
  Lexer(std::string_view text, std::shared_ptr<const std::string> source)
      : text_(text), source_(std::move(source)) {}

  std::vector<Token> run() {
    while (pos_ < text_.size()) {
      if (atLineStart_ && brackets_ == 0) {
        if (!startLine()) continue;
      }
      char c = text_[pos_];
      if (c == '\n') {
        newline();
        continue;
      }
      if (c == ' ' || c == '\t' || c == '\r' || c == '\f') {
        advance();
        continue;
      }
      if (c == '#') {
        while (pos_ < text_.size() && text_[pos_] != '\n') advance();
        continue;
      }
      if (c == '\\' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '\n') {
        advance();
        advance();
        continue;
      }
      lexToken();
    }
    if (!tokens_.empty() && tokens_.back().kind != TokenKind::kNewline) push(TokenKind::kNewline);
    while (indents_.size() > 1) {
      indents_.pop_back();
      push(TokenKind::kDedent);
    }
    push(TokenKind::kEnd);
    return std::move(tokens_);
  }

 private:
  std::string_view text_;
  std::shared_ptr<const std::string> source_;
  size_t pos_ = 0;
  int line_ = 1;
  int column_ = 1;
  int brackets_ = 0;
  bool atLineStart_ = true;
  std::vector<int> indents_{0};
  std::vector<Token> tokens_;

  [[noreturn]] void fail(const std::string& message, int line, int column) const {
    throwDiagnostic("tvmscript", message, Span{source_, line, column});
  }

  void advance() {
    if (text_[pos_] == '\n') {
      ++line_;
      column_ = 1;
    } else {
      ++column_;
    }
    ++pos_;
  }

  Token& push(TokenKind kind, std::string text = {}) {
    Token t;
    t.kind = kind;
    t.text = std::move(text);
    t.line = line_;
    t.column = column_;
    tokens_.push_back(std::move(t));
    return tokens_.back();
  }

  void newline() {
    if (brackets_ == 0 && !tokens_.empty() && tokens_.back().kind != TokenKind::kNewline &&
        tokens_.back().kind != TokenKind::kDedent && tokens_.back().kind != TokenKind::kIndent)
      push(TokenKind::kNewline);
    advance();
    // Inside brackets a line break continues the logical line: no indentation to measure.
    atLineStart_ = brackets_ == 0;
  }

  // Measures the indentation of a line; blank and comment-only lines do not count. Returns false
  // when the line was blank (the caller continues with the next one).
  bool startLine() {
    int width = 0;
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t')) {
      width = text_[pos_] == '\t' ? (width / 8 + 1) * 8 : width + 1;
      advance();
    }
    if (pos_ >= text_.size()) return false;
    char c = text_[pos_];
    if (c == '\n' || c == '#' || c == '\r') {
      while (pos_ < text_.size() && text_[pos_] != '\n') advance();
      if (pos_ < text_.size()) advance();
      return false;
    }
    atLineStart_ = false;
    if (width > indents_.back()) {
      if (indents_.size() >= kMaxIndentLevels)
        fail("indentation is nested deeper than " + std::to_string(kMaxIndentLevels) + " levels",
             line_, column_);
      indents_.push_back(width);
      push(TokenKind::kIndent);
      return true;
    }
    while (width < indents_.back()) {
      indents_.pop_back();
      push(TokenKind::kDedent);
    }
    if (width != indents_.back())
      fail("unindent does not match any outer indentation level", line_, column_);
    return true;
  }

  void lexToken() {
    char c = text_[pos_];
    if (isNameStart(c)) {
      Token& t = push(TokenKind::kName);
      size_t start = pos_;
      while (pos_ < text_.size() && isNameChar(text_[pos_])) advance();
      t.text = std::string(text_.substr(start, pos_ - start));
      return;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) ||
        (c == '.' && pos_ + 1 < text_.size() &&
         std::isdigit(static_cast<unsigned char>(text_[pos_ + 1])))) {
      lexNumber();
      return;
    }
    if (c == '"' || c == '\'') {
      lexString();
      return;
    }
    lexOperator();
  }

  void lexNumber() {
    int line = line_, column = column_;
    size_t start = pos_;
    bool isFloat = false;
    if (text_[pos_] == '0' && pos_ + 1 < text_.size() && (text_[pos_ + 1] | 0x20) == 'x') {
      advance();
      advance();
      while (pos_ < text_.size() &&
             (std::isxdigit(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_'))
        advance();
    } else {
      auto digits = [&] {
        while (pos_ < text_.size() &&
               (std::isdigit(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_'))
          advance();
      };
      digits();
      if (pos_ < text_.size() && text_[pos_] == '.') {
        isFloat = true;
        advance();
        digits();
      }
      if (pos_ < text_.size() && (text_[pos_] | 0x20) == 'e') {
        isFloat = true;
        advance();
        if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) advance();
        if (pos_ >= text_.size() || !std::isdigit(static_cast<unsigned char>(text_[pos_])))
          fail("malformed number: expected digits after the exponent", line, column);
        digits();
      }
    }
    if (pos_ < text_.size() && isNameChar(text_[pos_]))
      fail("malformed number '" + std::string(text_.substr(start, pos_ - start + 1)) + "'", line,
           column);
    std::string spelled;
    for (char ch : text_.substr(start, pos_ - start))
      if (ch != '_') spelled += ch;
    Token t;
    t.line = line;
    t.column = column;
    t.text = spelled;
    errno = 0;
    if (isFloat) {
      t.kind = TokenKind::kFloat;
      t.floatValue = std::strtod(spelled.c_str(), nullptr);
    } else {
      t.kind = TokenKind::kInt;
      char* end = nullptr;
      unsigned long long v = std::strtoull(spelled.c_str(), &end, 0);
      if (errno == ERANGE || v > static_cast<unsigned long long>(INT64_MAX))
        fail("integer literal " + spelled + " does not fit in 64 bits", line, column);
      t.intValue = static_cast<int64_t>(v);
    }
    tokens_.push_back(std::move(t));
  }

  void lexString() {
    int line = line_, column = column_;
    char quote = text_[pos_];
    bool triple = text_.substr(pos_, 3) == std::string(3, quote);
    for (int i = 0; i < (triple ? 3 : 1); ++i) advance();
    std::string value;
    while (true) {
      if (pos_ >= text_.size() || (!triple && text_[pos_] == '\n'))
        fail("unterminated string literal", line, column);
      char c = text_[pos_];
      if (c == quote && (!triple || text_.substr(pos_, 3) == std::string(3, quote))) {
        for (int i = 0; i < (triple ? 3 : 1); ++i) advance();
        break;
      }
      if (c == '\\' && pos_ + 1 < text_.size()) {
        advance();
        char e = text_[pos_];
        advance();
        switch (e) {
          case 'n':
            value += '\n';
            break;
          case 't':
            value += '\t';
            break;
          case '\n':
            break;
          default:
            value += e;
        }
        continue;
      }
      value += c;
      advance();
    }
    Token t;
    t.kind = TokenKind::kString;
    t.text = std::move(value);
    t.line = line;
    t.column = column;
    tokens_.push_back(std::move(t));
  }

  void lexOperator() {
    static const char* const kTwoChar[] = {"**", "//", "==", "!=", "<=", ">=", "->",
                                           "<<", ">>", "+=", "-=", "*=", "/=", "%="};
    for (const char* op : kTwoChar) {
      if (text_.substr(pos_, 2) == op) {
        push(TokenKind::kOp, op);
        advance();
        advance();
        return;
      }
    }
    char c = text_[pos_];
    static const std::string_view kSingle = "+-*/%<>=()[]{},:.@~&|^;";
    if (kSingle.find(c) == std::string_view::npos) {
      std::string shown = std::isprint(static_cast<unsigned char>(c))
                              ? std::string("'") + c + "'"
                              : "byte " + std::to_string(static_cast<unsigned char>(c));
      fail("unexpected character " + shown, line_, column_);
    }
    if (c == '(' || c == '[' || c == '{') ++brackets_;
    if ((c == ')' || c == ']' || c == '}') && brackets_ > 0) --brackets_;
    push(TokenKind::kOp, std::string(1, c));
    advance();
  }
};

}  // namespace

std::vector<Token> tokenize(std::string_view text,
                            const std::shared_ptr<const std::string>& source) {
  return Lexer(text, source).run();
}

std::string describe(const Token& token) {
  switch (token.kind) {
    case TokenKind::kName:
      return "name '" + token.text + "'";
    case TokenKind::kInt:
    case TokenKind::kFloat:
      return "number " + token.text;
    case TokenKind::kString:
      return "string \"" + token.text + "\"";
    case TokenKind::kOp:
      return "'" + token.text + "'";
    case TokenKind::kNewline:
      return "end of line";
    case TokenKind::kIndent:
      return "an indented block";
    case TokenKind::kDedent:
      return "the end of the block";
    case TokenKind::kEnd:
      return "end of input";
  }
  return "token";
}

}  // namespace tessera::tir::script
