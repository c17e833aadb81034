// ONNX importer, sequences: built and taken apart at import as tuples, with positions and split
// sizes known then (initializers, or graph inputs given a value); the clean errors otherwise.
#include <gtest/gtest.h>

#include "onnx_test_util.h"

namespace tessera::test {
namespace {

using frontend::onnx::importOnnxBytes;
using frontend::onnx::ImportOptions;

Diagnostic importError(const OnnxGraph& g, const ImportOptions& options = {}) {
  return diagnosticOf([&] { (void)importOnnxBytes(g.bytes(), options); });
}

// Construct, insert (negative position), erase, at, length.
TEST(OnnxSequence, ConstructInsertEraseAt) {
  OnnxGraph g(13);
  g.input("a", {2}).input("b", {3}).input("c", {1});
  g.initializer("minus1", i64({}, {-1})).initializer("zero", i64({}, {0}));
  g.node("SequenceConstruct", {"a", "b"}, {"s0"});
  g.node("SequenceInsert", {"s0", "c", "minus1"}, {"s1"});  // (a, c, b)
  g.node("SequenceErase", {"s1", "zero"}, {"s2"});          // (c, b)
  g.node("SequenceAt", {"s2", "minus1"}, {"last"});         // b
  g.node("SequenceLength", {"s2"}, {"len"});
  g.output("last").output("len");
  const relay::Value v = runOnnx(g, {f32({2}, {1, 2}), f32({3}, {3, 4, 5}), f32({1}, {6})});
  ASSERT_TRUE(v.isTuple());
  EXPECT_TRUE(allClose(v.fields()[0].tensor(), f32({3}, {3, 4, 5})));
  EXPECT_EQ(v.fields()[1].tensor().getInt(0), 2);
}

// Concatenation along an axis and stacking along a new one; an empty sequence grows by inserts.
TEST(OnnxSequence, ConcatFromSequence) {
  OnnxGraph g(13);
  g.input("a", {1, 2}).input("b", {1, 2});
  g.node("SequenceEmpty", {}, {"e"});
  g.node("SequenceInsert", {"e", "a"}, {"s1"});
  g.node("SequenceInsert", {"s1", "b"}, {"s2"});
  g.node("ConcatFromSequence", {"s2"}, {"cat"}).i("axis", 1);
  g.node("ConcatFromSequence", {"s2"}, {"stacked"}).i("axis", -1).i("new_axis", 1);
  g.output("cat").output("stacked");
  const relay::Value v = runOnnx(g, {f32({1, 2}, {1, 2}), f32({1, 2}, {3, 4})});
  EXPECT_TRUE(allClose(v.fields()[0].tensor(), f32({1, 4}, {1, 2, 3, 4})));
  EXPECT_TRUE(allClose(v.fields()[1].tensor(), f32({1, 2, 2}, {1, 3, 2, 4})));
}

// SplitToSequence: pieces of one (squeezed with keepdims=0), a scalar size with a short last
// piece, explicit sizes.
TEST(OnnxSequence, SplitToSequence) {
  OnnxGraph g(13);
  g.input("x", {5, 2});
  g.initializer("two", i64({}, {2})).initializer("sizes", i64({2}, {1, 4}));
  g.initializer("one", i64({}, {1}));
  g.node("SplitToSequence", {"x"}, {"rows"}).i("keepdims", 0);
  g.node("SequenceAt", {"rows", "one"}, {"row1"});
  g.node("SplitToSequence", {"x", "two"}, {"pairs"});
  g.node("SequenceLength", {"pairs"}, {"npairs"});
  g.node("SplitToSequence", {"x", "sizes"}, {"parts"});
  g.node("SequenceAt", {"parts", "one"}, {"rest"});
  g.output("row1").output("npairs").output("rest");
  const NDArray x = f32({5, 2}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  const relay::Value v = runOnnx(g, {x});
  EXPECT_TRUE(allClose(v.fields()[0].tensor(), f32({2}, {2, 3})));
  EXPECT_EQ(v.fields()[1].tensor().getInt(0), 3);
  EXPECT_TRUE(allClose(v.fields()[2].tensor(), f32({4, 2}, {2, 3, 4, 5, 6, 7, 8, 9})));
}

TEST(OnnxSequence, PositionsMustBeKnownAndInRange) {
  OnnxGraph runTime(13);
  runTime.input("a", {2}).input("p", {}, ::onnx::TensorProto::INT64);
  runTime.node("SequenceConstruct", {"a", "a"}, {"s"});
  runTime.node("SequenceAt", {"s", "p"}, {"y"});
  runTime.output("y");
  Diagnostic d = importError(runTime);
  EXPECT_EQ(d.code, "onnx_dynamic");
  EXPECT_NE(d.message.find("position"), std::string::npos) << d.message;

  OnnxGraph outside(13);
  outside.input("a", {2}).initializer("p", i64({}, {2}));
  outside.node("SequenceConstruct", {"a", "a"}, {"s"});
  outside.node("SequenceAt", {"s", "p"}, {"y"});
  outside.output("y");
  d = importError(outside);
  EXPECT_EQ(d.code, "onnx_input");
  EXPECT_NE(d.message.find("position 2 is outside the sequence of 2 tensors"), std::string::npos)
      << d.message;
  EXPECT_NE(d.context.find("SequenceAt"), std::string::npos) << d.context;

  OnnxGraph mixed(13);
  mixed.input("a", {2}).input("i", {2}, ::onnx::TensorProto::INT64);
  mixed.node("SequenceConstruct", {"a", "i"}, {"s"});
  mixed.node("SequenceLength", {"s"}, {"n"});
  mixed.output("n");
  d = importError(mixed);
  EXPECT_EQ(d.code, "onnx_input");
  EXPECT_NE(d.message.find("holds float32 tensors"), std::string::npos) << d.message;
}

}  // namespace
}  // namespace tessera::test
