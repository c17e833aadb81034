// ONNX importer, shape and tensor operators, constant folding of shape subgraphs, and the import
// options (initializers, input-shape overrides, outputs).
#include <gtest/gtest.h>

#include "onnx_test_util.h"
#include "relay/op/tensor.h"
#include "relay/text/printer.h"

namespace tessera::test {
namespace {

using frontend::onnx::importOnnxBytes;
using frontend::onnx::ImportOptions;

TEST(OnnxShape, ReshapeZeroAndMinusOneAndAllowzero) {
  OnnxGraph g(14);
  g.input("x", {2, 3, 4})
      .initializer("s1", i64({3}, {0, -1, 2}))
      .initializer("s2", i64({2}, {4, -1}));
  g.node("Reshape", {"x", "s1"}, {"a"});
  g.node("Reshape", {"x", "s2"}, {"b"}).i("allowzero", 1);
  g.output("a").output("b");
  relay::IRModule m = importOnnxBytes(g.bytes());
  const auto* tuple = m.main()->body->checkedType->as<TupleTypeNode>();
  ASSERT_NE(tuple, nullptr);
  EXPECT_EQ(typeToString(tuple->fields[0]), "Tensor[(2, 6, 2), float32]");
  EXPECT_EQ(typeToString(tuple->fields[1]), "Tensor[(4, 6), float32]");
  relay::Value v = runOnnx(g, {f32({2, 3, 4}, iota(24))});
  EXPECT_TRUE(allClose(v.fields()[0].tensor(), f32({2, 6, 2}, iota(24))));
}

TEST(OnnxShape, FlattenTransposeConcat) {
  OnnxGraph g(13);
  g.input("x", {2, 3}).initializer("c", f32({1, 2}, {7, 8}));
  g.node("Transpose", {"x"}, {"t"}).ints("perm", {1, 0});
  g.node("Flatten", {"t"}, {"f"}).i("axis", 0);
  g.node("Concat", {"f", "c"}, {"y"}).i("axis", -1);
  g.output("y");
  EXPECT_TRUE(allClose(runOnnx1(g, {f32({2, 3}, iota(6))}), f32({1, 8}, {0, 3, 1, 4, 2, 5, 7, 8})));
}

TEST(OnnxShape, SplitAttributeFormInputFormAndEqualParts) {
  const std::vector<double> x = iota(6);
  {
    OnnxGraph g(11);
    g.input("x", {6});
    g.node("Split", {"x"}, {"a", "b"}).ints("split", {2, 4});
    g.output("a").output("b");
    relay::Value v = runOnnx(g, {f32({6}, x)});
    EXPECT_TRUE(allClose(v.fields()[0].tensor(), f32({2}, {0, 1})));
    EXPECT_TRUE(allClose(v.fields()[1].tensor(), f32({4}, {2, 3, 4, 5})));
  }
  {
    OnnxGraph g(13);
    g.input("x", {6}).initializer("split", i64({2}, {5, 1}));
    g.node("Split", {"x", "split"}, {"a", "b"});
    g.node("Split", {"x"}, {"c", "d", "e"});
    g.output("b").output("e");
    relay::Value v = runOnnx(g, {f32({6}, x)});
    EXPECT_TRUE(allClose(v.fields()[0].tensor(), f32({1}, {5})));
    EXPECT_TRUE(allClose(v.fields()[1].tensor(), f32({2}, {4, 5})));
  }
}

// ONNX allows empty parts (Relay's split does not): they become empty slices.
TEST(OnnxShape, SplitWithEmptyParts) {
  OnnxGraph g(13);
  g.input("x", {2, 5}).initializer("split", i64({3}, {2, 0, 3}));
  g.node("Split", {"x", "split"}, {"a", "b", "c"}).i("axis", 1);
  g.output("a").output("b").output("c");
  relay::Value v = runOnnx(g, {f32({2, 5}, iota(10))});
  ASSERT_TRUE(v.isTuple());
  EXPECT_TRUE(allClose(v.fields()[0].tensor(), f32({2, 2}, {0, 1, 5, 6})));
  EXPECT_EQ(v.fields()[1].tensor().shape(), (std::vector<int64_t>{2, 0}));
  EXPECT_TRUE(allClose(v.fields()[2].tensor(), f32({2, 3}, {2, 3, 4, 7, 8, 9})));
}

TEST(OnnxShape, SliceWithNegativeIndicesAndSteps) {
  OnnxGraph g(13);
  g.input("x", {3, 4})
      .initializer("starts", i64({2}, {-1, 3}))
      .initializer("ends", i64({2}, {-1000, 0}))
      .initializer("axes", i64({2}, {0, -1}))
      .initializer("steps", i64({2}, {-1, -2}))
      .initializer("s2", i64({1}, {1}))
      .initializer("e2", i64({1}, {1000}));
  g.node("Slice", {"x", "starts", "ends", "axes", "steps"}, {"y"});
  g.node("Slice", {"x", "s2", "e2"}, {"z"});
  g.output("y").output("z");
  relay::Value v = runOnnx(g, {f32({3, 4}, iota(12))});
  // rows 2, 1, 0 and columns 3, 1.
  EXPECT_TRUE(allClose(v.fields()[0].tensor(), f32({3, 2}, {11, 9, 7, 5, 3, 1})));
  EXPECT_TRUE(allClose(v.fields()[1].tensor(), f32({2, 4}, iota(8, 4))));
}

TEST(OnnxShape, GatherMatchesSpecAndNegativeIndices) {
  OnnxGraph g(13);
  g.input("data", {3, 2})
      .initializer("idx", i64({2, 2}, {0, 1, 1, 2}))
      .initializer("neg", i64({1}, {-1}));
  g.node("Gather", {"data", "idx"}, {"y"});
  g.node("Gather", {"data", "neg"}, {"z"}).i("axis", 1);
  g.output("y").output("z");
  relay::Value v = runOnnx(g, {f32({3, 2}, {1, 1.2, 2.3, 3.4, 4.5, 5.7})});
  EXPECT_TRUE(
      allClose(v.fields()[0].tensor(), f32({2, 2, 2}, {1, 1.2, 2.3, 3.4, 2.3, 3.4, 4.5, 5.7})));
  EXPECT_TRUE(allClose(v.fields()[1].tensor(), f32({3, 1}, {1.2, 3.4, 5.7})));
}

TEST(OnnxShape, UnsqueezeAndSqueezeAttributeAndInputForms) {
  for (int opset : {11, 13}) {
    OnnxGraph g(opset);
    g.input("x", {3}).initializer("axes", i64({2}, {0, -1}));
    if (opset < 13) {
      g.node("Unsqueeze", {"x"}, {"u"}).ints("axes", {0, -1});
      g.node("Squeeze", {"u"}, {"s"}).ints("axes", {0});
    } else {
      g.node("Unsqueeze", {"x", "axes"}, {"u"});
      g.node("Squeeze", {"u", "axes"}, {"s"});
    }
    g.output("u").output("s");
    relay::IRModule m = importOnnxBytes(g.bytes());
    const auto* tuple = m.main()->body->checkedType->as<TupleTypeNode>();
    EXPECT_EQ(typeToString(tuple->fields[0]), "Tensor[(1, 3, 1), float32]") << opset;
    EXPECT_EQ(typeToString(tuple->fields[1]),
              opset < 13 ? "Tensor[(3, 1), float32]" : "Tensor[(3), float32]")
        << opset;
  }
}

TEST(OnnxShape, ExpandConstantOfShapeRangeAndConstants) {
  OnnxGraph g(13);
  g.input("x", {3, 1})
      .initializer("shape", i64({2}, {
                                         2,
                                         1,
                                     }));
  g.node("Constant", {}, {"target"}).ints("value_ints", {2, 3, 1});
  g.node("Expand", {"x", "target"}, {"e"});
  g.node("ConstantOfShape", {"shape"}, {"cs"}).t("value", f32({1}, {4}));
  g.node("Constant", {}, {"start"}).t("value", i64({}, {1}));
  g.node("Constant", {}, {"limit"}).i("value_int", 8);
  g.node("Constant", {}, {"delta"}).t("value", i64({}, {3}));
  g.node("Range", {"start", "limit", "delta"}, {"r"});
  g.node("Constant", {}, {"fl"}).floats("value_floats", {0.5, 1.5});
  g.output("e").output("cs").output("r").output("fl");
  relay::Value v = runOnnx(g, {f32({3, 1}, {1, 2, 3})});
  EXPECT_TRUE(allClose(v.fields()[0].tensor(), f32({2, 3, 1}, {1, 2, 3, 1, 2, 3})));
  EXPECT_TRUE(allClose(v.fields()[1].tensor(), f32({2, 1}, {4, 4})));
  EXPECT_TRUE(allClose(v.fields()[2].tensor(), i64({3}, {1, 4, 7}), 0, 0));
  EXPECT_TRUE(allClose(v.fields()[3].tensor(), f32({2}, {0.5, 1.5})));
}

// Shape -> Gather -> Unsqueeze -> Concat -> Reshape, as exporters write x.view(x.size(0), -1):
// the whole chain folds, leaving one reshape with a constant newshape.
TEST(OnnxShape, ShapeSubgraphFoldsToOneReshape) {
  OnnxGraph g(13);
  g.input("x", {2, 3, 4})
      .initializer("zero", i64({}, {0}))
      .initializer("ax", i64({1}, {0}))
      .initializer("minus1", i64({1}, {-1}));
  g.node("Shape", {"x"}, {"shape"});
  g.node("Gather", {"shape", "zero"}, {"batch"}).i("axis", 0);
  g.node("Unsqueeze", {"batch", "ax"}, {"batch1"});
  g.node("Concat", {"batch1", "minus1"}, {"newshape"}).i("axis", 0);
  g.node("Reshape", {"x", "newshape"}, {"y"});
  g.output("y");
  relay::IRModule m = importOnnxBytes(g.bytes());
  const auto* call = m.main()->body->as<relay::CallNode>();
  ASSERT_NE(call, nullptr);
  EXPECT_EQ(call->op->as<relay::OpNode>()->name, "reshape");
  EXPECT_EQ(call->args[0]->kind, relay::ExprKind::kVar);
  const auto* attrs = attrsAs<relay::ReshapeAttrs>(call->attrs.get());
  ASSERT_NE(attrs, nullptr);
  EXPECT_EQ(attrs->newshape, (std::vector<int64_t>{2, 12}));
}

TEST(OnnxShape, InitializersListedAsInputsAreNotParameters) {
  OnnxGraph g(13);
  g.input("x", {2}).initializer("w", f32({2}, {10, 20}), /*alsoInput=*/true);
  g.node("Mul", {"x", "w"}, {"y"});
  g.output("y");
  relay::IRModule m = importOnnxBytes(g.bytes());
  ASSERT_EQ(m.main()->params.size(), 1u);
  EXPECT_EQ(m.main()->params[0]->nameHint, "x");
  EXPECT_TRUE(allClose(runOnnx1(g, {f32({2}, {1, 2})}), f32({2}, {10, 40})));
}

TEST(OnnxShape, InputShapeOverrideResolvesDynamicDims) {
  OnnxGraph g(13);
  g.input("input.1", {-1, 3});
  g.node("Relu", {"input.1"}, {"y"});
  g.output("y");
  ImportOptions options;
  options.inputShapes["input.1"] = {2, 3};
  relay::IRModule m = importOnnxBytes(g.bytes(), options);
  // ONNX names become valid Relay identifiers.
  EXPECT_EQ(m.main()->params[0]->nameHint, "input_1");
  EXPECT_EQ(typeToString(m.main()->params[0]->typeAnnotation), "Tensor[(2, 3), float32]");
  // The printed module parses back (meta constants included).
  EXPECT_NE(relay::printModule(m).find("nn.relu(%input_1)"), std::string::npos);
}

TEST(OnnxShape, SupportedOpsAreSortedAndIncludeTheCoreSet) {
  std::vector<std::string> names;
  for (const auto& op : frontend::onnx::supportedOps()) names.push_back(op.opType);
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  for (const char* op : {"Conv", "Gemm", "MatMul", "Reshape", "Softmax", "LayerNormalization"})
    EXPECT_NE(std::find(names.begin(), names.end(), op), names.end()) << op;
}

}  // namespace
}  // namespace tessera::test

