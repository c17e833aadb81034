// Recursive-descent parser of the TVMScript Python subset. Each recursive entry point (an
// expression, an indented block) holds a DepthGuard, so nesting depth is bounded whatever the
// input; sequences (statements, arguments, operator chains) are loops.
#include "tir/script/py_parser.h"

#include <set>

#include "support/diagnostic.h"
#include "tir/script/py_lexer.h"

namespace tessera::tir::script {

std::string PyExpr::dottedName() const {
  if (kind == PyExprKind::kName) return text;
  if (kind != PyExprKind::kAttribute || !base) return {};
  std::string prefix = base->dottedName();
  return prefix.empty() ? std::string() : prefix + "." + text;
}

PyExprPtr PyExpr::kwarg(const std::string& name) const {
  for (const auto& [key, value] : kwargs)
    if (key == name) return value;
  return nullptr;
}

namespace {

const std::set<std::string>& keywords() {
  static const std::set<std::string> k = {"and",   "as",     "assert", "class", "def",    "elif",
                                          "else",  "for",    "from",   "if",    "import", "in",
                                          "is",    "lambda", "not",    "or",    "pass",   "return",
                                          "while", "True",   "False",  "None",  "with",   "yield"};
  return k;
}

class Parser {
 public:
  Parser(std::string_view text, const std::string& sourceName)
      : source_(std::make_shared<const std::string>(sourceName)),
        tokens_(tokenize(text, source_)) {}

  std::vector<PyStmtPtr> parseModule() {
    std::vector<PyStmtPtr> stmts;
    while (!at(TokenKind::kEnd)) {
      if (at(TokenKind::kIndent)) fail(peek(), "unexpected indentation");
      if (accept(TokenKind::kNewline)) continue;
      stmts.push_back(parseStatement());
    }
    return stmts;
  }

 private:
  std::shared_ptr<const std::string> source_;
  std::vector<Token> tokens_;
  size_t pos_ = 0;
  int depth_ = 0;

  class DepthGuard {
   public:
    DepthGuard(Parser& p) : p_(p) {
      if (++p_.depth_ > kMaxNestingDepth) {
        --p_.depth_;
        p_.fail(p_.peek(),
                "nesting is deeper than " + std::to_string(kMaxNestingDepth) + " levels");
      }
    }
    ~DepthGuard() { --p_.depth_; }
    DepthGuard(const DepthGuard&) = delete;
    DepthGuard& operator=(const DepthGuard&) = delete;

   private:
    Parser& p_;
  };

  // --- token stream ---------------------------------------------------------------------------
  const Token& peek(size_t k = 0) const {
    size_t i = pos_ + k;
    return tokens_[i < tokens_.size() ? i : tokens_.size() - 1];
  }
  const Token& next() {
    const Token& t = peek();
    if (pos_ < tokens_.size() - 1) ++pos_;
    return t;
  }
  bool at(TokenKind kind) const { return peek().kind == kind; }
  bool atOp(std::string_view op, size_t k = 0) const {
    return peek(k).kind == TokenKind::kOp && peek(k).text == op;
  }
  bool atKeyword(std::string_view word) const {
    return peek().kind == TokenKind::kName && peek().text == word;
  }
  bool accept(TokenKind kind) {
    if (!at(kind)) return false;
    next();
    return true;
  }
  bool acceptOp(std::string_view op) {
    if (!atOp(op)) return false;
    next();
    return true;
  }
  bool acceptKeyword(std::string_view word) {
    if (!atKeyword(word)) return false;
    next();
    return true;
  }
  Span span(const Token& t) const { return Span{source_, t.line, t.column}; }
  [[noreturn]] void fail(const Token& t, const std::string& message) const {
    throwDiagnostic("tvmscript", message, span(t));
  }
  void expectOp(std::string_view op) {
    if (!acceptOp(op))
      fail(peek(), "expected '" + std::string(op) + "' but found " + describe(peek()));
  }
  void expectKeyword(std::string_view word) {
    if (!acceptKeyword(word))
      fail(peek(), "expected '" + std::string(word) + "' but found " + describe(peek()));
  }
  std::string expectName(const char* what) {
    if (!at(TokenKind::kName) || keywords().count(peek().text))
      fail(peek(), std::string("expected ") + what + " but found " + describe(peek()));
    return next().text;
  }
  void expectNewline() {
    if (accept(TokenKind::kNewline) || at(TokenKind::kEnd)) return;
    fail(peek(), "expected end of line but found " + describe(peek()));
  }

