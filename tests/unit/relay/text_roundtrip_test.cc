// Round trips of the Relay text format: the version header, the metadata section holding constant
// values, and text that prints back identically.
#include <gtest/gtest.h>

#include <cmath>

#include "relay/builder.h"
#include "relay/structural_equal.h"
#include "relay/text/parser.h"
#include "relay/text/printer.h"
#include "relay/type_infer.h"
#include "support/diagnostic.h"
#include "test_util.h"

namespace tessera::relay {
namespace {

Diagnostic moduleError(const std::string& text) {
  try {
    parseModule(text, "bad.relay");
  } catch (const DiagnosticError& e) {
    return e.diagnostic();
  }
  ADD_FAILURE() << "expected a diagnostic for:\n" << text;
  return {};
}

// --- header, metadata and round trips ------------------------------------------------------------

// A module with tensor constants, a float that needs more than 6 digits, an escaped string and,
// optionally, a NaN scalar (which only the metadata section can carry).
IRModule moduleWithWeights(bool withNan = true) {
  Var x = var("x", {1, 4});
  NDArray w = test::randomTensor({2, 4}, DataType::float32(), 3);
  NDArray k = test::randomTensor({3}, DataType::int8(), 4, -100, 100);
  Expr dense = callOp("nn.dense", {x, constant(w)}, {{"units", AttrValue::integer(2)}});
  Expr scaled = callOp("multiply", {dense, scalar(0.1)});
  Expr casted = callOp("cast", {constant(k)}, {{"dtype", AttrValue::string("float32")}});
  DictAttrs attrs;
  attrs.set("Composite", AttrValue::string("a\"b"));
  attrs.set("Eps", AttrValue::floating(1.0 / 3));
  std::vector<Expr> fields{scaled, casted};
  if (withNan) fields.push_back(constant(NDArray::scalar(NAN, DataType::float32())));
  return inferTypes(IRModule::fromExpr(makeFunction({x}, makeTuple(fields), nullptr, attrs)));
}

TEST(TextRoundTrip, MetadataSectionRestoresConstantsExactly) {
  IRModule m = moduleWithWeights();
  const std::string text = printRoundTrip(m);
  EXPECT_EQ(text.rfind("#[version = \"0.0.5\"]\n", 0), 0u) << text;
  EXPECT_NE(text.find("\n\n#[metadata]\n{\n  \"format\": \"tessera.relay.metadata\""),
            std::string::npos)
      << text;
  IRModule back = parseModule(text, "rt.relay");
  EXPECT_TRUE(structuralEqual(m, back)) << explainDifference(m.main(), back.main());
  EXPECT_EQ(printRoundTrip(back), text);
}

TEST(TextRoundTrip, AstextWithoutMetadataSaysItWasOmitted) {
  PrintOptions o;
  o.header = true;
  const std::string text = printModule(moduleWithWeights(false), o);
  EXPECT_NE(text.find("\n/* For debugging purposes the metadata section has been omitted."),
            std::string::npos);
  // Without the section the constants come back valueless, typed by their annotations.
  IRModule back = parseModule(text, "nometa.relay");
  EXPECT_EQ(printModule(back, o), text);
  EXPECT_EQ(printModule(moduleWithWeights()).find("#[version"), std::string::npos);
  EXPECT_EQ(printModule(moduleWithWeights()).find("omitted"), std::string::npos);
}

TEST(TextRoundTrip, MalformedMetadataIsLocated) {
  const std::string head =
      "def @main() { meta[relay.Constant][0] /* ty=Tensor[(2), int8] */ }\n#[metadata]\n";
  auto err = [&](const std::string& json) { return moduleError(head + json); };
  Diagnostic syntax = err("{\n  \"relay.Constant\": [,]\n}");
  EXPECT_EQ(syntax.code, "metadata");
  EXPECT_EQ(syntax.span.line, 4);
  EXPECT_NE(err("{\"relay.Constant\": [{\"dtype\": \"int8\", \"shape\": [2], \"data\": \"AAAA\"}]}")
                .message.find("holds 3 bytes but the shape needs 2"),
            std::string::npos);
  EXPECT_NE(err("{\"relay.Constant\": []}").message.find("out of range"), std::string::npos);
  EXPECT_NE(err("{\"x\": 1}").message.find("unknown metadata key"), std::string::npos);
  // Found by fuzzing: nlohmann reports a too-large number with another exception type.
  EXPECT_NE(err("8e8888777").message.find("number overflow"), std::string::npos);
  EXPECT_NE(err(std::string(100, '[')).message.find("nested deeper"), std::string::npos);
  EXPECT_NE(err("{\"relay.Constant\": [{\"dtype\": \"int8\", \"shape\": [4611686018427387904, 4],"
                " \"data\": \"\"}]}")
                .message.find("shape needs more"),
            std::string::npos);
  IRModule ok = parseModule(
      head + "{\"relay.Constant\": [{\"dtype\": \"int8\", \"shape\": [2], \"data\": \"AX8=\"}]}");
  const auto* c = ok.main()->body->as<ConstantNode>();
  ASSERT_TRUE(c && c->hasData());
  EXPECT_EQ(c->data.getInt(1), 127);
}

TEST(TextRoundTrip, ParsedTextPrintsBackIdentically) {
  const std::string text =
      "def @main(%x: Tensor[(1, 4), float32] /* ty=Tensor[(1, 4), float32] */, %c: bool /* "
      "ty=bool */) -> Tensor[(1, 4), float32] {\n"
      "  %0 = add(%x, 1f /* ty=float32 */) /* ty=Tensor[(1, 4), float32] */;\n"
      "  %1 = (%0, %x) /* ty=(Tensor[(1, 4), float32], Tensor[(1, 4), float32]) */;\n"
      "  %2 = %1.0 /* ty=Tensor[(1, 4), float32] */;\n"
      "  let %y: Tensor[(1, 4), float32] /* ty=Tensor[(1, 4), float32] */ = nn.relu(%2) /* "
      "ty=Tensor[(1, 4), float32] */;\n"
      "  %3 = (%y, %2) /* ty=(Tensor[(1, 4), float32], Tensor[(1, 4), float32]) */;\n"
      "  %3.1 /* ty=Tensor[(1, 4), float32] */\n}\n";
  EXPECT_EQ(printModule(parseModule(text)), text);
}

// TVM's printer numbers a node where it is first printed, even inside an if branch, and later
// uses in the other branch refer to it (spec §2.4: one memo for the whole job). The parser
// accepts that text: graph bindings are visible in the whole function.
TEST(TextRoundTrip, BindingsFirstPrintedInABranchFollowTvm) {
  const std::string text =
      "def @main(%x: Tensor[(1, 4), float32], %c: bool) {\n"
      "  %0 = negative(%x);\n  %1 = (%0, %x);\n  %2 = %1.0;\n"
      "  if (%c) { nn.relu(%2) } else { negative(%2) }\n}\n";
  PrintOptions o;
  o.types = false;
  const std::string printed = printModule(parseModule(text), o);
  EXPECT_EQ(printed,
            "def @main(%x: Tensor[(1, 4), float32], %c: bool) -> Tensor[(1, 4), float32] {\n"
            "  if (%c) {\n    %0 = negative(%x);\n    %1 = (%0, %x);\n    %2 = %1.0;\n"
            "    nn.relu(%2)\n  } else {\n    negative(%2)\n  }\n}\n");
  EXPECT_EQ(printModule(parseModule(printed), o), printed);
}

}  // namespace
}  // namespace tessera::relay