namespace tessera::test {
namespace {

// Trilu with k as a constant and as a run-time input (the same compiled graph for every k).
TEST(OnnxShape, TriluUpperAndLowerWithConstantAndRunTimeK) {
  OnnxGraph g(14);
  g.input("x", {2, 3}).input("k", {}, ::onnx::TensorProto::INT64);
  g.initializer("one", i64({}, {1}));
  g.node("Trilu", {"x"}, {"upper"});
  g.node("Trilu", {"x", "one"}, {"upper1"});
  g.node("Trilu", {"x", "k"}, {"lower_k"}).i("upper", 0);
  g.output("upper").output("upper1").output("lower_k");
  const NDArray x = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  relay::Value v = runOnnx(g, {x, i64({}, {-1})});
  EXPECT_TRUE(allClose(v.fields()[0].tensor(), f32({2, 3}, {1, 2, 3, 0, 5, 6})));
  EXPECT_TRUE(allClose(v.fields()[1].tensor(), f32({2, 3}, {0, 2, 3, 0, 0, 6})));
  EXPECT_TRUE(allClose(v.fields()[2].tensor(), f32({2, 3}, {0, 0, 0, 4, 0, 0})));
  v = runOnnx(g, {x, i64({}, {1})});
  EXPECT_TRUE(allClose(v.fields()[2].tensor(), f32({2, 3}, {1, 2, 0, 4, 5, 6})));
}

}  // namespace
}  // namespace tessera::test

