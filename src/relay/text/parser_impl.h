// The recursive-descent Relay parser's internals, shared by parser.cc (definitions, statements,
// expressions) and parse_terms.cc (types, attribute values, literals, meta constants). Every
// recursive entry point holds a DepthGuard, so nesting depth is capped whatever the input.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "relay/expr.h"
#include "relay/module.h"
#include "relay/text/lexer.h"

namespace tessera::relay::text {

/// Nesting deeper than this (parentheses, calls, blocks, types, attribute lists) is rejected with a
/// diagnostic instead of risking the stack.
constexpr int kMaxNestingDepth = 500;
/// More entries than this in one attribute list is rejected; duplicate checks and the attribute
/// dictionaries are linear per entry, so the bound keeps hostile input from taking quadratic time.
constexpr size_t kMaxAttributes = 1000;

class Parser {
 public:
  /// Lexes `text`, which starts at `line`:`column` of the source (not 1:1 when `text` is the type
  /// inside a `/* ty=... */` annotation).
  Parser(std::string_view text, std::shared_ptr<const std::string> source, int line = 1,
         int column = 1);

  /// module ::= version? definition* metadata? EOF
  IRModule parseModule();
  /// A bare expression (statements allowed), optionally with a version header and metadata.
  Expr parseStandaloneExpr();
  /// The type at the start of the input (what follows `ty=` in an annotation).
  Type parseLeadingType();

 private:
  // --- token stream ---------------------------------------------------------------------------
  const Token& peek(size_t k = 0) const;
  const Token& next();
  bool at(TokenKind kind) const { return peek().kind == kind; }
  bool atIdent(std::string_view word) const;
  bool accept(TokenKind kind);
  /// Consumes a token of `kind` or fails with "expected WHAT but found ...".
  const Token& expect(TokenKind kind, std::string_view what = {});
  const Token& expectIdent(std::string_view word);
  [[noreturn]] void fail(const Token& at, const std::string& message,
                         const std::string& code = "parse") const;
  [[noreturn]] void failExpected(std::string_view what) const;
  Span span(const Token& token) const { return tokenSpan(token, source_); }

  /// Counts nesting while alive; fails past kMaxNestingDepth.
  class DepthGuard {
   public:
    DepthGuard(Parser& parser, const Token& at);
    ~DepthGuard() { --parser_.depth_; }
    DepthGuard(const DepthGuard&) = delete;
    DepthGuard& operator=(const DepthGuard&) = delete;

   private:
    Parser& parser_;
  };

  // --- definitions and expressions (parser.cc) ------------------------------------------------
  void parseVersion();
  void parseMetadataSection();
  void parseDefinition(IRModule& module);
  /// After `fn` or `def @name`: the parameter list, attributes, return type and body.
  Function parseFunctionRest(const Token& start);
  /// Statements separated by ';' and the final expression (the sequence's value); stops at the
  /// first expression not followed by ';'. Lets become nested Let nodes, built after the loop.
  Expr parseSequence();
  Expr parseBinary();
  Expr parsePostfix();
  Expr parseAtom();
  Expr parseParenthesized();
  Expr parseBlock();
  Expr parseIf();
  Expr parseOpName();
  Expr parseCallArgs(Expr callee, const Token& calleeToken);
  Expr buildCall(const Expr& callee, std::vector<Expr> args,
                 std::vector<std::pair<std::string, AttrValue>> attrs,
                 const std::vector<Token>& attrTokens, const Token& calleeToken);
  Expr buildOpCall(const std::string& opName, std::vector<Expr> args, const Token& at);
  Expr lookupLocal(const Token& token) const;
  void bind(const std::string& name, Var var);
  size_t openScope() const { return bindingLog_.size(); }
  void closeScope(size_t mark);
  Expr lookupGraph(const Token& token) const;
  Expr globalRef(const Token& token);

  // --- terms (parse_terms.cc) -----------------------------------------------------------------
  Type parseType();
  Shape parseShape();
  DataType parseDType();
  bool atAttrKey() const;
  std::string parseAttrKey();
  AttrValue parseAttrValue();
  AttrValue parseNestedAttrs();
  Expr literal(const Token& token) const;
  Expr metaConstant(size_t tokenIndex);
  Type typeFromAnnotation(const Token& ref, size_t tokenIndex) const;

  std::shared_ptr<const std::string> source_;
  std::string_view text_;
  LexResult lexed_;
  size_t pos_ = 0;
  int depth_ = 0;

  IRModule* module_ = nullptr;  ///< the module being parsed (null for a bare expression)
  /// Global references to check once every definition is known (a def may call a later one).
  std::vector<Token> globalRefs_;
  std::map<std::string, GlobalVar> exprGlobals_;  ///< `@f` in a bare expression
  /// Variables in scope: each name's bindings, innermost last. A scope is a mark in the log of
  /// bindings, so lookups cost O(1) however many lets are open.
  std::unordered_map<std::string, std::vector<Var>> bindings_;
  std::vector<std::string> bindingLog_;
  /// `%N = ...` bindings; one table per function, searched innermost first.
  std::vector<std::unordered_map<int64_t, Expr>> graphScopes_;
  std::map<std::string, SymVar> symVars_;  ///< symbolic dims by name
  bool hasMetadata_ = false;
  std::vector<Constant> metaConstants_;
  std::map<int64_t, Constant> metaCache_;  ///< one node per meta index (sharing)
};

}  // namespace tessera::relay::text
