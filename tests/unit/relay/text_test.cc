// Unit tests of the Relay text format: lexer, parser, printer, metadata section, round trips, and
// syntax errors located at line:column. Golden files from the seeds are in tests/golden/.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "test_util.h"
#include "relay/builder.h"
#include "relay/structural_equal.h"
#include "relay/text/generic_attrs.h"
#include "relay/text/lexer.h"
#include "relay/text/parser.h"
#include "relay/text/printer.h"
#include "relay/type_infer.h"
#include "support/check.h"
#include "support/diagnostic.h"

namespace tessera::relay {
namespace {

using text::TokenKind;

std::vector<text::Token> tokens(const std::string& s) {
  return text::lex(s, std::make_shared<const std::string>("t")).tokens;
}

Diagnostic moduleError(const std::string& text) {
  try {
    parseModule(text, "bad.relay");
  } catch (const DiagnosticError& e) {
    return e.diagnostic();
  }
  ADD_FAILURE() << "expected a diagnostic for:\n" << text;
  return {};
}

Diagnostic exprError(const std::string& text) {
  try {
    parseExpr(text, "bad.relay");
  } catch (const DiagnosticError& e) {
    return e.diagnostic();
  }
  ADD_FAILURE() << "expected a diagnostic for:\n" << text;
  return {};
}

// "line:col message" of a diagnostic, for compact assertions.
std::string where(const Diagnostic& d) {
  return std::to_string(d.span.line) + ":" + std::to_string(d.span.column) + " " + d.message;
}

// --- lexer ---------------------------------------------------------------------------------------

TEST(TextLexer, NumbersFollowTheSuffixRules) {
  auto t = tokens("16f 0.0625f 1e-05f -127f 0i64 3f64 7i16 2f16 --10 inff -inff 99999999999");
  ASSERT_EQ(t.size(), 13u);
  EXPECT_EQ(t[0].kind, TokenKind::kFloat);
  EXPECT_EQ(t[0].floatValue, 16);
  EXPECT_EQ(t[1].floatValue, 0.0625);
  EXPECT_EQ(t[2].floatValue, 1e-05);
  EXPECT_EQ(t[3].floatValue, -127);
  EXPECT_EQ(t[3].dtype, DataType::float32());
  EXPECT_EQ(t[4].kind, TokenKind::kInt);
  EXPECT_EQ(t[4].dtype, DataType::int64());
  EXPECT_EQ(t[5].dtype, DataType::float64());
  EXPECT_EQ(t[6].dtype, DataType::int16());
  EXPECT_EQ(t[7].dtype, DataType::float16());
  EXPECT_EQ(t[8].intValue, 10);  // an even run of '-' cancels
  EXPECT_TRUE(std::isinf(t[9].floatValue) && t[9].floatValue > 0);
  EXPECT_TRUE(std::isinf(t[10].floatValue) && t[10].floatValue < 0);
  EXPECT_EQ(t[11].dtype, DataType::int64());  // unsuffixed integers widen silently
}

TEST(TextLexer, BadNumbersAreLocated) {
  auto fails = [](const std::string& s, const std::string& fragment) {
    try {
      tokens(s);
      ADD_FAILURE() << s;
    } catch (const DiagnosticError& e) {
      EXPECT_EQ(e.diagnostic().code, "parse");
      EXPECT_NE(e.diagnostic().message.find(fragment), std::string::npos) << e.what();
      EXPECT_EQ(e.diagnostic().span.column, 3) << e.what();
    }
  };
  fails("  1.5", "needs the 'f' suffix");
  fails("  99999999999i32", "does not fit in int32");
  fails("  70000i16", "does not fit in int16");
  fails("  1e400f", "out of range");
  fails("  1e39f", "does not fit in float32");
  fails("  12abc", "invalid number suffix");
  fails("  99999999999999999999", "does not fit in int64");
}

TEST(TextLexer, PunctuationVariablesAndMeta) {
  auto t = tokens("%x %12 @main -> - <= == != meta[relay.Constant][3] %x.0.1");
  EXPECT_EQ(t[0].kind, TokenKind::kLocal);
  EXPECT_EQ(t[0].text, "x");
  EXPECT_EQ(t[1].kind, TokenKind::kGraph);
  EXPECT_EQ(t[1].intValue, 12);
  EXPECT_EQ(t[2].kind, TokenKind::kGlobal);
  EXPECT_EQ(t[3].kind, TokenKind::kArrow);
  EXPECT_EQ(t[4].kind, TokenKind::kMinus);
  EXPECT_EQ(t[5].kind, TokenKind::kLessEqual);
  EXPECT_EQ(t[6].kind, TokenKind::kEqualEqual);
  EXPECT_EQ(t[7].kind, TokenKind::kNotEqual);
  EXPECT_EQ(t[8].kind, TokenKind::kMeta);
  EXPECT_EQ(t[8].text, "relay.Constant");
  EXPECT_EQ(t[8].intValue, 3);
  // After '.', digits are a tuple index, never the start of a float.
  EXPECT_EQ(t[10].kind, TokenKind::kDot);
  EXPECT_EQ(t[11].kind, TokenKind::kInt);
  EXPECT_EQ(t[13].kind, TokenKind::kInt);
}

TEST(TextLexer, CommentsNestAndAreKeptAfterTheirToken) {
  const auto result = text::lex("a /* one /* nested */ still */ /* ty=int8 */ b // line\nc",
                                std::make_shared<const std::string>("t"));
  ASSERT_EQ(result.tokens.size(), 4u);
  ASSERT_EQ(result.commentsAfter.count(0), 1u);
  ASSERT_EQ(result.commentsAfter.at(0).size(), 2u);
  EXPECT_EQ(result.commentsAfter.at(0)[1].body, " ty=int8 ");
  EXPECT_EQ(result.tokens[2].line, 2);
}

TEST(TextLexer, LexicalErrorsHaveLineAndColumn) {
  auto at = [](const std::string& s) {
    try {
      tokens(s);
    } catch (const DiagnosticError& e) {
      return where(e.diagnostic());
    }
    return std::string("no error");
  };
  EXPECT_EQ(at("a\n  /* open"), "2:3 unterminated comment: expected '*/' but found end of input");
  EXPECT_EQ(at("\n\"abc"), "2:1 unterminated string: expected '\"' but found end of input");
  EXPECT_EQ(at("a $"), "1:3 unexpected character '$'");
  EXPECT_EQ(at("a\r b"), "1:2 expected '\\n' after '\\r'");
  EXPECT_EQ(at("\xff"), "1:1 unexpected byte 0xff");
  EXPECT_EQ(at("% x"), "1:1 expected a variable name after '%'");
  EXPECT_EQ(at("meta[relay.Constant]"),
            "1:1 malformed meta reference: expected meta[TYPE_KEY][INDEX]");
}

// --- parser: expressions -------------------------------------------------------------------------

TEST(TextParser, InfixOperatorsFollowThePrecedenceTable) {
  // 1 * 1 + 1 < 1 == 1  is  (((1 * 1) + 1) < 1) == 1
  Expr parsed = parseExpr("1 * 1 + 1 < 1 == 1");
  auto one = [] { return scalar(1, DataType::int32()); };
  Expr expected = callOp(
      "equal",
      {callOp("less", {callOp("add", {callOp("multiply", {one(), one()}), one()}), one()}), one()});
  EXPECT_TRUE(structuralEqual(parsed, expected)) << explainDifference(parsed, expected);
  PrintOptions o;
  o.types = false;
  EXPECT_EQ(printExpr(parseExpr("free_var %a: int32; free_var %b: int32; free_var %c: int32;"
                                "%a - %b * %c - %a / %b != %c"),
                      o),
            // A free variable is declared where it is first printed, as in TVM.
            "free_var %b: int32;\nfree_var %c: int32;\nfree_var %a: int32;\n"
            "%0 = multiply(%b, %c);\n%1 = subtract(%a, %0);\n%2 = divide(%a, %b);\n"
            "%3 = subtract(%1, %2);\nnot_equal(%3, %c)");
}

TEST(TextParser, LiteralsBecomeScalarConstants) {
  auto value = [](const std::string& s) { return exprAs<ConstantNode>(parseExpr(s))->data; };
  EXPECT_EQ(value("16f").getFloat(0), 16);
  EXPECT_EQ(value("0i64").dtype(), DataType::int64());
  EXPECT_EQ(value("True").dtype(), DataType::boolType());
  EXPECT_EQ(value("True").getInt(0), 1);
  EXPECT_EQ(value("-127f").getFloat(0), -127);
  EXPECT_EQ(value("3f64").dtype(), DataType::float64());
}

TEST(TextParser, GraphBindingsShareNodesAndLetsScope) {
  Function fn = exprAs<FunctionNode>(parseExpr(
      "fn (%x: Tensor[(2), float32]) { %0 = negative(%x); %1 = add(%0, %0); let %y = %1; %y }"));
  ASSERT_TRUE(fn);
  const auto* let = fn->body->as<LetNode>();
  ASSERT_TRUE(let);
  const auto* add = let->value->as<CallNode>();
  ASSERT_TRUE(add);
  EXPECT_EQ(add->args[0], add->args[1]);  // %0 is one node, used twice
  EXPECT_EQ(let->body, let->var);
  EXPECT_EQ(exprError("fn (%x: float32) { let %y = %y; %y }").code, "undefined");
}

TEST(TextParser, TuplesProjectionsIfAndSequencing) {
  Expr e = parseExpr(
      "free_var %c: bool; free_var %t: (float32, float32);"
      "if (%c) { (%t.0,) } else { ((), %t.1).1; (%t.1,) }");
  const auto* ifNode = e->as<IfNode>();
  ASSERT_TRUE(ifNode);
  EXPECT_EQ(ifNode->thenBranch->as<TupleNode>()->fields.size(), 1u);
  const auto* seq = ifNode->elseBranch->as<LetNode>();
  ASSERT_TRUE(seq);  // `e1; e2` is a let of an unused variable
  EXPECT_EQ(seq->var->nameHint, "");
  EXPECT_EQ(seq->value->as<TupleGetItemNode>()->index, 1);
  EXPECT_TRUE(e->as<IfNode>()->cond->as<VarNode>());
}

TEST(TextParser, TypesIncludingTupleFunctionIncompleteAndSymbolicDims) {
  Function fn = exprAs<FunctionNode>(parseExpr(
      "fn (%a: Tensor[(1, ?, n), int8], %b: (float32,), %c: (float32), %d: fn (int32) -> bool,"
      " %e: _, %f: Tensor[(16), float32], %g: Tensor[(1, n), int8]) { %a }"));
  ASSERT_TRUE(fn);
  EXPECT_EQ(typeToString(fn->params[0]->typeAnnotation), "Tensor[(1, ?, n), int8]");
  EXPECT_EQ(typeToString(fn->params[1]->typeAnnotation), "(float32,)");
  EXPECT_EQ(typeToString(fn->params[2]->typeAnnotation), "float32");
  EXPECT_EQ(typeToString(fn->params[3]->typeAnnotation), "fn (int32) -> bool");
  EXPECT_EQ(typeToString(fn->params[4]->typeAnnotation), "_");
  EXPECT_EQ(typeToString(fn->params[5]->typeAnnotation), "Tensor[(16), float32]");
  // The same dimension name is the same symbolic size.
  const auto* a = fn->params[0]->typeAnnotation->as<TensorTypeNode>();
  const auto* g = fn->params[6]->typeAnnotation->as<TensorTypeNode>();
  EXPECT_EQ(a->shape[2].symVar(), g->shape[1].symVar());
}

TEST(TextParser, CallAttributesBecomeTypedAttrs) {
  Expr e = parseExpr(
      "free_var %x: Tensor[(1, 3, 8, 8), float32]; free_var %w: Tensor[(4, 3, 3, 3), float32];"
      "nn.conv2d(%x, %w, padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3])");
  const auto* call = e->as<CallNode>();
  ASSERT_TRUE(call && call->attrs);
  EXPECT_EQ(std::string(call->attrs->typeKey()), "relay.attrs.Conv2DAttrs");
  EXPECT_EQ(call->attrs->nonDefaultString(),
            "padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3]");
  // No attrs written: the op's defaults, as makeCall attaches them.
  const auto* relu = parseExpr("free_var %x: float32; nn.relu(%x)")->as<CallNode>();
  ASSERT_TRUE(relu);
}

TEST(TextParser, FunctionAttributesKeepOrderAndNest) {
  Function fn = exprAs<FunctionNode>(
      parseExpr("fn (%x: float32, Primitive=1, relay.reshape_only=1, Composite=\"vta\","
                " ConvAttrs={padding=[1, 1, 1, 1], out_dtype=\"int32\"}) { %x }"));
  ASSERT_TRUE(fn);
  const auto& entries = fn->attrs.entries();
  ASSERT_EQ(entries.size(), 4u);
  EXPECT_EQ(entries[1].first, "relay.reshape_only");
  EXPECT_EQ(entries[2].second.asString(), "vta");
  ASSERT_EQ(entries[3].second.kind(), AttrValue::Kind::kAttrs);
  EXPECT_EQ(std::string(entries[3].second.asAttrs()->typeKey()), GenericAttrs::kTypeKey);
  EXPECT_EQ(entries[3].second.str(), "{padding=[1, 1, 1, 1], out_dtype=\"int32\"}");
  // With a registered attrs_type_key the nested value is typed.
  Function typed = exprAs<FunctionNode>(parseExpr(
      "fn (%x: float32, A={channels=4, attrs_type_key=\"relay.attrs.Conv2DAttrs\"}) { %x }"));
  EXPECT_EQ(std::string(typed->attrs.entries()[0].second.asAttrs()->typeKey()),
            "relay.attrs.Conv2DAttrs");
}

// --- parser: meta constants ----------------------------------------------------------------------

TEST(TextParser, MetaConstantTypeComesFromTheAnnotationWithoutMetadata) {
  Function fn = exprAs<FunctionNode>(parseExpr(
      "fn (%x: Tensor[(1, 4), float32]) {\n"
      "  %0 = add(%x, meta[relay.Constant][0] /* ty=Tensor[(1, 4), float32] */ /* ty=x */);\n"
      "  multiply(%0, meta[relay.Constant][0] /* ty=Tensor[(1, 4), float32] span=a:0:0 */)\n}"));
  ASSERT_TRUE(fn);
  const auto* mul = fn->body->as<CallNode>();
  const auto* add = mul->args[0]->as<CallNode>();
  EXPECT_EQ(add->args[1], mul->args[1]);  // one node per meta index
  const auto* c = add->args[1]->as<ConstantNode>();
  EXPECT_FALSE(c->hasData());
  EXPECT_EQ(typeToString(c->declaredType), "Tensor[(1, 4), float32]");
  EXPECT_EQ(c->span.line, 2);
  EXPECT_EQ(exprError("meta[relay.Constant][0]").code, "metadata");
  EXPECT_NE(exprError("meta[relay.Constant][0] /* ty=(int8,) */").message.find("tensor type"),
            std::string::npos);
  EXPECT_NE(exprError("meta[relay.Constant][0] /* ty=Tensor[(n), int8] */").message.find("static"),
            std::string::npos);
  EXPECT_EQ(where(exprError("meta[relay.Constant][0] /* ty=Tensor[(1), floaty] */")),
            "1:43 unknown type 'floaty'");
  EXPECT_NE(exprError("meta[relay.Attrs][0]").message.find("only relay.Constant"),
            std::string::npos);
}

TEST(TextParser, AcceptsTvm06HeaderAndOmittedMetadataComment) {
  IRModule m = parseModule(
      "v0.0.4\ndef @main(%x: Tensor[(2), float32]) -> Tensor[(2), float32] {\n"
      "  add(%x, meta[relay.Constant][0] /* ty=Tensor[(2), float32] */ /* ty=Tensor[(2), float32] "
      "*/)\n}\n// meta data omitted. you can use show_meta_data=True to include meta data");
  EXPECT_TRUE(m.has("main"));
  EXPECT_EQ(where(moduleError("#[version = \"0.0.4\"]\n")),
            "1:13 unsupported version \"0.0.4\" (expected \"0.0.5\")");
}

// --- parser: errors ------------------------------------------------------------------------------

TEST(TextParser, SyntaxErrorsSayWhatWasExpectedAndWhere) {
  EXPECT_EQ(where(moduleError("def @main(%x: float32) {\n  negative(%x\n}")),
            "3:1 expected ')' or ',' but found '}'");
  EXPECT_EQ(where(moduleError("def main() { 1 }")),
            "1:5 expected a global name like @main but found 'main'");
  EXPECT_EQ(where(moduleError("def @main(%x: float32) {\n  %x;\n}")),
            "3:1 expected an expression but found '}'");
  EXPECT_EQ(where(moduleError("def @main(%x: Tensor[(1, 2) float32]) { %x }")),
            "1:29 expected ',' but found 'float32'");
  EXPECT_EQ(where(moduleError("fn () { 1 }")), "1:1 expected 'def' or end of input but found 'fn'");
  EXPECT_EQ(where(moduleError("def @f() { %0 = 1; %0 = 2; %0 }")),
            "1:20 graph binding %0 is defined twice");
  EXPECT_EQ(where(moduleError("def @f(%x: float32, %x: float32) { %x }")),
            "1:21 parameter %x is declared twice");
  EXPECT_EQ(where(moduleError("def @f(%x: float32) { negative(%x, 1, a=1, %x) }")),
            "1:44 expected an attribute (key=value; arguments come before attributes) but found "
            "variable %x");
}

TEST(TextParser, SemanticErrorsHaveStableCodes) {
  Diagnostic op = moduleError("def @f(%x: float32) {\n  nn.relux(%x)\n}");
  EXPECT_EQ(op.code, "unknown_op");
  EXPECT_EQ(where(op), "2:3 unknown operator 'nn.relux'");
  Diagnostic dup = moduleError("def @f() { 1 }\ndef @f() { 2 }");
  EXPECT_EQ(dup.code, "duplicate_definition");
  EXPECT_EQ(dup.span.line, 2);
  Diagnostic global = moduleError("def @f() { @g(1) }");
  EXPECT_EQ(global.code, "undefined");
  EXPECT_EQ(where(global), "1:12 undefined global @g: no definition has this name");
  Diagnostic noAttrs = moduleError("def @f(%x: float32) { negative(%x, axis=1) }");
  EXPECT_EQ(noAttrs.code, "bad_attrs");
  EXPECT_EQ(where(noAttrs), "1:36 negative takes no attributes but found 'axis'");
  Diagnostic badValue = moduleError("def @f(%x: float32) { cast(%x, dtype=3) }");
  EXPECT_EQ(badValue.code, "bad_attrs");
  EXPECT_EQ(badValue.span.column, 32);
  Diagnostic missing = moduleError("def @f(%x: float32) { clip(%x, a_min=1f) }");
  EXPECT_NE(missing.message.find("a_max"), std::string::npos);
  EXPECT_EQ(missing.span.column, 23);  // the call: the missing key has no position
}

TEST(TextParser, NestingIsCappedWithADiagnostic) {
  for (const char* open : {"(", "{", "negative(", "fn () { "}) {
    std::string deep;
    for (int i = 0; i < 2000; ++i) deep += open;
    Diagnostic d = exprError(deep);
    EXPECT_EQ(d.code, "parse");
    EXPECT_NE(d.message.find("deeper than 500"), std::string::npos) << d.message;
  }
  std::string deepType = "fn (%x: " + std::string(2000, '(') + ") { %x }";
  EXPECT_NE(exprError(deepType).message.find("deeper than 500"), std::string::npos);
  std::string deepAttr = "fn (%x: float32, a=" + std::string(2000, '[') + ") { %x }";
  EXPECT_NE(exprError(deepAttr).message.find("deeper than 500"), std::string::npos);
  // Attribute lists are bounded too (their duplicate checks are linear per entry).
  std::string manyAttrs = "fn (%x: float32";
  for (int i = 0; i < 1001; ++i) manyAttrs += ", a" + std::to_string(i) + "=1";
  EXPECT_EQ(exprError(manyAttrs + ") { %x }").message, "too many attributes");
}

// Any byte sequence parses or gives a DiagnosticError: mutations and truncations of a valid
// module never crash, hang, or fail an internal check.
TEST(TextParser, MutatedAndTruncatedInputNeverCrashes) {
  const std::string valid =
      "#[version = \"0.0.5\"]\n"
      "def @main(%x: Tensor[(1, 4), float32], %c: bool) -> Tensor[(1, 4), float32] {\n"
      "  %0 = add(%x, 1f /* ty=float32 */);\n  %1 = (%0, %x);\n  let %y = %1.0;\n"
      "  if (%c) { nn.relu(%y) } else { clip(%y, a_min=-1f, a_max=1f) }\n}\n";
  auto survives = [](const std::string& text) {
    try {
      IRModule m = parseModule(text, "fuzz");
      parseModule(printRoundTrip(m), "fuzz-roundtrip");
    } catch (const DiagnosticError&) {
    }
  };
  for (size_t n = 0; n <= valid.size(); ++n) survives(valid.substr(0, n));
  std::mt19937 rng(7);
  const std::string alphabet = "(){}[],.;:=%@-+*/<>!?#\"0123456789fi_ae\n \x01\xff";
  for (int round = 0; round < 2000; ++round) {
    std::string text = valid;
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int k = 0; k < edits; ++k) {
      const size_t pos = rng() % text.size();
      const char c = alphabet[rng() % alphabet.size()];
      switch (rng() % 3) {
        case 0:
          text[pos] = c;
          break;
        case 1:
          text.insert(text.begin() + static_cast<std::ptrdiff_t>(pos), c);
          break;
        default:
          text.erase(pos, 1);
      }
    }
    ASSERT_NO_THROW(survives(text)) << text;
  }
}

// --- printer -------------------------------------------------------------------------------------

TEST(TextPrinter, ScalarConstantsPrintAsLiterals) {
  auto print = [](NDArray v, bool exact = false) {
    PrintOptions o;
    o.types = false;
    o.metadata = exact;
    return printExpr(constant(std::move(v)), o);
  };
  EXPECT_EQ(print(NDArray::scalarInt(0, DataType::int32())), "0");
  EXPECT_EQ(print(NDArray::scalarInt(0, DataType::int64())), "0i64");
  EXPECT_EQ(print(NDArray::scalarInt(-3, DataType::int16())), "-3i16");
  EXPECT_EQ(print(NDArray::scalar(16, DataType::float32())), "16f");
  EXPECT_EQ(print(NDArray::scalar(1e-5, DataType::float32())), "1e-05f");
  EXPECT_EQ(print(NDArray::scalar(0.0625, DataType::float32())), "0.0625f");
  EXPECT_EQ(print(NDArray::scalar(2147483647.0, DataType::float32())), "2.14748e+09f");
  EXPECT_EQ(print(NDArray::scalar(1.5, DataType::float16())), "1.5f16");
  EXPECT_EQ(print(NDArray::scalar(3, DataType::float64())), "3f64");
  EXPECT_EQ(print(NDArray::scalarInt(1, DataType::boolType())), "True");
  EXPECT_EQ(print(NDArray::scalar(INFINITY, DataType::float32())), "inff");
  EXPECT_EQ(print(NDArray::scalar(NAN, DataType::float32())), "nanf");
  EXPECT_EQ(print(NDArray::scalarInt(1, DataType::int8())), "meta[relay.Constant][0]");
  // The round-trip form adds digits only where six are not enough; a NaN goes to the metadata.
  EXPECT_EQ(print(NDArray::scalar(77.49884, DataType::float32()), true), "77.49884f");
  EXPECT_EQ(print(NDArray::scalar(16, DataType::float32()), true), "16f");
  EXPECT_EQ(print(NDArray::scalar(NAN, DataType::float32()), true).substr(0, 23),
            "meta[relay.Constant][0]");
}

TEST(TextPrinter, NamesAreUniquedAcrossThePrintJob) {
  IRModule m;
  auto fn = [](const std::vector<std::string>& names) {
    std::vector<Var> params;
    for (const std::string& n : names) params.push_back(var(n, {2}));
    return makeFunction(params, params.front());
  };
  m.add("a", fn({"p0", "p0"}));
  m.add("b", fn({"p0", "p01", "0x", ""}));
  PrintOptions o;
  o.types = false;
  EXPECT_EQ(printModule(m, o),
            "def @a(%p0: Tensor[(2), float32], %p01: Tensor[(2), float32]) {\n  %p0\n}\n\n"
            "def @b(%p02: Tensor[(2), float32], %p011: Tensor[(2), float32], %v0x: Tensor[(2), "
            "float32], %v: Tensor[(2), float32]) {\n  %p02\n}\n");
}

TEST(TextPrinter, NumbersPostOrderCalleeFirstAndSharesTheCounter) {
  // main = fn2(fn1(%x)): the last function's body is numbered first (spec §2.4).
  Var x = var("x", {2});
  Var p = var("p0", {2});
  Var q = var("p0", {2});
  DictAttrs primitive;
  primitive.set("Primitive", AttrValue::integer(1));
  Function f1 =
      makeFunction({p}, callOp("negative", {callOp("negative", {p})}), nullptr, primitive);
  Function f2 = makeFunction({q}, callOp("nn.relu", {callOp("negative", {q})}), nullptr, primitive);
  Function main = makeFunction({x}, makeCall(f2, {makeCall(f1, {x})}));
  PrintOptions o;
  o.types = false;
  EXPECT_EQ(printExpr(main, o),
            "fn (%x: Tensor[(2), float32]) {\n"
            "  %2 = fn (%p01: Tensor[(2), float32], Primitive=1) {\n"
            "    %1 = negative(%p01);\n    negative(%1)\n  };\n"
            "  %3 = %2(%x);\n"
            "  %4 = fn (%p0: Tensor[(2), float32], Primitive=1) {\n"
            "    %0 = negative(%p0);\n    nn.relu(%0)\n  };\n"
            "  %4(%3)\n}");
}

TEST(TextPrinter, TypeCommentsFreeVarsLetsAndIfs) {
  Var x = var("x", {2});
  Var c = var("c", scalarType(DataType::boolType()));
  Var y = makeVar("y", nullptr);
  Expr body = makeLet(y, callOp("negative", {callOp("negative", {x})}),
                      makeIf(c, makeTuple({y, x}), makeTuple({x, y})));
  Expr typed = inferExprTypes(makeFunction({x, c}, body));
  EXPECT_EQ(printExpr(typed),
            "fn (%x: Tensor[(2), float32] /* ty=Tensor[(2), float32] */, %c: bool /* ty=bool */) "
            "-> (Tensor[(2), float32], Tensor[(2), float32]) {\n"
            "  %0 = negative(%x) /* ty=Tensor[(2), float32] */;\n"
            "  let %y: Tensor[(2), float32] /* ty=Tensor[(2), float32] */ = negative(%0) /* "
            "ty=Tensor[(2), float32] */;\n"
            "  if (%c) {\n    (%y, %x) /* ty=(Tensor[(2), float32], Tensor[(2), float32]) */\n"
            "  } else {\n    (%x, %y) /* ty=(Tensor[(2), float32], Tensor[(2), float32]) */\n  }\n"
            "} /* ty=fn (Tensor[(2), float32], bool) -> (Tensor[(2), float32], Tensor[(2), "
            "float32]) */");
  PrintOptions o;
  o.types = false;
  EXPECT_EQ(printExpr(callOp("add", {x, scalar(1)}), o),
            "free_var %x: Tensor[(2), float32];\nadd(%x, 1f)");
}

TEST(TextPrinter, AttributesShowNonDefaultsAndSpansShowProvenanceOnly) {
  Var x = makeVar("x", tensorType({1, 4}, DataType::float32()),
                  Span{std::make_shared<const std::string>("aten::x"), 0, 0});
  Expr clip = callOp("clip", {x},
                     {{"a_min", AttrValue::floating(-127)}, {"a_max", AttrValue::floating(127)}});
  Expr e = callOp("cast", {clip}, {{"dtype", AttrValue::string("int8")}});
  PrintOptions o;
  o.types = false;
  EXPECT_EQ(printExpr(e, o),
            "free_var %x: Tensor[(1, 4), float32] /* span=aten::x:0:0 */;\n"
            "%0 = clip(%x, a_min=-127f, a_max=127f);\ncast(%0, dtype=\"int8\")");
  // Positions in a parsed file are kept for diagnostics but not printed unless asked for.
  IRModule m = parseModule("def @main(%x: Tensor[(2), float32]) {\n  negative(%x)\n}", "f.relay");
  EXPECT_EQ(m.main()->body->span.str(), "f.relay:2:3");
  o.spans = true;
  EXPECT_EQ(printModule(m, o),
            "def @main(%x: Tensor[(2), float32]) -> Tensor[(2), float32] {\n"
            "  negative(%x)\n}\n");
  o.textSpans = true;
  EXPECT_NE(printModule(m, o).find("/* span=f.relay:2:3 */"), std::string::npos);
}

}  // namespace
}  // namespace tessera::relay