namespace tessera::test {
namespace {

TEST(OnnxShape, GatherElementsAlongEitherAxisWithNegativeIndices) {
  OnnxGraph g(13);
  g.input("x", {2, 3}).input("i", {2, 2}, ::onnx::TensorProto::INT64);
  g.node("GatherElements", {"x", "i"}, {"rows"}).i("axis", 0);
  g.node("GatherElements", {"x", "i"}, {"cols"}).i("axis", 1);
  g.output("rows").output("cols");
  relay::Value v = runOnnx(g, {f32({2, 3}, {1, 2, 3, 4, 5, 6}), i64({2, 2}, {1, 0, -1, 1})});
  // axis 0: out[r][c] = x[i[r][c]][c]; axis 1: out[r][c] = x[r][i[r][c]].
  EXPECT_TRUE(allClose(v.fields()[0].tensor(), f32({2, 2}, {4, 2, 4, 5})));
  EXPECT_TRUE(allClose(v.fields()[1].tensor(), f32({2, 2}, {2, 1, 6, 5})));
}

}  // namespace
}  // namespace tessera::test

namespace tessera::test {
namespace {

// DepthToSpace (both modes) undone by SpaceToDepth; EyeLike; Hardmax (first maximum wins); Round
// half to even.
TEST(OnnxShape, DepthSpaceEyeLikeHardmaxRound) {
  OnnxGraph g(13);
  g.input("x", {1, 8, 1, 1}).input("m", {2, 3}).input("r", {6});
  g.node("DepthToSpace", {"x"}, {"dcr"}).i("blocksize", 2);
  g.node("SpaceToDepth", {"dcr"}, {"back"}).i("blocksize", 2);
  g.node("DepthToSpace", {"x"}, {"crd"}).i("blocksize", 2).s("mode", "CRD");
  g.node("EyeLike", {"m"}, {"eye"}).i("k", 1);
  g.node("Hardmax", {"m"}, {"hard"});
  g.node("Round", {"r"}, {"round"});
  g.output("dcr").output("back").output("crd").output("eye").output("hard").output("round");
  const NDArray x = f32({1, 8, 1, 1}, {0, 1, 2, 3, 4, 5, 6, 7});
  relay::Value v = runOnnx(
      g, {x, f32({2, 3}, {1, 3, 3, -1, -5, -2}), f32({6}, {0.5, 1.5, 2.5, -2.5, 2.4, -0.6})});
  // DCR: channel = (row block, column block, c); CRD: channel = (c, row block, column block).
  EXPECT_TRUE(allClose(v.fields()[0].tensor(), f32({1, 2, 2, 2}, {0, 2, 4, 6, 1, 3, 5, 7})));
  EXPECT_TRUE(allClose(v.fields()[1].tensor(), x));
  EXPECT_TRUE(allClose(v.fields()[2].tensor(), f32({1, 2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7})));
  EXPECT_TRUE(allClose(v.fields()[3].tensor(), f32({2, 3}, {0, 1, 0, 0, 0, 1})));
  EXPECT_TRUE(allClose(v.fields()[4].tensor(), f32({2, 3}, {0, 1, 0, 1, 0, 0})));
  EXPECT_TRUE(allClose(v.fields()[5].tensor(), f32({6}, {0, 2, 2, -2, 2, -1})));
}

}  // namespace
}  // namespace tessera::test

