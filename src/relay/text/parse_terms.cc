// The Relay text parser's terms: types, attribute values, literals and meta constants. A meta
// constant without a metadata section takes its type from the `/* ty=... */` annotation that the
// printer writes right after it (spec §2.6), so printed IR parses back with its types intact.
#include <set>

#include "relay/op_registry.h"
#include "relay/text/generic_attrs.h"
#include "relay/text/parser_impl.h"
#include "support/diagnostic.h"

namespace tessera::relay::text {

// --- types ---------------------------------------------------------------------------------------

Type Parser::parseType() {
  DepthGuard guard(*this, peek());
  const Token& t = peek();
  if (accept(TokenKind::kLParen)) {
    std::vector<Type> fields;
    bool trailingComma = false;
    while (!at(TokenKind::kRParen)) {
      fields.push_back(parseType());
      trailingComma = accept(TokenKind::kComma);
      if (!trailingComma) break;
    }
    expect(TokenKind::kRParen, "')' or ','");
    // `(T)` is T in parentheses; `(T,)` is a 1-tuple.
    if (fields.size() == 1 && !trailingComma) return fields.front();
    return tupleType(std::move(fields));
  }
  if (t.kind != TokenKind::kIdent) failExpected("a type");
  if (t.text == "Tensor") {
    next();
    expect(TokenKind::kLBracket);
    Shape shape = parseShape();
    expect(TokenKind::kComma);
    DataType dtype = parseDType();
    expect(TokenKind::kRBracket);
    return tensorType(std::move(shape), dtype);
  }
  if (t.text == "fn") {
    next();
    expect(TokenKind::kLParen);
    std::vector<Type> args;
    while (!at(TokenKind::kRParen)) {
      args.push_back(parseType());
      if (!accept(TokenKind::kComma)) break;
    }
    expect(TokenKind::kRParen, "')' or ','");
    expect(TokenKind::kArrow);
    Type ret = parseType();
    return funcType(std::move(args), std::move(ret));
  }
  if (t.text == "_") {
    next();
    return incompleteType();
  }
  return scalarType(parseDType());
}

Shape Parser::parseShape() {
  expect(TokenKind::kLParen, "'(' to start a shape");
  Shape shape;
  while (!at(TokenKind::kRParen)) {
    const Token& d = peek();
    if (d.kind == TokenKind::kInt) {
      if (d.intValue < 0) fail(d, "a dimension must not be negative but found " + d.text);
      shape.emplace_back(next().intValue);
    } else if (accept(TokenKind::kQuestion)) {
      shape.push_back(Dim::any());
    } else if (d.kind == TokenKind::kIdent) {
      // A named dimension: the same name means the same symbolic size within one parse.
      SymVar& v = symVars_[d.text];
      if (!v) v = std::make_shared<const SymVarNode>(SymVarNode{d.text});
      shape.push_back(Dim::var(v));
      next();
    } else {
      failExpected("a dimension (an integer, '?' or a name)");
    }
    if (!accept(TokenKind::kComma)) break;
  }
  expect(TokenKind::kRParen, "')' or ','");
  return shape;
}

DataType Parser::parseDType() {
  const Token& t = peek();
  if (t.kind != TokenKind::kIdent) failExpected("a dtype");
  std::optional<DataType> dtype = DataType::parse(t.text);
  if (!dtype || dtype->isVoid()) fail(t, "unknown type '" + t.text + "'");
  next();
  return *dtype;
}

// --- attributes ----------------------------------------------------------------------------------

// An attribute key is a dotted name followed by '=': `padding=`, `relay.reshape_only=`.
bool Parser::atAttrKey() const {
  if (peek().kind != TokenKind::kIdent) return false;
  size_t k = 1;
  while (peek(k).kind == TokenKind::kDot && peek(k + 1).kind == TokenKind::kIdent) k += 2;
  return peek(k).kind == TokenKind::kEqual;
}

std::string Parser::parseAttrKey() {
  std::string key = expect(TokenKind::kIdent, "an attribute name").text;
  while (accept(TokenKind::kDot)) key += "." + expect(TokenKind::kIdent, "a name").text;
  return key;
}

AttrValue Parser::parseAttrValue() {
  DepthGuard guard(*this, peek());
  const Token& t = peek();
  switch (t.kind) {
    case TokenKind::kInt:
      next();
      return AttrValue::integer(t.intValue, t.dtype);
    case TokenKind::kFloat:
      next();
      return AttrValue::floating(t.floatValue, t.dtype);
    case TokenKind::kString:
      next();
      return AttrValue::string(t.text);
    case TokenKind::kIdent:
      if (t.text == "True" || t.text == "False") {
        next();
        return AttrValue::boolean(t.text == "True");
      }
      if (t.text == "None" || t.text == "nullptr") {
        next();
        return AttrValue();
      }
      failExpected("an attribute value");
    case TokenKind::kLBracket:
    case TokenKind::kLParen: {
      const TokenKind close =
          t.kind == TokenKind::kLBracket ? TokenKind::kRBracket : TokenKind::kRParen;
      next();
      std::vector<AttrValue> items;
      bool trailingComma = false;
      while (!at(close)) {
        items.push_back(parseAttrValue());
        trailingComma = accept(TokenKind::kComma);
        if (!trailingComma) break;
      }
      expect(close, close == TokenKind::kRBracket ? "']' or ','" : "')' or ','");
      // `(v)` is a parenthesized value; `(a, b)` and `[...]` are lists.
      if (close == TokenKind::kRParen && items.size() == 1 && !trailingComma) return items[0];
      return AttrValue::array(std::move(items));
    }
    case TokenKind::kLBrace:
      return parseNestedAttrs();
    case TokenKind::kMeta:
      fail(t, "meta references are not supported as attribute values");
    default:
      failExpected("an attribute value");
  }
}

// `{k=v, ...}`: a typed attrs object when `attrs_type_key` names a registered type, otherwise a
// GenericAttrs that keeps the pairs in their written order.
AttrValue Parser::parseNestedAttrs() {
  const Token open = next();
  std::vector<std::pair<std::string, AttrValue>> pairs;
  std::vector<Token> keyTokens;
  std::set<std::string> keys;
  while (!at(TokenKind::kRBrace)) {
    if (!atAttrKey()) failExpected("an attribute (key=value)");
    keyTokens.push_back(peek());
    std::string key = parseAttrKey();
    expect(TokenKind::kEqual);
    if (!keys.insert(key).second) fail(keyTokens.back(), "attribute '" + key + "' is given twice");
    if (keys.size() > kMaxAttributes) fail(keyTokens.back(), "too many attributes");
    pairs.emplace_back(std::move(key), parseAttrValue());
    if (!accept(TokenKind::kComma)) break;
  }
  expect(TokenKind::kRBrace, "'}' or ','");
  std::string typeKey;
  for (size_t i = 0; i < pairs.size(); ++i) {
    if (pairs[i].first != "attrs_type_key") continue;
    if (pairs[i].second.kind() != AttrValue::Kind::kString)
      fail(keyTokens[i], "attrs_type_key must be a string", "bad_attrs");
    typeKey = pairs[i].second.asString();
    pairs.erase(pairs.begin() + static_cast<std::ptrdiff_t>(i));
    break;
  }
  if (typeKey.empty() || typeKey == GenericAttrs::kTypeKey) {
    DictAttrs fields;
    for (auto& [k, v] : pairs) fields.set(k, std::move(v));
    return AttrValue::attrs(std::make_shared<GenericAttrs>(std::move(fields)));
  }
  std::string error;
  OpRegistry::global();  // attrs types are registered with the built-in ops; make sure they exist
  Attrs attrs = makeAttrs(typeKey, pairs, error);
  if (!attrs) fail(open, error, "bad_attrs");
  return AttrValue::attrs(std::move(attrs));
}

// --- literals and meta constants -----------------------------------------------------------------

Expr Parser::literal(const Token& t) const {
  if (t.kind == TokenKind::kInt)
    return makeConstant(NDArray::scalarInt(t.intValue, t.dtype), span(t));
  if (t.kind == TokenKind::kFloat)
    return makeConstant(NDArray::scalar(t.floatValue, t.dtype), span(t));
  return makeConstant(NDArray::scalarInt(t.text == "True" ? 1 : 0, DataType::boolType()), span(t));
}

Expr Parser::metaConstant(size_t tokenIndex) {
  const Token& ref = lexed_.tokens[tokenIndex];
  const std::string name = "meta[" + ref.text + "][" + std::to_string(ref.intValue) + "]";
  if (ref.text != "relay.Constant")
    fail(ref, "unsupported meta reference " + name + ": only relay.Constant is supported");
  if (auto it = metaCache_.find(ref.intValue); it != metaCache_.end()) return it->second;
  Constant c;
  if (hasMetadata_) {
    if (ref.intValue >= static_cast<int64_t>(metaConstants_.size()))
      fail(ref,
           name + " is out of range: the metadata section has " +
               std::to_string(metaConstants_.size()) + " constant(s)",
           "metadata");
    // A fresh node with this reference's location, so errors about the constant point here.
    const Constant& stored = metaConstants_[static_cast<size_t>(ref.intValue)];
    c = stored->hasData() ? makeConstant(stored->data, span(ref))
                          : makeConstantWithoutData(stored->declaredType, span(ref));
  } else {
    c = makeConstantWithoutData(typeFromAnnotation(ref, tokenIndex), span(ref));
  }
  metaCache_[ref.intValue] = c;
  return c;
}

// The type in the first `/* ty=TYPE ... */` comment directly after the meta reference (seed 003
// has two such comments in a row; they agree).
Type Parser::typeFromAnnotation(const Token& ref, size_t tokenIndex) const {
  const std::string name = "meta[" + ref.text + "][" + std::to_string(ref.intValue) + "]";
  auto it = lexed_.commentsAfter.find(tokenIndex);
  if (it != lexed_.commentsAfter.end()) {
    for (const Comment& comment : it->second) {
      const std::string& body = comment.body;
      size_t start = body.find_first_not_of(" \t\n");
      if (start == std::string::npos || body.compare(start, 3, "ty=") != 0) continue;
      start += 3;
      // The type ends where the span (if any) begins.
      const size_t end = body.find(" span=", start);
      const std::string typeText =
          body.substr(start, end == std::string::npos ? std::string::npos : end - start);
      int line = comment.line;
      int column = comment.column;
      for (size_t i = 0; i < start; ++i) {
        if (body[i] == '\n') {
          ++line;
          column = 1;
        } else {
          ++column;
        }
      }
      Type type = Parser(typeText, source_, line, column).parseLeadingType();
      // A constant's shape is concrete: a symbolic or unknown dimension cannot describe one.
      const auto* tensor = type->as<TensorTypeNode>();
      if (!tensor || !staticShape(tensor->shape))
        fail(ref, "the annotation of " + name +
                      " must be a tensor type with a static shape but is " + typeToString(type));
      return type;
    }
  }
  fail(ref,
       "the value of " + name +
           " is unknown: the text has no #[metadata] section and no /* ty=... */ annotation "
           "follows the reference",
       "metadata");
}

Type Parser::parseLeadingType() {
  Type type = parseType();
  if (!at(TokenKind::kEof)) failExpected("the end of the type annotation");
  return type;
}

}  // namespace tessera::relay::text
