// The whole lowering pipeline: the scheduled matmul+relu of specs/tir_relax.md §4.2 must print the
// spec's lowered body and compute the same result; odd sizes with split predicates; symbolic
// shapes; the pass context's config, user passes and print-after; the lowered-form contract of
// lower.h.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "test_util.h"
#include "tir/functor.h"
#include "tir/transform/lower.h"
#include "transform_test_util.h"

namespace tessera::test {
namespace {

using namespace tir;
namespace tf = tir::transform;

// Checks the contract of lower.h: no blocks, one index per access, no vectorized loop, each
// Allocate followed by a DeclBuffer of its data.
::testing::AssertionResult isFlatLoopProgram(const PrimFunc& f) {
  std::string problem;
  preOrderVisit(f->body, [&](const Stmt& s) {
    if (s->kind == StmtKind::kBlock || s->kind == StmtKind::kBlockRealize) problem = "a block";
    if (const auto* loop = s->as<ForNode>(); loop && loop->forKind == ForKind::kVectorized)
      problem = "a vectorized loop";
    if (const auto* store = s->as<BufferStoreNode>(); store && store->indices.size() != 1)
      problem = "a multi-dimensional store to " + store->buffer->name;
    return true;
  });
  postOrderVisitExprs(f->body, [&](const PrimExpr& e) {
    if (const auto* load = e->as<BufferLoadNode>(); load && load->indices.size() != 1)
      problem = "a multi-dimensional load of " + load->buffer->name;
  });
  if (problem.empty()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "lowered function contains " << problem;
}

// Differences from the spec's listing, both in how the printer shows the same IR: flat parameter
// views are printed where first used, and the DeclBuffer of C prints as `T.decl_buffer`.
TEST(LowerPipeline, ScheduledMatmulReluMatchesSpec) {
  PrimFunc f = scheduledMatmulRelu(64);
  PrimFunc g = tf::lower(f);
  EXPECT_EQ(
      script(g),
      R"(def main(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32"), D: T.Buffer((64, 64), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    for i in T.parallel(64):
        C = T.allocate([8], "float32", "global")
        for j_0 in range(8):
            C_1 = T.decl_buffer((8,), data=C)
            for ax0_init in range(8):
                C_1[ax0_init] = T.float32(0.0)
            for ax0, ax1 in T.grid(8, 64):
                A_1 = T.Buffer((4096,), data=A.data)
                B_1 = T.Buffer((4096,), data=B.data)
                C_1[ax0] = C_1[ax0] + A_1[i * 64 + ax1] * B_1[ax1 * 64 + j_0 * 8 + ax0]
            D_1 = T.Buffer((4096,), data=D.data)
            D_1[i * 64 + j_0 * 8:i * 64 + j_0 * 8 + 8] = T.max(C_1[0:8], T.Broadcast(T.float32(0.0), 8))
)");
  EXPECT_TRUE(isFlatLoopProgram(g));
  EXPECT_TRUE(sameResults(f, g));
}

TEST(LowerPipeline, PlainMatmulReluOddSize) {
  PrimFunc f = plainMatmulRelu(13);
  PrimFunc g = tf::lower(f);
  EXPECT_EQ(
      script(g),
      R"(def main(A: T.Buffer((13, 13), "float32"), B: T.Buffer((13, 13), "float32"), relu: T.Buffer((13, 13), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    matmul = T.decl_buffer((169,))
    for i, j, k in T.grid(13, 13, 13):
        if k == 0:
            matmul[i * 13 + j] = T.float32(0.0)
        cse_var_1: T.int32 = i * 13 + j
        A_1 = T.Buffer((169,), data=A.data)
        B_1 = T.Buffer((169,), data=B.data)
        matmul[cse_var_1] = matmul[cse_var_1] + A_1[i * 13 + k] * B_1[k * 13 + j]
    for i, j in T.grid(13, 13):
        cse_var_2: T.int32 = i * 13 + j
        relu_1 = T.Buffer((169,), data=relu.data)
        relu_1[cse_var_2] = T.max(matmul[cse_var_2], T.float32(0.0))
)");
  EXPECT_TRUE(isFlatLoopProgram(g));
  EXPECT_TRUE(sameResults(f, g));
}

// B[v] = A[v] * 2 for v = i_0 * 8 + i_1 < n with i_0 parallel and i_1 vectorized (a split of n by
// 8 that does not divide it).
PrimFunc splitVectorized(PrimExpr n, PrimExpr outerExtent) {
  Buffer a = makeBuffer("A", {n}), b = makeBuffer("B", {n});
  Var i0 = makeVar("i_0"), i1 = makeVar("i_1");
  PrimExpr v = i0 * 8 + i1;
  Stmt block = makeBlock(
      "B", {{"v", IterVarType::kDataPar, n, v}},
      [&](const std::vector<Var>& x) {
        return bufferStore(b, bufferLoad(a, {x[0]}) * floatImm(2), {x[0]});
      },
      {}, lt(v, n));
  Stmt body = forLoop(i0, intImm(0), outerExtent, ForKind::kParallel,
                      loop(i1, 8, block, ForKind::kVectorized));
  return makePrimFunc("main", {a, b}, rootBlock(body));
}

TEST(LowerPipeline, OddSizeSplitPartitionsAndVectorizesTheMainLoop) {
  PrimFunc f = splitVectorized(intImm(30), intImm(4));
  PrimFunc g = tf::lower(f);
  // The boundary iteration keeps its per-lane condition: a masked store (tir::maskedStore) whose
  // load is masked too, so that neither reads or writes past the buffers' 30 elements.
  EXPECT_EQ(script(g), R"(def main(A: T.Buffer((30,), "float32"), B: T.Buffer((30,), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    for i_0 in T.parallel(3):
        cse_var_1: T.int32 = i_0 * 8
        B[cse_var_1:cse_var_1 + 8] = A[cse_var_1:cse_var_1 + 8] * T.Broadcast(T.float32(2.0), 8)
    B[24:32] = T.if_then_else(T.Ramp(0, 1, 8) < T.Broadcast(6, 8), T.if_then_else(T.Ramp(0, 1, 8) < T.Broadcast(6, 8), A[24:32], T.Broadcast(T.float32(0.0), 8)) * T.Broadcast(T.float32(2.0), 8), B[24:32])
)");
  EXPECT_TRUE(isFlatLoopProgram(g));
  EXPECT_TRUE(sameResults(f, g));
}

TEST(LowerPipeline, SymbolicShape) {
  Var n = makeSizeVar("n");
  PrimFunc f = splitVectorized(n, floordiv(n + 7, intImm(8)));
  PrimFunc g = tf::lower(f);
  EXPECT_TRUE(isFlatLoopProgram(g));
  for (int64_t size : {1, 8, 13, 30})
    EXPECT_TRUE(sameResults(f, g, 1, {{size}, {size}})) << "n = " << size;
}

TEST(LowerPipeline, SymbolicTwoDimensionalInt64) {
  Var m = makeSizeVar("m", DataType::int64()), n = makeSizeVar("n", DataType::int64());
  Buffer a = makeBuffer("A", {m, n}), b = makeBuffer("B", {n, m});
  Var i = makeVar("i", DataType::int64()), j = makeVar("j", DataType::int64());
  Stmt block =
      makeBlock("T", {{"v_i", IterVarType::kDataPar, m, i}, {"v_j", IterVarType::kDataPar, n, j}},
                [&](const std::vector<Var>& v) {
                  return bufferStore(b, bufferLoad(a, {v[0], v[1]}), {v[1], v[0]});
                });
  Stmt body = forLoop(i, intImm(0, DataType::int64()), m, ForKind::kSerial,
                      forLoop(j, intImm(0, DataType::int64()), n, ForKind::kSerial, block));
  PrimFunc f = makePrimFunc("main", {a, b}, rootBlock(body));
  PrimFunc g = tf::lower(f);
  EXPECT_NE(script(g).find("B_1[j * m + i] = A_1[i * n + j]"), std::string::npos) << script(g);
  EXPECT_TRUE(isFlatLoopProgram(g));
  EXPECT_TRUE(sameResults(f, g, 2, {{3, 5}, {5, 3}}));
}

TEST(LowerPipeline, DisableVectorize) {
  tf::PassContext ctx;
  ctx.setConfig("tir.disable_vectorize", "true");
  PrimFunc f = scheduledMatmulRelu(16);
  PrimFunc g = tf::lower(f, ctx);
  std::string s = script(g);
  EXPECT_EQ(s.find("Broadcast"), std::string::npos) << s;
  EXPECT_NE(s.find("for j_1 in range(8):"), std::string::npos) << s;
  EXPECT_TRUE(sameResults(f, g));
}

// The names printed after each pass, in order ("// after NAME" lines).
std::vector<std::string> printedPasses(const std::string& text) {
  std::vector<std::string> names;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (line.rfind("// after ", 0) == 0) names.push_back(line.substr(9));
  return names;
}

TEST(LowerPipeline, PrintAfterAndUserPassesFromTheConfigRunInOrder) {
  tf::PassContext ctx;
  ctx.printAfterAll = true;
  std::ostringstream printed;
  ctx.printStream = &printed;
  int phase1Calls = 0;
  tf::addLowerPass(
      ctx, 1, tf::makePrimFuncPass({"MyPhase1", 0, {}}, [&](const PrimFunc& f, tf::PassContext&) {
        ++phase1Calls;
        // After phase 1 the buffers are flat and blocks are gone.
        EXPECT_TRUE(isFlatLoopProgram(f) || script(f).find("T.vectorized") != std::string::npos);
        return f;
      }));
  tf::addLowerPass(ctx, 3,
                   tf::makePrimFuncPass({"MyPhase3", 0, {}},
                                        [](const PrimFunc& f, tf::PassContext&) { return f; }));
  // A built-in pass named at a phase runs again there.
  ctx.setConfig(
      "tir.add_lower_pass",
      AttrValue::array({ctx.configValue("tir.add_lower_pass").asArray()[0],
                        ctx.configValue("tir.add_lower_pass").asArray()[1],
                        AttrValue::array({AttrValue::integer(0), AttrValue::string("Simplify")})}));
  tf::lower(scheduledMatmulRelu(16), ctx);
  EXPECT_EQ(phase1Calls, 1);
  std::vector<std::string> expected = tf::lowerPassNames();
  // User passes appear after the last pass of their phase; phase 0 before the first.
  expected.insert(expected.begin() + 10, "MyPhase1");
  expected.insert(expected.begin(), "Simplify");
  expected.push_back("MyPhase3");
  EXPECT_EQ(printedPasses(printed.str()), expected);
  EXPECT_EQ(tf::lowerPassNames().front(), "LowerInitBlock");
  EXPECT_EQ(tf::lowerPassNames().size(), 22u);
}

TEST(LowerPipeline, ConfigSwitchesRowsOffAndDisabledPassesAreSkipped) {
  tf::PassContext ctx;
  ctx.printAfterAll = true;
  std::ostringstream printed;
  ctx.printStream = &printed;
  ctx.setConfig("tir.disable_loop_partition", "true");
  ctx.setConfig("tir.UnrollLoop", R"({"auto_max_step": 64, "explicit_unroll": false})");
  ctx.disabledPasses.insert("HoistIfThenElse");
  const PrimFunc f = scheduledMatmulRelu(16);
  const PrimFunc g = tf::lower(f, ctx);
  const std::vector<std::string> ran = printedPasses(printed.str());
  EXPECT_EQ(std::count(ran.begin(), ran.end(), "LoopPartition"), 0);
  EXPECT_EQ(std::count(ran.begin(), ran.end(), "HoistIfThenElse"), 0);
  EXPECT_EQ(std::count(ran.begin(), ran.end(), "UnrollLoop"), 1);
  EXPECT_EQ(ctx.configField("tir.UnrollLoop", "auto_max_step").asInt(), 64);
  EXPECT_TRUE(isFlatLoopProgram(g));
  EXPECT_TRUE(sameResults(f, g));
}

TEST(LowerPipeline, BadConfigIsALocatedError) {
  tf::PassContext ctx;
  Diagnostic d = diagnosticOf([&] { ctx.setConfig("tir.disable_vectorise", "true"); });
  EXPECT_EQ(d.code, "pass_config");
  EXPECT_NE(d.message.find("unknown config key 'tir.disable_vectorise'"), std::string::npos);
  EXPECT_NE(d.message.find("tir.disable_vectorize"), std::string::npos) << "known keys listed";
  d = diagnosticOf([&] { ctx.setConfig("tir.disable_vectorize", "yes"); });
  EXPECT_NE(d.message.find("expects a boolean"), std::string::npos) << d.message;
  d = diagnosticOf([&] { ctx.setConfig("tir.add_lower_pass", R"([[4, "Simplify"]])"); });
  EXPECT_NE(d.message.find("phase 4"), std::string::npos) << d.message;
  d = diagnosticOf([&] { ctx.setConfig("tir.UnrollLoop", R"({"max_step": 4})"); });
  EXPECT_NE(d.message.find("unknown field 'max_step'"), std::string::npos) << d.message;
  ctx.setConfig("tir.add_lower_pass", R"([[1, "NoSuchPass"]])");
  d = diagnosticOf([&] { tf::lower(scheduledMatmulRelu(16), ctx); });
  EXPECT_NE(d.message.find("no TIR pass named 'NoSuchPass'"), std::string::npos) << d.message;
  tf::PassContext mandatory;
  mandatory.disabledPasses.insert("FlattenBuffer");
  d = diagnosticOf([&] { tf::lower(scheduledMatmulRelu(16), mandatory); });
  EXPECT_NE(d.message.find("cannot be disabled"), std::string::npos) << d.message;
}

TEST(LowerPipeline, DeterministicOutput) {
  EXPECT_EQ(script(tf::lower(scheduledMatmulRelu(16))), script(tf::lower(scheduledMatmulRelu(16))));
}

}  // namespace
}  // namespace tessera::test