namespace tessera::test {
namespace {

// OneHot (negative index wrapped, axis 0), Tile and CumSum (inclusive, exclusive, reverse) with
// their shape-like inputs as initializers, as real models give them; InstanceNormalization.
TEST(OnnxShape, OneHotTileCumSumInstanceNorm) {
  OnnxGraph g(13);
  g.input("idx", {3}, ::onnx::TensorProto::INT64).input("t", {2, 2}).input("c", {4});
  g.input("x", {1, 2, 3});
  g.initializer("depth", NDArray::scalarInt(4, DataType::int64()));
  g.initializer("values", f32({2}, {-1, 5}));
  g.initializer("repeats", i64({2}, {2, 3}));
  g.initializer("axis", NDArray::scalarInt(0, DataType::int64()));
  g.initializer("scale", f32({2}, {1, 2}));
  g.initializer("bias", f32({2}, {0, 1}));
  g.node("OneHot", {"idx", "depth", "values"}, {"hot"}).i("axis", 0);
  g.node("Tile", {"t", "repeats"}, {"tiled"});
  g.node("CumSum", {"c", "axis"}, {"cum"});
  g.node("CumSum", {"c", "axis"}, {"excl"}).i("exclusive", 1);
  g.node("CumSum", {"c", "axis"}, {"rev"}).i("reverse", 1);
  g.node("InstanceNormalization", {"x", "scale", "bias"}, {"inorm"}).f("epsilon", 0);
  g.output("hot").output("tiled").output("cum").output("excl").output("rev").output("inorm");
  relay::Value v = runOnnx(g, {i64({3}, {1, -1, 0}), f32({2, 2}, {1, 2, 3, 4}),
                               f32({4}, {1, 2, 3, 4}), f32({1, 2, 3}, {1, 2, 3, 0, 0, 6})});
  // hot[k, i] = on where idx[i] (wrapped) == k.
  EXPECT_TRUE(
      allClose(v.fields()[0].tensor(), f32({4, 3}, {-1, -1, 5, 5, -1, -1, -1, -1, -1, -1, 5, -1})));
  EXPECT_TRUE(allClose(v.fields()[1].tensor(), f32({4, 6}, {1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4,
                                                            1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4})));
  EXPECT_TRUE(allClose(v.fields()[2].tensor(), f32({4}, {1, 3, 6, 10})));
  EXPECT_TRUE(allClose(v.fields()[3].tensor(), f32({4}, {0, 1, 3, 6})));
  EXPECT_TRUE(allClose(v.fields()[4].tensor(), f32({4}, {10, 9, 7, 4})));
  // Channel 0: (1, 2, 3) -> (-1.2247, 0, 1.2247); channel 1: (0, 0, 6) -> 2 * (-0.7071, -0.7071,
  // 1.4142) + 1.
  EXPECT_TRUE(
      allClose(v.fields()[5].tensor(),
               f32({1, 2, 3}, {-1.2247449f, 0, 1.2247449f, -0.4142136f, -0.4142136f, 3.8284271f}),
               1e-5, 1e-5));
}

}  // namespace
}  // namespace tessera::test

