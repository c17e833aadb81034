// ONNX importer, malformed and unsupported models: each is a DiagnosticError that names the node,
// the op or the opset and says what is supported; none crashes.
#include <gtest/gtest.h>

#include "onnx_test_util.h"
#include "relay/text/printer.h"

namespace tessera::test {
namespace {

using frontend::onnx::importOnnxBytes;
using frontend::onnx::ImportOptions;

Diagnostic importError(const std::string& bytes, const ImportOptions& options = {}) {
  return diagnosticOf([&] { (void)importOnnxBytes(bytes, options); });
}

OnnxGraph reluGraph(int64_t opset = 13) {
  OnnxGraph g(opset);
  g.input("x", {2, 3}).initializer("w", f32({3}, {1, 2, 3}));
  g.node("Mul", {"x", "w"}, {"m"}, "scale");
  g.node("Relu", {"m"}, {"y"}, "act");
  g.output("y");
  return g;
}

TEST(OnnxErrors, EveryTruncationIsADiagnostic) {
  const std::string bytes = reluGraph().bytes();
  int rejected = 0;
  for (size_t cut = 0; cut < bytes.size(); ++cut) {
    try {
      (void)importOnnxBytes(bytes.substr(0, cut));
    } catch (const DiagnosticError&) {
      ++rejected;
    }
  }
  // Most prefixes are malformed; the rest import as smaller graphs (ONNX has no framing), but
  // none may crash.
  EXPECT_GT(rejected, static_cast<int>(bytes.size()) / 2);
  Diagnostic d = importError(bytes.substr(0, bytes.size() / 2));
  EXPECT_FALSE(d.message.empty());
}

TEST(OnnxErrors, GarbageBytes) {
  const char garbage[] = "\xff\xfe garbage \x01\x02\x03 not protobuf";
  Diagnostic d = importError(std::string(garbage, sizeof garbage - 1));
  EXPECT_EQ(d.code, "onnx_parse");
  EXPECT_NE(d.message.find("truncated or malformed"), std::string::npos);
  EXPECT_EQ(importError("").code, "onnx_parse");  // an empty message has no graph
}

// Opsets before 11 go through ONNX's own version converter; 11 to 18 import natively; newer ones
// (libonnx 1.12's converter knows nothing past opset 17) are rejected naming the opset and the
// implemented range.
TEST(OnnxErrors, OtherOpsetsAreConvertedOrRejectedNamingTheRange) {
  for (int opset : {1, 6, 10, 18}) {
    const relay::IRModule m = importOnnxBytes(reluGraph(opset).bytes());
    EXPECT_NE(relay::printModule(m).find("nn.relu"), std::string::npos) << opset;
  }
  for (int opset : {19, 21}) {
    Diagnostic d = importError(reluGraph(opset).bytes());
    EXPECT_EQ(d.code, "onnx_opset");
    EXPECT_NE(d.message.find("opset " + std::to_string(opset)), std::string::npos) << d.message;
    EXPECT_NE(d.message.find("11 to 18"), std::string::npos) << d.message;
    EXPECT_NE(d.message.find("version converter"), std::string::npos) << d.message;
  }
}

TEST(OnnxErrors, MissingInitializerNamesTheNodeAndTheInput) {
  OnnxGraph g(13);
  g.input("x", {2, 3});
  g.node("Mul", {"x", "w_missing"}, {"y"}, "scale");
  g.output("y");
  Diagnostic d = importError(g.bytes());
  EXPECT_EQ(d.code, "onnx_undefined");
  EXPECT_NE(d.context.find("node #0 'scale' (Mul)"), std::string::npos) << d.context;
  EXPECT_NE(d.message.find("w_missing"), std::string::npos);
}

TEST(OnnxErrors, UndefinedGraphOutput) {
  OnnxGraph g = reluGraph();
  g.output("nowhere");
  EXPECT_EQ(importError(g.bytes()).code, "onnx_undefined");
}

TEST(OnnxErrors, UnsupportedOpNamesNodeOpAndSupportedList) {
  OnnxGraph g(13);
  g.input("x", {2, 3});
  g.node("Relu", {"x"}, {"r"});
  g.node("DeformConv", {"r"}, {"y"}, "deform");
  g.output("y");
  Diagnostic d = importError(g.bytes());
  EXPECT_EQ(d.code, "onnx_unsupported_op");
  EXPECT_NE(d.context.find("node #1 'deform' (DeformConv)"), std::string::npos) << d.context;
  EXPECT_NE(d.message.find("'DeformConv' is not supported"), std::string::npos);
  EXPECT_NE(d.message.find("Conv"), std::string::npos);  // the supported list
}

TEST(OnnxErrors, OtherDomainsAreUnsupported) {
  OnnxGraph g = reluGraph();
  g.model().mutable_graph()->mutable_node(1)->set_domain("com.microsoft");
  EXPECT_EQ(importError(g.bytes()).code, "onnx_unsupported_op");
}

TEST(OnnxErrors, WrongAttributeType) {
  OnnxGraph g(13);
  g.input("x", {2, 3});
  g.node("Softmax", {"x"}, {"y"}, "sm").f("axis", 1.0f);
  g.output("y");
  Diagnostic d = importError(g.bytes());
  EXPECT_EQ(d.code, "onnx_attr");
  EXPECT_NE(d.message.find("'axis' must be INT but is FLOAT"), std::string::npos) << d.message;
  EXPECT_NE(d.context.find("'sm' (Softmax)"), std::string::npos);
}

TEST(OnnxErrors, UnsupportedAttributeValueListsTheSupportedOnes) {
  OnnxGraph g(13);
  g.input("x", {1, 1, 4, 4}).initializer("w", f32({1, 1, 1, 1}, {1}));
  g.node("Conv", {"x", "w"}, {"y"}, "c").s("auto_pad", "SAME_MIDDLE");
  g.output("y");
  Diagnostic d = importError(g.bytes());
  EXPECT_EQ(d.code, "onnx_unsupported_attr");
  EXPECT_NE(d.message.find("SAME_UPPER"), std::string::npos) << d.message;
}

TEST(OnnxErrors, AxisOutOfRange) {
  OnnxGraph g(13);
  g.input("x", {2, 3});
  g.node("Softmax", {"x"}, {"y"}).i("axis", 5);
  g.output("y");
  EXPECT_EQ(importError(g.bytes()).code, "onnx_axis");
}

TEST(OnnxErrors, DataDependentShapeIsNotSupported) {
  OnnxGraph g(13);
  g.input("x", {2, 3}).input("s", {2}, ::onnx::TensorProto::INT64);
  g.node("Reshape", {"x", "s"}, {"y"}, "r");
  g.output("y");
  Diagnostic d = importError(g.bytes());
  EXPECT_EQ(d.code, "onnx_dynamic");
  EXPECT_NE(d.message.find("run-time data"), std::string::npos) << d.message;
}

TEST(OnnxErrors, DynamicInputNeedsAShape) {
  OnnxGraph g(13);
  g.input("x", {-1, 3});
  g.node("Relu", {"x"}, {"y"});
  g.output("y");
  Diagnostic d = importError(g.bytes());
  EXPECT_EQ(d.code, "onnx_dynamic");
  EXPECT_NE(d.message.find("--input-shape x="), std::string::npos) << d.message;
  ImportOptions options;
  options.inputShapes["y"] = {1, 3};
  EXPECT_EQ(importError(g.bytes(), options).code, "onnx_input");  // not an input

  // A value given for the input (tessera run --input) fixes its dynamic dimension; a value whose
  // static dimensions disagree with the declared ones is refused.
  ImportOptions given;
  given.inputValues["x"] = NDArray::empty({4, 3}, DataType::float32());
  relay::IRModule m = frontend::onnx::importOnnxBytes(g.bytes(), given);
  EXPECT_EQ(typeToString(m.main()->params[0]->typeAnnotation), "Tensor[(4, 3), float32]");
  given.inputValues["x"] = NDArray::empty({4, 2}, DataType::float32());
  Diagnostic wrong = importError(g.bytes(), given);
  EXPECT_EQ(wrong.code, "onnx_input");
  EXPECT_NE(wrong.message.find("the value given is"), std::string::npos) << wrong.message;
}

TEST(OnnxErrors, TypeErrorsNameTheNode) {
  OnnxGraph g(13);
  g.input("a", {2, 3}).input("b", {4, 5});
  g.node("MatMul", {"a", "b"}, {"y"}, "mm");
  g.node("Add", {"a", "b"}, {"z"}, "add");
  g.output("y");
  Diagnostic d = importError(g.bytes());
  EXPECT_NE(d.context.find("'mm' (MatMul)"), std::string::npos) << d.context;
  g.model().mutable_graph()->mutable_node()->DeleteSubrange(0, 1);
  d = importError(g.bytes());
  EXPECT_NE(d.context.find("'add' (Add)"), std::string::npos) << d.context;
}

TEST(OnnxErrors, BadTensorData) {
  OnnxGraph g = reluGraph();
  g.model().mutable_graph()->mutable_initializer(0)->set_raw_data("abc");
  Diagnostic d = importError(g.bytes());
  EXPECT_EQ(d.code, "onnx_tensor");
  EXPECT_NE(d.context.find("initializer 'w'"), std::string::npos) << d.context;
  g.model().mutable_graph()->mutable_initializer(0)->set_data_type(::onnx::TensorProto::STRING);
  EXPECT_EQ(importError(g.bytes()).code, "onnx_tensor");
}

TEST(OnnxErrors, DuplicateOutputName) {
  OnnxGraph g = reluGraph();
  g.node("Relu", {"x"}, {"m"}, "again");
  EXPECT_EQ(importError(g.bytes()).code, "onnx_duplicate");
}

}  // namespace
}  // namespace tessera::test

namespace tessera::test {
namespace {

// ONNX's version converter crashes on a dangling name; such a model is a diagnostic instead.
TEST(OnnxErrors, OldOpsetModelWithAnUndefinedOutputIsDiagnosedNotConverted) {
  OnnxGraph g(6);
  g.input("x", {2, 3});
  g.node("Relu", {"x"}, {"y"});
  g.output("z");
  const Diagnostic d =
      tessera::test::diagnosticOf([&] { frontend::onnx::importOnnxBytes(g.bytes()); });
  EXPECT_EQ(d.code, "onnx_opset");
  EXPECT_NE(d.message.find("graph output 'z' is never defined"), std::string::npos) << d.message;
}

}  // namespace
}  // namespace tessera::test