  std::shared_ptr<PyExpr> node(PyExprKind kind, const Token& at) const {
    auto e = std::make_shared<PyExpr>();
    e->kind = kind;
    e->span = span(at);
    return e;
  }
  std::shared_ptr<PyStmt> stmtNode(PyStmtKind kind, const Token& at) const {
    auto s = std::make_shared<PyStmt>();
    s->kind = kind;
    s->span = span(at);
    return s;
  }

  // --- statements -----------------------------------------------------------------------------
  PyStmtPtr parseStatement() {
    const Token& first = peek();
    if (atOp("@")) return parseDecorated();
    if (atKeyword("def") || atKeyword("class")) return parseDefinition({});
    if (atKeyword("for")) return parseFor();
    if (atKeyword("with")) return parseWith();
    if (atKeyword("if")) return parseIf();
    if ((atKeyword("import") || atKeyword("from")) && depth_ == 0) {
      // `from tvm.script import tir as T` at the top of a file: the names are TVMScript's own.
      while (!at(TokenKind::kNewline) && !at(TokenKind::kEnd)) next();
      expectNewline();
      return stmtNode(PyStmtKind::kPass, first);
    }
    for (const char* unsupported : {"while", "import", "from", "lambda", "yield", "elif", "else"})
      if (atKeyword(unsupported))
        fail(first, "'" + std::string(unsupported) + "' is not supported in TVMScript here");
    PyStmtPtr s = parseSimple();
    expectNewline();
    return s;
  }

  PyStmtPtr parseDecorated() {
    std::vector<PyExprPtr> decorators;
    while (acceptOp("@")) {
      decorators.push_back(parseTest());
      expectNewline();
    }
    if (!atKeyword("def") && !atKeyword("class"))
      fail(peek(), "expected 'def' or 'class' after a decorator but found " + describe(peek()));
    return parseDefinition(std::move(decorators));
  }

  PyStmtPtr parseDefinition(std::vector<PyExprPtr> decorators) {
    const Token& start = peek();
    bool isClass = atKeyword("class");
    next();
    auto s = stmtNode(isClass ? PyStmtKind::kClassDef : PyStmtKind::kFunctionDef, start);
    s->decorators = std::move(decorators);
    s->name = expectName(isClass ? "a class name" : "a function name");
    if (isClass) {
      if (acceptOp("(")) expectOp(")");
    } else {
      expectOp("(");
      while (!atOp(")")) {
        PyParam p;
        p.span = span(peek());
        p.name = expectName("a parameter name");
        if (acceptOp(":")) p.annotation = parseTest();
        if (atOp("=")) fail(peek(), "default parameter values are not supported in TVMScript");
        s->params.push_back(std::move(p));
        if (!acceptOp(",")) break;
      }
      expectOp(")");
      if (acceptOp("->")) s->returns = parseTest();
    }
    expectOp(":");
    s->body = parseSuite();
    return s;
  }

  PyStmtPtr parseFor() {
    auto s = stmtNode(PyStmtKind::kFor, next());
    s->targets = parseTargets("in");
    expectKeyword("in");
    s->value = parseTest();
    expectOp(":");
    s->body = parseSuite();
    return s;
  }

  PyStmtPtr parseWith() {
    auto s = stmtNode(PyStmtKind::kWith, next());
    s->value = parseTest();
    if (acceptKeyword("as")) s->targets = parseTargets(":");
    expectOp(":");
    s->body = parseSuite();
    return s;
  }