namespace tessera::test {
namespace {

// A Reshape whose shape is a graph input: an import-time error naming the input, unless its
// value is given (ImportOptions::inputValues, by ONNX or parameter name); the module is then
// specialised to that value, keeps the parameter, and a wrongly typed value is refused.
TEST(OnnxShape, ShapeInputsAreSpecialisedToGivenValues) {
  OnnxGraph g(13);
  g.input("x", {2, 3}).input("shape", {2}, ::onnx::TensorProto::INT64);
  g.node("Reshape", {"x", "shape"}, {"y"});
  g.output("y");
  const Diagnostic missing = diagnosticOf([&] { frontend::onnx::importOnnxBytes(g.bytes(), {}); });
  EXPECT_EQ(missing.code, "onnx_dynamic");
  EXPECT_NE(missing.message.find("'shape'"), std::string::npos) << missing.message;

  frontend::onnx::ImportOptions options;
  const NDArray shape = i64({2}, {3, 2});
  options.inputValues["shape"] = shape;
  const NDArray x = f32({2, 3}, iota(6));
  const NDArray y = runOnnx1(g, {x, shape}, options);
  EXPECT_EQ(y.shape(), (std::vector<int64_t>{3, 2}));
  EXPECT_TRUE(allClose(y, f32({3, 2}, iota(6))));

  options.inputValues["shape"] = f32({2}, {3, 2});
  const Diagnostic wrong =
      diagnosticOf([&] { frontend::onnx::importOnnxBytes(g.bytes(), options); });
  EXPECT_EQ(wrong.code, "onnx_input");
  EXPECT_NE(wrong.message.find("the value given is"), std::string::npos) << wrong.message;
}

}  // namespace
}  // namespace tessera::test

