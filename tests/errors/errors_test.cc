// Bad input of every kind gives a located diagnostic with a stable code — never a crash.
#include <gtest/gtest.h>

#include "relay/interp/interpreter.h"
#include "relay/text/parser.h"
#include "support/diagnostic.h"

namespace tessera::relay {
namespace {

// Parses `text` expecting a diagnostic; returns it.
Diagnostic parseError(const std::string& text) {
  try {
    parseModule(text, "bad.relay");
  } catch (const DiagnosticError& e) {
    return e.diagnostic();
  }
  ADD_FAILURE() << "expected a diagnostic for:\n" << text;
  return {};
}

TEST(Errors, SyntaxErrorsHaveLineColumnAndExpectation) {
  Diagnostic d = parseError("def @main(%x: Tensor[(1, 2), float32]) {\n  nn.relu(%x\n}\n");
  EXPECT_EQ(d.code, "parse");
  EXPECT_EQ(d.span.line, 3);
  EXPECT_NE(d.message.find("expected"), std::string::npos) << d.str();
  EXPECT_NE(d.str().find("bad.relay:3:"), std::string::npos) << d.str();
}

TEST(Errors, UnknownOpIsNamed) {
  Diagnostic d = parseError("def @main(%x: Tensor[(1, 2), float32]) {\n  nn.relux(%x)\n}\n");
  EXPECT_EQ(d.code, "unknown_op");
  EXPECT_NE(d.str().find("nn.relux"), std::string::npos) << d.str();
  EXPECT_EQ(d.span.line, 2);
}

TEST(Errors, UnknownAttributeAndMissingRequiredAttribute) {
  Diagnostic unknown =
      parseError("def @main(%x: Tensor[(1, 2), float32]) {\n  nn.relu(%x, alpha=1f)\n}\n");
  EXPECT_NE(unknown.str().find("alpha"), std::string::npos) << unknown.str();
  Diagnostic missing =
      parseError("def @main(%x: Tensor[(1, 2), float32]) {\n  clip(%x, a_min=0f)\n}\n");
  EXPECT_NE(missing.str().find("a_max"), std::string::npos) << missing.str();
}

TEST(Errors, UndefinedVariablesAndBindings) {
  Diagnostic var = parseError("def @main(%x: Tensor[(1, 2), float32]) {\n  nn.relu(%y)\n}\n");
  EXPECT_NE(var.str().find("%y"), std::string::npos) << var.str();
  Diagnostic binding = parseError("def @main(%x: Tensor[(1, 2), float32]) {\n  nn.relu(%3)\n}\n");
  EXPECT_NE(binding.str().find("%3"), std::string::npos) << binding.str();
}

TEST(Errors, TypeErrorsNameOpArgumentAndShapes) {
  Diagnostic d = parseError(
      "def @main(%x: Tensor[(1, 3, 8, 8), float32], %w: Tensor[(16, 4, 3, 3), float32]) {\n"
      "  nn.conv2d(%x, %w, padding=[1, 1, 1, 1])\n}\n");
  EXPECT_NE(d.str().find("nn.conv2d"), std::string::npos) << d.str();
  EXPECT_EQ(d.span.line, 2) << d.str();
}

TEST(Errors, BadNumbersAndTypes) {
  parseError("def @main(%x: Tensor[(1, 2), float32]) {\n  add(%x, 1.5)\n}\n");  // float needs f
  parseError("def @main(%x: Tensor[(1, 2), float33]) {\n  %x\n}\n");            // unknown dtype
  parseError("def @main(%x: Tensor[(1, 2), float32]) {\n  add(%x, 99999999999i32)\n}\n");
}

TEST(Errors, DuplicateDefinitionsAndTruncatedInput) {
  parseError("def @f(%x: float32) { %x }\ndef @f(%x: float32) { %x }\n");
  parseError("def @main(%x: Tensor[(1, 2), float32]) {");
  parseError("#[version = \"0.0.5\"]\ndef @main(");
  parseError("/* unterminated comment");
  parseError("def @main() { \"unterminated string }");
}

TEST(Errors, AdversarialNestingIsRejectedNotOverflowed) {
  std::string deep = "def @main(%x: float32) { " + std::string(100000, '(') + "%x" +
                     std::string(100000, ')') + " }";
  Diagnostic d = parseError(deep);
  EXPECT_EQ(d.code, "parse");
}

TEST(Errors, RunningWithoutConstantValuesNamesTheConstant) {
  IRModule m = parseModule(
      "def @main(%x: Tensor[(1, 4), float32]) {\n"
      "  nn.dense(%x, meta[relay.Constant][0] /* ty=Tensor[(2, 4), float32] */, units=2)\n}\n",
      "nometa.relay");
  Interpreter interp(m);
  try {
    interp.run({NDArray::empty({1, 4}, DataType::float32())});
    FAIL() << "expected missing_constant";
  } catch (const DiagnosticError& e) {
    EXPECT_EQ(e.diagnostic().code, "missing_constant");
    EXPECT_EQ(e.diagnostic().span.line, 2) << e.diagnostic().str();
  }
}

}  // namespace
}  // namespace tessera::relay