  PyStmtPtr parseIf() {
    auto s = stmtNode(PyStmtKind::kIf, next());
    s->value = parseTest();
    expectOp(":");
    s->body = parseSuite();
    if (atKeyword("elif")) {
      // `elif` is an `if` nested in the else branch.
      s->orelse.push_back(parseIf());
    } else if (acceptKeyword("else")) {
      expectOp(":");
      s->orelse = parseSuite();
    }
    return s;
  }

  // Comma-separated names (or other primaries) before `in`, `=` or `:`.
  std::vector<PyExprPtr> parseTargets(std::string_view stop) {
    std::vector<PyExprPtr> targets;
    bool parenthesized = acceptOp("(");
    do {
      if (parenthesized && atOp(")")) break;
      if (!parenthesized && (atOp(stop) || atKeyword(stop))) break;
      targets.push_back(parsePrimary());
    } while (acceptOp(","));
    if (parenthesized) expectOp(")");
    if (targets.empty()) fail(peek(), "expected a target but found " + describe(peek()));
    return targets;
  }

  std::vector<PyStmtPtr> parseSuite() {
    DepthGuard guard(*this);
    std::vector<PyStmtPtr> body;
    if (!accept(TokenKind::kNewline)) {
      // A one-line suite: `if c: x = 1`.
      body.push_back(parseSimple());
      expectNewline();
      return body;
    }
    if (!accept(TokenKind::kIndent))
      fail(peek(), "expected an indented block but found " + describe(peek()));
    while (!accept(TokenKind::kDedent)) {
      if (at(TokenKind::kEnd)) break;
      if (accept(TokenKind::kNewline)) continue;
      body.push_back(parseStatement());
    }
    return body;
  }

  PyStmtPtr parseSimple() {
    const Token& start = peek();
    if (acceptKeyword("pass")) return stmtNode(PyStmtKind::kPass, start);
    if (acceptKeyword("return")) {
      auto s = stmtNode(PyStmtKind::kReturn, start);
      if (!at(TokenKind::kNewline) && !at(TokenKind::kEnd)) s->value = parseExprList();
      return s;
    }
    if (acceptKeyword("assert")) {
      auto s = stmtNode(PyStmtKind::kAssert, start);
      s->value = parseTest();
      if (acceptOp(",")) s->message = parseTest();
      return s;
    }
    PyExprPtr first = parseExprList();
    if (acceptOp(":")) {
      auto s = stmtNode(PyStmtKind::kAnnAssign, start);
      s->targets.push_back(first);
      s->annotation = parseTest();
      if (acceptOp("=")) s->value = parseExprList();
      return s;
    }
    if (acceptOp("=")) {
      auto s = stmtNode(PyStmtKind::kAssign, start);
      PyExprPtr value = parseExprList();
      if (atOp("=")) fail(peek(), "chained assignment is not supported in TVMScript");
      // `a, b = ...` has one target per name; `(a, b) = ...` too.
      if (first->kind == PyExprKind::kTuple)
        s->targets = first->items;
      else
        s->targets.push_back(first);
      s->value = value;
      return s;
    }
    for (const char* op : {"+=", "-=", "*=", "/=", "%="})
      if (atOp(op)) fail(peek(), "augmented assignment is not supported in TVMScript");
    auto s = stmtNode(PyStmtKind::kExpr, start);
    s->value = first;
    return s;
  }

  // --- expressions ----------------------------------------------------------------------------
  // `a, b` (a tuple without parentheses) or a single expression.
  PyExprPtr parseExprList() {
    const Token& start = peek();
    PyExprPtr first = parseTest();
    if (!atOp(",")) return first;
    auto tuple = node(PyExprKind::kTuple, start);
    tuple->items.push_back(first);
    while (acceptOp(",")) {
      if (atOp("=") || atOp(":") || at(TokenKind::kNewline) || at(TokenKind::kEnd) || atOp(")"))
        break;
      tuple->items.push_back(parseTest());
    }
    return tuple;
  }

  PyExprPtr parseTest() {
    DepthGuard guard(*this);
    PyExprPtr e = parseOr();
    if (atKeyword("if")) fail(peek(), "conditional expressions are not supported; use T.Select");
    return e;
  }