namespace tessera::test {
namespace {

// Resize with constant scales, as exported models have it: PyTorch's nearest upsampling
// (asymmetric, floor) and bilinear with half_pixel, checked against hand-computed values.
TEST(OnnxShape, ResizeWithConstantScales) {
  OnnxGraph g(13);
  g.input("x", {1, 1, 2, 2});
  g.initializer("roi", f32({0}, {}));
  g.initializer("scales", f32({4}, {1, 1, 2, 2}));
  g.node("Resize", {"x", "roi", "scales"}, {"nearest"})
      .s("coordinate_transformation_mode", "asymmetric")
      .s("nearest_mode", "floor");
  g.node("Resize", {"x", "roi", "scales"}, {"linear"}).s("mode", "linear");
  g.output("nearest").output("linear");
  relay::Value v = runOnnx(g, {f32({1, 1, 2, 2}, {1, 2, 3, 4})});
  EXPECT_TRUE(allClose(v.fields()[0].tensor(),
                       f32({1, 1, 4, 4}, {1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4})));
  // half_pixel: output 0..3 samples input (o + 0.5) / 2 - 0.5 = -0.25, 0.25, 0.75, 1.25, edges
  // clamped: rows weights (1, 0), (0.75, 0.25), (0.25, 0.75), (0, 1).
  EXPECT_TRUE(allClose(v.fields()[1].tensor(),
                       f32({1, 1, 4, 4}, {1, 1.25, 1.75, 2, 1.5, 1.75, 2.25, 2.5, 2.5, 2.75, 3.25,
                                          3.5, 3, 3.25, 3.75, 4})));
}

}  // namespace
}  // namespace tessera::test
