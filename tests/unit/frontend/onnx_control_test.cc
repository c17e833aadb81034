// ONNX importer, control flow: If (taken branch or a Relay if), Loop and Scan unrolled at import,
// Loop over run-time data as a recursive function, subgraph scoping (outer references,
// shadowing), and the clean errors for loops that can be neither.
#include <gtest/gtest.h>

#include "onnx_test_util.h"
#include "relay/text/printer.h"

namespace tessera::test {
namespace {

using frontend::onnx::importOnnxBytes;
using frontend::onnx::ImportOptions;

constexpr int32_t kBool = ::onnx::TensorProto::BOOL;
constexpr int32_t kInt64 = ::onnx::TensorProto::INT64;

NDArray boolScalar(bool value) {
  return tensorOf({}, DataType::boolType(), {value ? 1.0 : 0.0});
}

NDArray i64Scalar(int64_t value) {
  return i64({}, {static_cast<double>(value)});
}

std::string printed(const OnnxGraph& g, const ImportOptions& options = {}) {
  return relay::printModule(importOnnxBytes(g.bytes(), options));
}

Diagnostic importError(const OnnxGraph& g, const ImportOptions& options = {}) {
  return diagnosticOf([&] { (void)importOnnxBytes(g.bytes(), options); });
}

// A branch with one node `op(inputs) -> out` and that output.
OnnxGraph branch(const std::string& op, const std::vector<std::string>& inputs,
                 const std::string& out) {
  OnnxGraph b;
  b.node(op, inputs, {out});
  b.output(out);
  return b;
}

// --- If ------------------------------------------------------------------------------------------

// The condition folds to a constant (Not of an initializer), so only the else branch is imported:
// the then branch's unknown operator is never looked at.
TEST(OnnxControl, IfConstantConditionImportsOnlyTheTakenBranch) {
  OnnxGraph g(13);
  g.input("x", {2}).initializer("c", boolScalar(true));
  g.node("Not", {"c"}, {"notc"});
  g.node("If", {"notc"}, {"y"})
      .g("then_branch", branch("NoSuchOp", {"x"}, "t"))
      .g("else_branch", branch("Add", {"x", "x"}, "e"));
  g.output("y");
  EXPECT_TRUE(allClose(runOnnx1(g, {f32({2}, {1, 2})}), f32({2}, {2, 4})));
  EXPECT_EQ(printed(g).find("if ("), std::string::npos);
}

// A run-time condition keeps both branches in a Relay if; two outputs become a tuple. Both
// branches read the outer initializer `w`.
TEST(OnnxControl, IfRunTimeConditionBuildsARelayIfOverBothBranches) {
  OnnxGraph thenBranch;
  thenBranch.node("Mul", {"x", "w"}, {"a"});
  thenBranch.node("Add", {"x", "w"}, {"b"});
  thenBranch.output("a").output("b");
  OnnxGraph elseBranch;
  elseBranch.node("Sub", {"x", "w"}, {"a"});
  elseBranch.node("Neg", {"x"}, {"b"});
  elseBranch.output("a").output("b");
  OnnxGraph g(13);
  g.input("c", {}, kBool).input("x", {2}).initializer("w", f32({2}, {3, 4}));
  g.node("If", {"c"}, {"p", "q"}).g("then_branch", thenBranch).g("else_branch", elseBranch);
  g.output("p").output("q");
  EXPECT_NE(printed(g).find("if ("), std::string::npos);
  const NDArray x = f32({2}, {1, 2});
  relay::Value taken = runOnnx(g, {boolScalar(true), x});
  ASSERT_TRUE(taken.isTuple());
  EXPECT_TRUE(allClose(taken.fields()[0].tensor(), f32({2}, {3, 8})));
  EXPECT_TRUE(allClose(taken.fields()[1].tensor(), f32({2}, {4, 6})));
  relay::Value other = runOnnx(g, {boolScalar(false), x});
  ASSERT_TRUE(other.isTuple());
  EXPECT_TRUE(allClose(other.fields()[0].tensor(), f32({2}, {-2, -2})));
  EXPECT_TRUE(allClose(other.fields()[1].tensor(), f32({2}, {-1, -2})));
}

// Branches of different shapes cannot share a Relay if: a specialised condition picks one, a
// run-time one is an error naming both types.
TEST(OnnxControl, IfBranchesOfDifferentTypesNeedAKnownCondition) {
  OnnxGraph thenBranch;
  thenBranch.node("Constant", {}, {"k"}).t("value", f32({2}, {1, 2}));
  thenBranch.output("k");
  OnnxGraph elseBranch;
  elseBranch.node("Constant", {}, {"k"}).t("value", f32({3}, {7, 8, 9}));
  elseBranch.output("k");
  OnnxGraph g(13);
  g.input("c", {}, kBool);
  g.node("If", {"c"}, {"y"}).g("then_branch", thenBranch).g("else_branch", elseBranch);
  g.output("y");
  ImportOptions options;
  options.inputValues["c"] = boolScalar(false);
  EXPECT_TRUE(allClose(runOnnx1(g, {boolScalar(false)}, options), f32({3}, {7, 8, 9})));
  Diagnostic d = importError(g);
  EXPECT_EQ(d.code, "onnx_dynamic");
  EXPECT_NE(d.context.find("node #0 (If)"), std::string::npos) << d.context;
  EXPECT_NE(d.message.find("Tensor[(2), float32]"), std::string::npos) << d.message;
  EXPECT_NE(d.message.find("Tensor[(3), float32]"), std::string::npos) << d.message;
}

// A condition given at import keeps the Relay if when both branches convert to one type (the
// module still follows the input); when the other branch does not convert, the taken one is kept.
TEST(OnnxControl, IfSpecialisedConditionKeepsTheIfWhenItCan) {
  for (const std::string elseOp : {"Neg", "NoSuchOp"}) {
    OnnxGraph g(13);
    g.input("c", {}, kBool).input("x", {2});
    g.node("If", {"c"}, {"y"})
        .g("then_branch", branch("Add", {"x", "x"}, "t"))
        .g("else_branch", branch(elseOp, {"x"}, "e"));
    g.output("y");
    ImportOptions options;
    options.inputValues["c"] = boolScalar(true);
    const NDArray x = f32({2}, {1, 2});
    EXPECT_TRUE(allClose(runOnnx1(g, {boolScalar(true), x}, options), f32({2}, {2, 4})));
    const bool kept = printed(g, options).find("if (") != std::string::npos;
    EXPECT_EQ(kept, elseOp == "Neg") << elseOp;
    if (kept) {
      EXPECT_TRUE(allClose(runOnnx1(g, {boolScalar(false), x}, options), f32({2}, {-1, -2})));
    }
  }
}

// A branch may define a name the outer graph uses; outside the If the outer value is seen again.
TEST(OnnxControl, SubgraphNamesShadowOuterNamesOnlyInsideTheirScope) {
  OnnxGraph thenBranch;
  thenBranch.node("Neg", {"t"}, {"u"});
  thenBranch.node("Identity", {"u"}, {"t"});
  thenBranch.output("t");
  OnnxGraph g(13);
  g.input("c", {}, kBool).input("x", {2});
  g.node("Add", {"x", "x"}, {"t"});
  g.node("If", {"c"}, {"y"})
      .g("then_branch", thenBranch)
      .g("else_branch", branch("Identity", {"t"}, "t"));
  g.node("Add", {"t", "y"}, {"z"});
  g.output("z");
  const NDArray x = f32({2}, {1, 2});
  EXPECT_TRUE(allClose(runOnnx1(g, {boolScalar(true), x}), f32({2}, {0, 0})));
  EXPECT_TRUE(allClose(runOnnx1(g, {boolScalar(false), x}), f32({2}, {4, 8})));
}

// --- Loop ----------------------------------------------------------------------------------------

// Body: s_out = s + w (outer), scan = s * i; three iterations.
TEST(OnnxControl, LoopCarriesStateAndStacksScanOutputs) {
  OnnxGraph body;
  body.input("i", {}, kInt64).input("cond", {}, kBool).input("s", {2});
  body.node("Identity", {"cond"}, {"cond_out"});
  body.node("Add", {"s", "w"}, {"s_out"});
  body.node("Cast", {"i"}, {"fi"}).i("to", ::onnx::TensorProto::FLOAT);
  body.node("Mul", {"s", "fi"}, {"scan"});
  body.output("cond_out").output("s_out").output("scan");
  OnnxGraph g(13);
  g.input("x", {2})
      .initializer("M", i64Scalar(3))
      .initializer("c", boolScalar(true))
      .initializer("w", f32({2}, {1, 10}));
  g.node("Loop", {"M", "c", "x"}, {"final", "scans"}).g("body", body);
  g.output("final").output("scans");
  relay::Value v = runOnnx(g, {f32({2}, {1, 2})});
  ASSERT_TRUE(v.isTuple());
  EXPECT_TRUE(allClose(v.fields()[0].tensor(), f32({2}, {4, 32})));
  EXPECT_TRUE(allClose(v.fields()[1].tensor(), f32({3, 2}, {0, 0, 2, 12, 6, 44})));
}

// cond_out = i < 2 (a body Constant) ends the loop after iteration 2, with a large M and without
// M (the while form); the body's initializer `one` is local to it.
TEST(OnnxControl, LoopStopsWhenTheBodyConditionTurnsFalse) {
  OnnxGraph body;
  body.input("i", {}, kInt64).input("cond", {}, kBool).input("s", {1});
  body.initializer("one", f32({1}, {1}));
  body.node("Constant", {}, {"two"}).t("value", i64Scalar(2));
  body.node("Less", {"i", "two"}, {"cond_out"});
  body.node("Add", {"s", "one"}, {"s_out"});
  body.node("Identity", {"s"}, {"scan"});
  body.output("cond_out").output("s_out").output("scan");
  for (const std::string tripCount : {"M", ""}) {
    OnnxGraph g(13);
    g.input("x", {1}).initializer("M", i64Scalar(100)).initializer("c", boolScalar(true));
    g.node("Loop", {tripCount, "c", "x"}, {"final", "scans"}).g("body", body);
    g.output("final").output("scans");
    relay::Value v = runOnnx(g, {f32({1}, {5})});
    ASSERT_TRUE(v.isTuple());
    EXPECT_TRUE(allClose(v.fields()[0].tensor(), f32({1}, {8}))) << tripCount;
    EXPECT_TRUE(allClose(v.fields()[1].tensor(), f32({3, 1}, {5, 6, 7}))) << tripCount;
  }
}

// A body with two Ifs: one on i < 2 (known in each unrolled iteration, so only a branch is kept)
// and one on the outer run-time input `flag` (a Relay if per iteration).
TEST(OnnxControl, IfInsideALoopBody) {
  OnnxGraph body;
  body.input("i", {}, kInt64).input("cond", {}, kBool).input("s", {1});
  body.node("Identity", {"cond"}, {"cond_out"});
  body.node("Constant", {}, {"two"}).t("value", i64Scalar(2));
  body.node("Less", {"i", "two"}, {"early"});
  body.node("If", {"early"}, {"r"})
      .g("then_branch", branch("Add", {"s", "s"}, "rt"))
      .g("else_branch", branch("Identity", {"s"}, "re"));
  body.node("If", {"flag"}, {"q"})
      .g("then_branch", branch("Add", {"r", "one"}, "qt"))
      .g("else_branch", branch("Sub", {"r", "one"}, "qe"));
  body.output("cond_out").output("q");
  OnnxGraph g(13);
  g.input("flag", {}, kBool).input("x", {1});
  g.initializer("M", i64Scalar(3)).initializer("one", f32({1}, {1}));
  g.node("Loop", {"M", "", "x"}, {"final"}).g("body", body);
  g.output("final");
  // flag: 1 -> 2 -> 3, 3 -> 6 -> 7, 7 -> 7 -> 8; no flag: 1 -> 2 -> 1, 1 -> 2 -> 1, 1 -> 1 -> 0.
  EXPECT_TRUE(allClose(runOnnx1(g, {boolScalar(true), f32({1}, {1})}), f32({1}, {8})));
  EXPECT_TRUE(allClose(runOnnx1(g, {boolScalar(false), f32({1}, {1})}), f32({1}, {0})));
}

// M given at import as a graph input's value (as tessera run --input does); zero iterations leave
// the state as it was and give empty scan outputs of the body's element shape.
TEST(OnnxControl, LoopTripCountFromASpecialisedInputAndZeroIterations) {
  OnnxGraph body;
  body.input("i", {}, kInt64).input("cond", {}, kBool).input("s", {2});
  body.node("Identity", {"cond"}, {"cond_out"});
  body.node("Add", {"s", "s"}, {"s_out"});
  body.node("Identity", {"s"}, {"scan"});
  body.output("cond_out").output("s_out").output("scan");
  OnnxGraph g(13);
  g.input("M", {}, kInt64).input("x", {2});
  g.node("Loop", {"M", "", "x"}, {"final", "scans"}).g("body", body);
  g.output("final").output("scans");
  for (int64_t m : {2, 0}) {
    ImportOptions options;
    options.inputValues["M"] = i64Scalar(m);
    relay::Value v = runOnnx(g, {i64Scalar(m), f32({2}, {1, 2})}, options);
    ASSERT_TRUE(v.isTuple());
    const double scale = m == 2 ? 4 : 1;
    EXPECT_TRUE(allClose(v.fields()[0].tensor(), f32({2}, {scale, 2 * scale})));
    const NDArray scans = v.fields()[1].tensor();
    EXPECT_EQ(scans.shape(), (std::vector<int64_t>{m, 2}));
  }
}

// The ONNX spec lets loop-carried values change shape across iterations; stacked scan outputs
// must keep one.
TEST(OnnxControl, LoopCarriedValuesMayGrowButScanOutputsMayNot) {
  OnnxGraph body;
  body.input("i", {}, kInt64).input("cond", {}, kBool).input("s", {1});
  body.node("Identity", {"cond"}, {"cond_out"});
  body.node("Concat", {"s", "s"}, {"s_out"}).i("axis", 0);
  body.output("cond_out").output("s_out");
  OnnxGraph g(13);
  g.input("x", {1}).initializer("M", i64Scalar(3));
  g.node("Loop", {"M", "", "x"}, {"final"}).g("body", body);
  g.output("final");
  EXPECT_TRUE(allClose(runOnnx1(g, {f32({1}, {3})}), f32({8}, std::vector<double>(8, 3))));

  body.output("s_out");  // also a scan output
  OnnxGraph h(13);
  h.input("x", {1}).initializer("M", i64Scalar(3));
  h.node("Loop", {"M", "", "x"}, {"final", "scans"}).g("body", body);
  h.output("final").output("scans");
  Diagnostic d = importError(h);
  EXPECT_EQ(d.code, "onnx_loop");
  EXPECT_NE(d.message.find("keep one shape"), std::string::npos) << d.message;
}

OnnxGraph endlessLoop(const std::string& tripCount) {
  OnnxGraph body;
  body.input("i", {}, kInt64).input("cond", {}, kBool).input("s", {1});
  body.node("Identity", {"cond"}, {"cond_out"});
  body.node("Identity", {"s"}, {"s_out"});
  body.output("cond_out").output("s_out");
  OnnxGraph g(13);
  g.input("x", {1}).initializer("M", i64Scalar(5000)).initializer("c", boolScalar(true));
  g.node("Loop", {tripCount, "c", "x"}, {"final"}).g("body", body);
  g.output("final");
  return g;
}

// A condition-only loop whose conditions are all known at import but never turn false is refused
// at the unrolling cap; with a trip count past the cap (and no scan outputs) it becomes a function.
TEST(OnnxControl, LoopIterationCapIsACleanError) {
  Diagnostic d = importError(endlessLoop(""));
  EXPECT_EQ(d.code, "onnx_loop");
  EXPECT_NE(d.message.find("more than 4096 iterations"), std::string::npos) << d.message;
  EXPECT_NE(d.context.find("node #0 (Loop)"), std::string::npos) << d.context;

  relay::IRModule m = importOnnxBytes(endlessLoop("M").bytes());
  EXPECT_TRUE(m.has("onnx_loop"));
  EXPECT_TRUE(allClose(runOnnx1(endlessLoop("M"), {f32({1}, {2.5})}), f32({1}, {2.5})));
}

// A trip count, an initial condition or a body condition computed from run-time data becomes a
// tail-recursive function (run on the VM when compiled); what the body reads from outside and
// does not change is computed once and passed in. The interpreter runs it here.
TEST(OnnxControl, LoopOverRunTimeDataBecomesARecursiveFunction) {
  // s_out = s + step while sum(s_out) > 0; step is an outer value, invariant in the loop.
  OnnxGraph body;
  body.input("i", {}, kInt64).input("cond", {}, kBool).input("s", {1});
  body.node("Add", {"s", "step"}, {"s_out"});
  body.node("ReduceSum", {"s_out"}, {"total"}).i("keepdims", 0);
  body.node("Constant", {}, {"zero"}).t("value", f32({}, {0}));
  body.node("Greater", {"total", "zero"}, {"cond_out"});
  body.output("cond_out").output("s_out");

  OnnxGraph runTimeCond(13);
  runTimeCond.input("c", {}, kBool).input("x", {1}).input("step", {1});
  runTimeCond.initializer("M", i64Scalar(3));
  runTimeCond.node("Loop", {"M", "c", "x"}, {"final"}).g("body", body);
  runTimeCond.output("final");
  const std::string text = printed(runTimeCond);
  EXPECT_NE(text.find("def @onnx_loop(%iter: int64 /* ty=int64 */, %max_trip_count"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("%invariant0: Tensor[(1), float32]"), std::string::npos) << text;
  EXPECT_NE(text.find("@onnx_loop(0i64 /* ty=int64 */, 3i64 /* ty=int64 */, %c, %x, %step)"),
            std::string::npos)
      << text;
  // Three trips, or none when c is false, or until the sum turns non-positive.
  EXPECT_TRUE(allClose(runOnnx1(runTimeCond, {boolScalar(true), f32({1}, {1}), f32({1}, {2})}),
                       f32({1}, {7})));
  EXPECT_TRUE(allClose(runOnnx1(runTimeCond, {boolScalar(false), f32({1}, {1}), f32({1}, {2})}),
                       f32({1}, {1})));
  EXPECT_TRUE(allClose(runOnnx1(runTimeCond, {boolScalar(true), f32({1}, {3}), f32({1}, {-2})}),
                       f32({1}, {-1})));

  // The body's condition decides at run time although M and c are constants.
  OnnxGraph runTimeBody(13);
  runTimeBody.input("x", {1}).input("step", {1});
  runTimeBody.initializer("M", i64Scalar(10)).initializer("c", boolScalar(true));
  runTimeBody.node("Loop", {"M", "c", "x"}, {"final"}).g("body", body);
  runTimeBody.output("final");
  EXPECT_TRUE(allClose(runOnnx1(runTimeBody, {f32({1}, {5}), f32({1}, {-2})}), f32({1}, {-1})));

  // A run-time trip count without cond: the body's condition is ignored.
  OnnxGraph runTimeCount(13);
  runTimeCount.input("M", {}, kInt64).input("x", {1}).input("step", {1});
  runTimeCount.node("Loop", {"M", "", "x"}, {"final"}).g("body", body);
  runTimeCount.output("final");
  EXPECT_TRUE(allClose(runOnnx1(runTimeCount, {i64Scalar(4), f32({1}, {1}), f32({1}, {-1})}),
                       f32({1}, {-3})));
}

// Scan outputs over a run-time trip count: each is carried as an accumulator of type
// (?, element...), one row appended per iteration, so the module runs on the interpreter (and the
// compiler says it cannot compile it yet).
TEST(OnnxControl, RunTimeLoopStacksScanOutputs) {
  // s_out = s + 1; the scan output is s * i (before the update), M given at run time.
  OnnxGraph body;
  body.input("i", {}, kInt64).input("cond", {}, kBool).input("s", {2});
  body.node("Identity", {"cond"}, {"cond_out"});
  body.node("Constant", {}, {"one"}).t("value", f32({}, {1}));
  body.node("Add", {"s", "one"}, {"s_out"});
  body.node("Cast", {"i"}, {"fi"}).i("to", ::onnx::TensorProto::FLOAT);
  body.node("Mul", {"s", "fi"}, {"scan"});
  body.output("cond_out").output("s_out").output("scan");
  OnnxGraph g(13);
  g.input("M", {}, kInt64).input("x", {2});
  g.node("Loop", {"M", "", "x"}, {"final", "all"}).g("body", body);
  g.output("final").output("all");
  const std::string text = printed(g);
  EXPECT_NE(text.find("%scan0: Tensor[(?, 2), float32]"), std::string::npos) << text;

  const NDArray x = f32({2}, {1, 10});
  const relay::Value three = runOnnx(g, {i64Scalar(3), x});
  ASSERT_TRUE(three.isTuple());
  EXPECT_TRUE(allClose(three.fields()[0].tensor(), f32({2}, {4, 13})));
  // Rows s * i for i = 0, 1, 2 with s = x, x + 1, x + 2.
  EXPECT_TRUE(allClose(three.fields()[1].tensor(), f32({3, 2}, {0, 0, 2, 11, 6, 24})));
  // No iterations: the state as it was, and no rows.
  const relay::Value none = runOnnx(g, {i64Scalar(0), x});
  EXPECT_TRUE(allClose(none.fields()[0].tensor(), x));
  EXPECT_EQ(none.fields()[1].tensor().shape(), (std::vector<int64_t>{0, 2}));
}

// An error inside a body names the Loop, the iteration and the body's node.
TEST(OnnxControl, ErrorsInsideABodyNameTheEnclosingNode) {
  OnnxGraph body;
  body.input("i", {}, kInt64).input("cond", {}, kBool).input("s", {1});
  body.node("Identity", {"cond"}, {"cond_out"});
  body.node("NoSuchOp", {"s"}, {"s_out"});
  body.output("cond_out").output("s_out");
  OnnxGraph g(13);
  g.input("x", {1}).initializer("M", i64Scalar(2));
  g.node("Loop", {"M", "", "x"}, {"final"}, "loop").g("body", body);
  g.output("final");
  Diagnostic d = importError(g);
  EXPECT_EQ(d.code, "onnx_unsupported_op");
  EXPECT_NE(d.context.find("node #0 'loop' (Loop), body (iteration 0): node #1 (NoSuchOp)"),
            std::string::npos)
      << d.context;
}

// --- Scan ----------------------------------------------------------------------------------------

// A running sum over the rows of x, forward and with the input reversed; the scan output stacked
// along axis 1.
TEST(OnnxControl, ScanRunningSum) {
  OnnxGraph body;
  body.input("s", {2}).input("row", {2});
  body.node("Add", {"s", "row"}, {"s_out"});
  body.node("Identity", {"s_out"}, {"y"});
  body.output("s_out").output("y");
  const NDArray x = f32({3, 2}, {1, 2, 3, 4, 5, 6});
  for (int64_t reverse : {0, 1}) {
    OnnxGraph g(13);
    g.input("s0", {2}).input("x", {3, 2});
    g.node("Scan", {"s0", "x"}, {"final", "ys"})
        .g("body", body)
        .i("num_scan_inputs", 1)
        .ints("scan_input_directions", {reverse})
        .ints("scan_output_axes", {1});
    g.output("final").output("ys");
    relay::Value v = runOnnx(g, {f32({2}, {0, 0}), x});
    ASSERT_TRUE(v.isTuple());
    EXPECT_TRUE(allClose(v.fields()[0].tensor(), f32({2}, {9, 12})));
    const NDArray want =
        reverse ? f32({2, 3}, {5, 8, 9, 6, 10, 12}) : f32({2, 3}, {1, 4, 9, 2, 6, 12});
    EXPECT_TRUE(allClose(v.fields()[1].tensor(), want)) << reverse;
  }
}

// Opset 8's Scan: a batch axis first on every input and output, sequences on axis 1, `directions`.
// The model imports without ONNX's version converter (which cannot convert subgraphs) because Add
// and Identity are the same operators at opset 8 as at 11.
TEST(OnnxControl, Opset8ScanWithABatchAxis) {
  OnnxGraph body;
  body.input("s", {2}).input("row", {2});
  body.node("Add", {"s", "row"}, {"s_out"});
  body.node("Identity", {"s_out"}, {"y"});
  body.output("s_out").output("y");
  OnnxGraph g(8);
  g.input("s0", {2, 2}).input("x", {2, 3, 2});
  g.node("Scan", {"", "s0", "x"}, {"final", "ys"})
      .g("body", body)
      .i("num_scan_inputs", 1)
      .ints("directions", {1});
  g.output("final").output("ys");
  const NDArray x = f32({2, 3, 2}, {1, 2, 3, 4, 5, 6, 10, 20, 30, 40, 50, 60});
  relay::Value v = runOnnx(g, {f32({2, 2}, {0, 0, 100, 100}), x});
  ASSERT_TRUE(v.isTuple());
  EXPECT_TRUE(allClose(v.fields()[0].tensor(), f32({2, 2}, {9, 12, 190, 220})));
  // Reversed: the rows are taken last to first.
  EXPECT_TRUE(allClose(v.fields()[1].tensor(),
                       f32({2, 3, 2}, {5, 6, 8, 10, 9, 12, 150, 160, 180, 200, 190, 220})));
}

// An old-opset model with a subgraph and an operator that changed since (Pad's pads became an
// input at opset 11) still needs the converter, which refuses it: a clean onnx_opset error.
TEST(OnnxControl, OldOpsetSubgraphWithChangedOperatorsIsAnError) {
  OnnxGraph thenBranch = branch("Identity", {"x"}, "t");
  OnnxGraph elseBranch = branch("Neg", {"x"}, "e");
  OnnxGraph g(9);
  g.input("c", {}, kBool).input("x", {2});
  g.node("Pad", {"x"}, {"p"}).ints("pads", {1, 1});
  g.node("If", {"c"}, {"y"}).g("then_branch", thenBranch).g("else_branch", elseBranch);
  g.output("y").output("p");
  Diagnostic d = importError(g);
  EXPECT_EQ(d.code, "onnx_opset");
  EXPECT_NE(d.message.find("has a subgraph"), std::string::npos) << d.message;
}

}  // namespace
}  // namespace tessera::test
