// The Relay text parser: definitions, statements and expressions (spec §2.3). Statement sequences
// and infix chains are parsed with loops and explicit stacks, so a 100,000-line body costs no stack
// depth; only true nesting recurses, and that is capped by DepthGuard.
#include "relay/text/parser.h"

#include <set>

#include "relay/op_registry.h"
#include "relay/text/metadata.h"
#include "relay/text/parser_impl.h"
#include "relay/type_infer.h"
#include "support/diagnostic.h"

namespace tessera::relay {

namespace text {

Parser::Parser(std::string_view text, std::shared_ptr<const std::string> source, int line,
               int column)
    : source_(std::move(source)), text_(text), lexed_(lex(text, source_, line, column)) {}

Parser::DepthGuard::DepthGuard(Parser& parser, const Token& at) : parser_(parser) {
  if (++parser_.depth_ > kMaxNestingDepth) {
    --parser_.depth_;
    parser_.fail(at, "nesting is deeper than " + std::to_string(kMaxNestingDepth) + " levels");
  }
}

const Token& Parser::peek(size_t k) const {
  const std::vector<Token>& tokens = lexed_.tokens;
  return tokens[std::min(pos_ + k, tokens.size() - 1)];
}

const Token& Parser::next() {
  const Token& t = peek();
  if (pos_ + 1 < lexed_.tokens.size()) ++pos_;
  return t;
}

bool Parser::atIdent(std::string_view word) const {
  return peek().kind == TokenKind::kIdent && peek().text == word;
}

bool Parser::accept(TokenKind kind) {
  if (!at(kind)) return false;
  next();
  return true;
}

const Token& Parser::expect(TokenKind kind, std::string_view what) {
  if (!at(kind)) failExpected(what.empty() ? std::string_view(tokenKindName(kind)) : what);
  return next();
}

const Token& Parser::expectIdent(std::string_view word) {
  if (!atIdent(word)) failExpected("'" + std::string(word) + "'");
  return next();
}

void Parser::fail(const Token& at, const std::string& message, const std::string& code) const {
  throwDiagnostic(code, message, span(at));
}

void Parser::failExpected(std::string_view what) const {
  fail(peek(), "expected " + std::string(what) + " but found " + describeToken(peek()));
}

// --- module structure ----------------------------------------------------------------------------

void Parser::parseVersion() {
  if (at(TokenKind::kVersion)) {
    const Token& v = next();
    if (v.text != "0.0.4" && v.text != "0.0.5")
      fail(v, "unsupported version 'v" + v.text + "' (expected 0.0.5, or TVM 0.6's v0.0.4)");
    return;
  }
  if (!at(TokenKind::kHash)) return;
  next();
  expect(TokenKind::kLBracket);
  expectIdent("version");
  expect(TokenKind::kEqual);
  const Token& v = expect(TokenKind::kString, "a version string");
  if (v.text != "0.0.5") fail(v, "unsupported version \"" + v.text + "\" (expected \"0.0.5\")");
  expect(TokenKind::kRBracket);
}

// The metadata section comes last in the file but meta references precede it, so it is read
// before parsing starts.
void Parser::parseMetadataSection() {
  const std::vector<Token>& tokens = lexed_.tokens;
  if (tokens.size() < 2 || tokens[tokens.size() - 2].kind != TokenKind::kMetadata) return;
  const Token& section = tokens[tokens.size() - 2];
  hasMetadata_ = true;
  metaConstants_ = decodeMetadata(section.text, span(section));
}

IRModule Parser::parseModule() {
  IRModule module;
  module_ = &module;
  parseMetadataSection();
  parseVersion();
  while (atIdent("def")) parseDefinition(module);
  if (!at(TokenKind::kMetadata) && !at(TokenKind::kEof)) {
    if (atIdent("type") || atIdent("extern"))
      fail(peek(), "type definitions are not supported (only 'def' definitions)");
    failExpected("'def' or end of input");
  }
  for (const Token& ref : globalRefs_)
    if (!module.has(ref.text))
      fail(ref, "undefined global @" + ref.text + ": no definition has this name", "undefined");
  module_ = nullptr;
  return module;
}

Expr Parser::parseStandaloneExpr() {
  parseMetadataSection();
  parseVersion();
  graphScopes_.emplace_back();
  Expr e = parseSequence();
  if (!at(TokenKind::kMetadata) && !at(TokenKind::kEof)) failExpected("end of input");
  return e;
}

void Parser::parseDefinition(IRModule& module) {
  const Token& def = next();
  const Token& name = expect(TokenKind::kGlobal, "a global name like @main");
  if (module.has(name.text))
    fail(name, "duplicate definition of @" + name.text, "duplicate_definition");
  module.globalVar(name.text);  // so recursive references share the GlobalVar
  Function fn = parseFunctionRest(def);
  module.add(name.text, std::move(fn));
}

Function Parser::parseFunctionRest(const Token& start) {
  DepthGuard guard(*this, start);
  if (at(TokenKind::kLBracket)) fail(peek(), "type parameters are not supported");
  expect(TokenKind::kLParen);
  const size_t scope = openScope();
  graphScopes_.emplace_back();
  std::vector<Var> params;
  std::set<std::string> paramNames;
  std::set<std::string> attrKeys;
  DictAttrs attrs;
  while (!at(TokenKind::kRParen)) {
    if (at(TokenKind::kLocal)) {
      const Token& name = next();
      if (!attrs.empty()) fail(name, "parameters must come before the function's attributes");
      if (!paramNames.insert(name.text).second)
        fail(name, "parameter %" + name.text + " is declared twice");
      Type type;
      if (accept(TokenKind::kColon)) type = parseType();
      Var v = makeVar(name.text, type, span(name));
      bind(name.text, v);
      params.push_back(std::move(v));
    } else if (atAttrKey()) {
      const Token& keyToken = peek();
      const std::string key = parseAttrKey();
      expect(TokenKind::kEqual);
      if (!attrKeys.insert(key).second) fail(keyToken, "attribute '" + key + "' is given twice");
      if (attrKeys.size() > kMaxAttributes) fail(keyToken, "too many attributes");
      attrs.set(key, parseAttrValue());
    } else {
      failExpected("a parameter (%name) or an attribute (key=value)");
    }
    if (!accept(TokenKind::kComma)) break;
  }
  expect(TokenKind::kRParen, "')' or ','");
  Type retType;
  if (accept(TokenKind::kArrow)) retType = parseType();
  expect(TokenKind::kLBrace);
  Expr body = parseSequence();
  expect(TokenKind::kRBrace);
  closeScope(scope);
  graphScopes_.pop_back();
  return makeFunction(std::move(params), std::move(body), std::move(retType), std::move(attrs),
                      span(start));
}

// --- statements ----------------------------------------------------------------------------------

Expr Parser::parseSequence() {
  struct PendingLet {
    Var var;
    Expr value;
    Span span;
  };
  std::vector<PendingLet> lets;
  const size_t scope = openScope();
  Expr result;
  while (true) {
    if (at(TokenKind::kGraph) && peek(1).kind == TokenKind::kEqual) {
      const Token& number = next();
      next();
      Expr value = parseBinary();
      expect(TokenKind::kSemicolon);
      if (!graphScopes_.back().emplace(number.intValue, std::move(value)).second)
        fail(number, "graph binding %" + number.text + " is defined twice");
      continue;
    }
    if (atIdent("let")) {
      const Token& let = next();
      const Token& name = expect(TokenKind::kLocal, "a variable name (%x)");
      Type type;
      if (accept(TokenKind::kColon)) type = parseType();
      expect(TokenKind::kEqual);
      // The value is parsed before the variable enters scope: a let is not recursive.
      Expr value = parseBinary();
      expect(TokenKind::kSemicolon);
      Var v = makeVar(name.text, type, span(name));
      bind(name.text, v);
      lets.push_back({std::move(v), std::move(value), span(let)});
      continue;
    }
    if (atIdent("free_var")) {
      next();
      const Token& name = expect(TokenKind::kLocal, "a variable name (%x)");
      Type type;
      if (accept(TokenKind::kColon)) type = parseType();
      expect(TokenKind::kSemicolon);
      bind(name.text, makeVar(name.text, type, span(name)));
      continue;
    }
    const Token& start = peek();
    Expr e = parseBinary();
    if (accept(TokenKind::kSemicolon)) {
      // `e1; e2` evaluates e1 for sequencing: a let whose variable is never used.
      lets.push_back({makeVar("", nullptr, span(start)), std::move(e), span(start)});
      continue;
    }
    result = std::move(e);
    break;
  }
  for (size_t i = lets.size(); i-- > 0;)
    result = makeLet(lets[i].var, lets[i].value, std::move(result), lets[i].span);
  closeScope(scope);
  return result;
}

// --- expressions ---------------------------------------------------------------------------------

namespace {
struct BinaryOp {
  TokenKind token;
  const char* op;
  int precedence;
};
constexpr BinaryOp kBinaryOps[] = {
    {TokenKind::kStar, "multiply", 12},   {TokenKind::kSlash, "divide", 12},
    {TokenKind::kPlus, "add", 10},        {TokenKind::kMinus, "subtract", 10},
    {TokenKind::kLess, "less", 8},        {TokenKind::kLessEqual, "less_equal", 8},
    {TokenKind::kGreater, "greater", 8},  {TokenKind::kGreaterEqual, "greater_equal", 8},
    {TokenKind::kEqualEqual, "equal", 7}, {TokenKind::kNotEqual, "not_equal", 7},
};
const BinaryOp* binaryOpFor(TokenKind kind) {
  for (const BinaryOp& op : kBinaryOps)
    if (op.token == kind) return &op;
  return nullptr;
}
}  // namespace

// Precedence climbing with explicit operand/operator stacks; every operator is left-associative.
Expr Parser::parseBinary() {
  DepthGuard guard(*this, peek());
  std::vector<Expr> operands{parsePostfix()};
  std::vector<std::pair<const BinaryOp*, Token>> ops;
  auto reduce = [&] {
    Expr rhs = std::move(operands.back());
    operands.pop_back();
    Expr lhs = std::move(operands.back());
    operands.pop_back();
    const auto [op, token] = std::move(ops.back());
    ops.pop_back();
    operands.push_back(buildOpCall(op->op, {std::move(lhs), std::move(rhs)}, token));
  };
  while (const BinaryOp* op = binaryOpFor(peek().kind)) {
    Token token = next();
    while (!ops.empty() && ops.back().first->precedence >= op->precedence) reduce();
    ops.emplace_back(op, std::move(token));
    operands.push_back(parsePostfix());
  }
  while (!ops.empty()) reduce();
  return operands.back();
}

// A call's span is the first token of its callee (`nn.conv2d`), which is where type errors about
// the call point.
Expr Parser::parsePostfix() {
  const Token start = peek();
  Expr e = parseAtom();
  while (true) {
    if (at(TokenKind::kLParen)) {
      e = parseCallArgs(std::move(e), start);
    } else if (at(TokenKind::kDot) && peek(1).kind == TokenKind::kInt) {
      const Token& dot = next();
      const Token& index = next();
      if (index.intValue < 0 || index.intValue > INT32_MAX)
        fail(index, "tuple index " + index.text + " is out of range");
      e = makeTupleGetItem(std::move(e), static_cast<int>(index.intValue), span(dot));
    } else {
      return e;
    }
  }
}

Expr Parser::parseAtom() {
  const Token& t = peek();
  switch (t.kind) {
    case TokenKind::kInt:
    case TokenKind::kFloat:
      return literal(next());
    case TokenKind::kLocal:
      return lookupLocal(next());
    case TokenKind::kGraph:
      return lookupGraph(next());
    case TokenKind::kGlobal:
      return globalRef(next());
    case TokenKind::kMeta: {
      const size_t index = pos_;
      next();
      return metaConstant(index);
    }
    case TokenKind::kLParen:
      return parseParenthesized();
    case TokenKind::kLBrace:
      return parseBlock();
    case TokenKind::kIdent:
      // Keywords first; any other name is an operator (a dotted name like nn.conv2d).
      if (t.text == "fn") return parseFunctionRest(next());
      if (t.text == "if") return parseIf();
      if (t.text == "True" || t.text == "False") return literal(next());
      if (t.text == "let" || t.text == "free_var" || t.text == "def" || t.text == "else")
        failExpected("an expression");
      return parseOpName();
    default:
      failExpected("an expression");
  }
}

// `(e)`, a tuple, or a parenthesized sequence: the printer writes a let used as a value as
// `(let %x = ...; body)`, so statements are allowed inside parentheses.
Expr Parser::parseParenthesized() {
  const Token open = next();
  if (accept(TokenKind::kRParen)) return makeTuple({}, span(open));
  Expr first = parseSequence();
  if (!at(TokenKind::kComma)) {
    expect(TokenKind::kRParen, "')' or ','");
    return first;
  }
  std::vector<Expr> fields{std::move(first)};
  while (accept(TokenKind::kComma)) {
    if (at(TokenKind::kRParen)) break;
    fields.push_back(parseBinary());
  }
  expect(TokenKind::kRParen, "')' or ','");
  return makeTuple(std::move(fields), span(open));
}

Expr Parser::parseBlock() {
  DepthGuard guard(*this, next());
  Expr e = parseSequence();
  expect(TokenKind::kRBrace);
  return e;
}

Expr Parser::parseIf() {
  const Token ifToken = next();
  DepthGuard guard(*this, ifToken);
  expect(TokenKind::kLParen);
  Expr cond = parseBinary();
  expect(TokenKind::kRParen);
  if (!at(TokenKind::kLBrace)) failExpected("'{'");
  Expr thenBranch = parseBlock();
  expectIdent("else");
  if (!at(TokenKind::kLBrace)) failExpected("'{'");
  Expr elseBranch = parseBlock();
  return makeIf(std::move(cond), std::move(thenBranch), std::move(elseBranch), span(ifToken));
}

Expr Parser::parseOpName() {
  const Token start = next();
  std::string name = start.text;
  while (at(TokenKind::kDot) && peek(1).kind == TokenKind::kIdent) {
    next();
    name += "." + next().text;
  }
  OpDef* def = OpRegistry::global().find(name);
  if (!def) fail(start, "unknown operator '" + name + "'", "unknown_op");
  return def->node;
}

// Positional arguments, then key=value attributes; an attribute is told apart by lookahead (a
// dotted name followed by '='), which no argument expression starts with.
Expr Parser::parseCallArgs(Expr callee, const Token& calleeToken) {
  DepthGuard guard(*this, next());  // '('
  std::vector<Expr> args;
  std::vector<std::pair<std::string, AttrValue>> attrs;
  std::vector<Token> attrTokens;
  while (!at(TokenKind::kRParen)) {
    if (atAttrKey()) {
      if (attrs.size() >= kMaxAttributes) fail(peek(), "too many attributes");
      attrTokens.push_back(peek());
      std::string key = parseAttrKey();
      expect(TokenKind::kEqual);
      attrs.emplace_back(std::move(key), parseAttrValue());
    } else if (!attrs.empty()) {
      failExpected("an attribute (key=value; arguments come before attributes)");
    } else {
      args.push_back(parseBinary());
    }
    if (!accept(TokenKind::kComma)) break;
  }
  expect(TokenKind::kRParen, "')' or ','");
  return buildCall(callee, std::move(args), std::move(attrs), attrTokens, calleeToken);
}

Expr Parser::buildCall(const Expr& callee, std::vector<Expr> args,
                       std::vector<std::pair<std::string, AttrValue>> attrs,
                       const std::vector<Token>& attrTokens, const Token& calleeToken) {
  // `attrs_type_key` names the attribute type explicitly (calls of non-operators, or attrs of a
  // type other than the operator's own).
  std::string typeKey;
  for (size_t i = 0; i < attrs.size(); ++i) {
    if (attrs[i].first != "attrs_type_key") continue;
    if (attrs[i].second.kind() != AttrValue::Kind::kString)
      fail(attrTokens[i], "attrs_type_key must be a string", "bad_attrs");
    typeKey = attrs[i].second.asString();
    attrs.erase(attrs.begin() + static_cast<std::ptrdiff_t>(i));
    break;
  }
  const auto* op = callee->as<OpNode>();
  std::string what = op ? op->name : "the callee";
  if (typeKey.empty() && op) typeKey = op->def->attrs.typeKey;
  if (typeKey.empty()) {
    if (!attrs.empty()) {
      const std::string reason =
          op ? " takes no attributes" : " is not an operator: its attributes need attrs_type_key";
      fail(attrTokens.front(), what + reason + " but found '" + attrs.front().first + "'",
           "bad_attrs");
    }
    return makeCall(callee, std::move(args), nullptr, span(calleeToken));
  }
  std::string error;
  Attrs built = makeAttrs(typeKey, attrs, error);
  if (!built) {
    // Point at the attribute the message names, else at the call.
    Token where = calleeToken;
    for (size_t i = 0; i < attrs.size(); ++i)
      if (error.find("'" + attrs[i].first + "'") != std::string::npos) where = attrTokens[i];
    fail(where, what + ": " + error, "bad_attrs");
  }
  return makeCall(callee, std::move(args), std::move(built), span(calleeToken));
}

Expr Parser::buildOpCall(const std::string& opName, std::vector<Expr> args, const Token& at) {
  OpDef* def = OpRegistry::global().find(opName);
  if (!def) fail(at, "unknown operator '" + opName + "' for " + describeToken(at), "unknown_op");
  return buildCall(def->node, std::move(args), {}, {}, at);
}

Expr Parser::lookupLocal(const Token& token) const {
  auto it = bindings_.find(token.text);
  if (it != bindings_.end() && !it->second.empty()) return it->second.back();
  fail(token, "undefined variable %" + token.text, "undefined");
}

void Parser::bind(const std::string& name, Var var) {
  bindings_[name].push_back(std::move(var));
  bindingLog_.push_back(name);
}

void Parser::closeScope(size_t mark) {
  while (bindingLog_.size() > mark) {
    bindings_[bindingLog_.back()].pop_back();
    bindingLog_.pop_back();
  }
}

// Graph bindings are visible in the whole function, not just the block that defines them: TVM's
// printer may define %N inside one if branch and use it in the other (see the unit tests).
Expr Parser::lookupGraph(const Token& token) const {
  for (size_t i = graphScopes_.size(); i-- > 0;) {
    auto it = graphScopes_[i].find(token.intValue);
    if (it != graphScopes_[i].end()) return it->second;
  }
  fail(token, "undefined graph binding %" + token.text + " (no '%" + token.text + " = ...' before)",
       "undefined");
}

// A definition may call one defined later, so module references are checked after the last one.
Expr Parser::globalRef(const Token& token) {
  if (module_) {
    globalRefs_.push_back(token);
    return module_->globalVar(token.text);
  }
  GlobalVar& g = exprGlobals_[token.text];
  if (!g) g = makeGlobalVar(token.text, span(token));
  return g;
}

}  // namespace text

namespace {
std::shared_ptr<const std::string> sourceNamed(const std::string& name) {
  return std::make_shared<const std::string>(name);
}
}  // namespace

// One line by design: parsing and inference are separate steps that the CLI and tests reuse.
IRModule parseModule(std::string_view text, const std::string& sourceName) {
  IRModule module = text::Parser(text, sourceNamed(sourceName)).parseModule();
  return inferTypes(module);
}

Expr parseExpr(std::string_view text, const std::string& sourceName) {
  return text::Parser(text, sourceNamed(sourceName)).parseStandaloneExpr();
}

}  // namespace tessera::relay