  PyExprPtr binaryNode(const Token& at, std::string op, PyExprPtr a, PyExprPtr b) {
    auto e = node(PyExprKind::kBinary, at);
    e->span = a->span;
    e->text = std::move(op);
    e->items = {std::move(a), std::move(b)};
    return e;
  }

  PyExprPtr parseOr() {
    PyExprPtr e = parseAnd();
    while (atKeyword("or")) {
      const Token& op = next();
      e = binaryNode(op, "or", e, parseAnd());
    }
    return e;
  }

  PyExprPtr parseAnd() {
    PyExprPtr e = parseNot();
    while (atKeyword("and")) {
      const Token& op = next();
      e = binaryNode(op, "and", e, parseNot());
    }
    return e;
  }

  PyExprPtr parseNot() {
    if (!atKeyword("not")) return parseComparison();
    DepthGuard guard(*this);
    auto e = node(PyExprKind::kUnary, next());
    e->text = "not";
    e->items.push_back(parseNot());
    return e;
  }

  PyExprPtr parseComparison() {
    PyExprPtr e = parseArith();
    static const char* const kOps[] = {"<", "<=", ">", ">=", "==", "!="};
    for (const char* op : kOps) {
      if (!atOp(op)) continue;
      const Token& opToken = next();
      e = binaryNode(opToken, op, e, parseArith());
      for (const char* again : kOps)
        if (atOp(again))
          fail(peek(), "chained comparisons are not supported; combine them with 'and'");
      break;
    }
    if (atKeyword("in") || atKeyword("is"))
      fail(peek(), "'" + peek().text + "' comparisons are not supported in TVMScript");
    return e;
  }

  PyExprPtr parseArith() {
    PyExprPtr e = parseTerm();
    while (atOp("+") || atOp("-")) {
      const Token& op = next();
      e = binaryNode(op, op.text, e, parseTerm());
    }
    return e;
  }

  PyExprPtr parseTerm() {
    PyExprPtr e = parseFactor();
    while (atOp("*") || atOp("/") || atOp("//") || atOp("%")) {
      const Token& op = next();
      e = binaryNode(op, op.text, e, parseFactor());
    }
    for (const char* bitwise : {"&", "|", "^", "<<", ">>", "~"})
      if (atOp(bitwise))
        fail(peek(), "operator '" + std::string(bitwise) +
                         "' is not supported; use T.bitwise_and, T.shift_left, ...");
    return e;
  }

  PyExprPtr parseFactor() {
    if (!atOp("-") && !atOp("+")) return parsePower();
    DepthGuard guard(*this);
    auto e = node(PyExprKind::kUnary, peek());
    e->text = next().text;
    e->items.push_back(parseFactor());
    return e;
  }

  PyExprPtr parsePower() {
    PyExprPtr e = parsePrimary();
    if (!atOp("**")) return e;
    const Token& op = next();
    DepthGuard guard(*this);
    return binaryNode(op, "**", e, parseFactor());
  }

  PyExprPtr parsePrimary() {
    PyExprPtr e = parseAtom();
    while (true) {
      const Token& t = peek();
      if (acceptOp(".")) {
        auto a = node(PyExprKind::kAttribute, t);
        a->span = e->span;
        a->base = e;
        a->text = expectName("an attribute name");
        e = a;
        continue;
      }
      if (acceptOp("(")) {
        e = parseCallArgs(e, t);
        continue;
      }
      if (acceptOp("[")) {
        e = parseSubscript(e, t);
        continue;
      }
      return e;
    }
  }

  PyExprPtr parseCallArgs(PyExprPtr callee, const Token& open) {
    DepthGuard guard(*this);
    auto call = node(PyExprKind::kCall, open);
    call->span = callee->span;
    call->base = std::move(callee);
    while (!atOp(")")) {
      if (atOp("*") || atOp("**")) fail(peek(), "argument unpacking is not supported in TVMScript");
      if (at(TokenKind::kName) && atOp("=", 1)) {
        const Token& key = next();
        next();
        for (const auto& kw : call->kwargs)
          if (kw.first == key.text) fail(key, "keyword argument '" + key.text + "' repeated");
        call->kwargs.emplace_back(key.text, parseTest());
      } else {
        if (!call->kwargs.empty()) fail(peek(), "positional argument follows keyword argument");
        call->items.push_back(parseTest());
      }
      if (!acceptOp(",")) break;
    }
    expectOp(")");
    return call;
  }

  PyExprPtr parseSliceItem() {
    const Token& start = peek();
    PyExprPtr lo;
    if (!atOp(":")) {
      lo = parseTest();
      if (!atOp(":")) return lo;
    }
    auto slice = node(PyExprKind::kSlice, start);
    next();  // ':'
    PyExprPtr hi, step;
    if (!atOp(",") && !atOp("]") && !atOp(":")) hi = parseTest();
    if (acceptOp(":") && !atOp(",") && !atOp("]")) step = parseTest();
    slice->items = {lo, hi, step};
    return slice;
  }

  PyExprPtr parseSubscript(PyExprPtr base, const Token& open) {
    DepthGuard guard(*this);
    auto sub = node(PyExprKind::kSubscript, open);
    sub->span = base->span;
    sub->base = std::move(base);
    while (!atOp("]")) {
      sub->items.push_back(parseSliceItem());
      if (!acceptOp(",")) break;
    }
    expectOp("]");
    return sub;
  }

  PyExprPtr parseAtom() {
    const Token& t = peek();
    switch (t.kind) {
      case TokenKind::kInt: {
        auto e = node(PyExprKind::kInt, next());
        e->intValue = t.intValue;
        return e;
      }
      case TokenKind::kFloat: {
        auto e = node(PyExprKind::kFloat, next());
        e->floatValue = t.floatValue;
        e->text = t.text;
        return e;
      }
      case TokenKind::kString: {
        auto e = node(PyExprKind::kString, next());
        e->text = t.text;
        // Adjacent literals concatenate, as in Python.
        while (at(TokenKind::kString)) e->text += next().text;
        return e;
      }
      case TokenKind::kName:
        return parseNameAtom();
      case TokenKind::kOp:
        if (t.text == "(" || t.text == "[" || t.text == "{") return parseBracketed();
        break;
      default:
        break;
    }
    fail(t, "expected an expression but found " + describe(t));
  }

  PyExprPtr parseNameAtom() {
    const Token& t = next();
    if (t.text == "True" || t.text == "False") {
      auto e = node(PyExprKind::kBool, t);
      e->intValue = t.text == "True";
      return e;
    }
    if (t.text == "None") return node(PyExprKind::kNone, t);
    if (keywords().count(t.text))
      fail(t, "expected an expression but found keyword '" + t.text + "'");
    auto e = node(PyExprKind::kName, t);
    e->text = t.text;
    return e;
  }

  PyExprPtr parseBracketed() {
    DepthGuard guard(*this);
    const Token& open = next();
    if (open.text == "{") {
      auto dict = node(PyExprKind::kDict, open);
      while (!atOp("}")) {
        dict->items.push_back(parseTest());
        expectOp(":");
        dict->items.push_back(parseTest());
        if (!acceptOp(",")) break;
      }
      expectOp("}");
      return dict;
    }
    bool isList = open.text == "[";
    const char* close = isList ? "]" : ")";
    auto seq = node(isList ? PyExprKind::kList : PyExprKind::kTuple, open);
    seq->parenthesized = true;
    bool sawComma = false;
    while (!atOp(close)) {
      seq->items.push_back(parseTest());
      if (!acceptOp(",")) break;
      sawComma = true;
    }
    expectOp(close);
    // `(x)` is x itself; `(x,)` and `()` are tuples.
    if (!isList && seq->items.size() == 1 && !sawComma) return seq->items[0];
    return seq;
  }
};

}  // namespace

std::vector<PyStmtPtr> parsePython(std::string_view text, const std::string& sourceName) {
  return Parser(text, sourceName).parseModule();
}

}  // namespace tessera::tir::script
