// Phase-2 passes: LoopPartition, VectorizeLoop, StorageRewrite, HoistIfThenElse, UnrollLoop
// (golden before/after and differential checks with tir::evaluate).
#include <gtest/gtest.h>

#include "tir/transform/transform.h"
#include "transform_test_util.h"

namespace tessera::test {
namespace {

using namespace tir;
namespace tf = tir::transform;

// for i_0 in range(ceil(n / 4)): for i_1 in range(4): if i_0*4 + i_1 < n: B[.] = A[.] + 1
PrimFunc splitWithPredicate(int64_t n, ForKind outerKind = ForKind::kSerial) {
  Buffer a = constBuffer("A", {n}), b = constBuffer("B", {n});
  Var i0 = makeVar("i_0"), i1 = makeVar("i_1");
  PrimExpr v = i0 * 4 + i1;
  Stmt body = ifThenElse(lt(v, intImm(n)), bufferStore(b, bufferLoad(a, {v}) + floatImm(1), {v}));
  return makePrimFunc("main", {a, b}, loop(i0, (n + 3) / 4, loop(i1, 4, body), outerKind));
}

TEST(LoopPartition, SplitsOffTheBoundaryIteration) {
  PrimFunc f = splitWithPredicate(10);
  PrimFunc g = tf::loopPartition(f);
  EXPECT_EQ(script(g), R"(def main(A: T.Buffer((10,), "float32"), B: T.Buffer((10,), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    for i_0, i_1 in T.grid(2, 4):
        B[i_0 * 4 + i_1] = A[i_0 * 4 + i_1] + T.float32(1.0)
    for i_1 in range(2):
        B[i_1 + 8] = A[i_1 + 8] + T.float32(1.0)
    for i_1 in range(2, 4):
        if i_1 < 2:
            B[i_1 + 8] = A[i_1 + 8] + T.float32(1.0)
)");
  EXPECT_TRUE(sameResults(f, g));
  // The last range's condition is false throughout; the cleanup passes delete it.
  PrimFunc clean = tf::removeNoOp(tf::simplify(g));
  EXPECT_EQ(script(clean).find("range(2, 4)"), std::string::npos) << script(clean);
  EXPECT_TRUE(sameResults(f, clean));
}

// Two axes split by factors that do not divide them leave `i < 10 and j < 6`: each loop sheds
// the conjunct it proves, and the main part has no condition left.
TEST(LoopPartition, SplitsEachAxisOfATwoAxisPredicate) {
  Buffer b = constBuffer("B", {10, 6});
  Var i0 = makeVar("i_0"), i1 = makeVar("i_1"), j0 = makeVar("j_0"), j1 = makeVar("j_1");
  PrimExpr i = i0 * 4 + i1, j = j0 * 4 + j1;
  Stmt body = ifThenElse(logicalAnd(lt(i, intImm(10)), lt(j, intImm(6))),
                         bufferStore(b, floatImm(1), {i, j}));
  PrimFunc f = makePrimFunc("main", {b}, loop(i0, 3, loop(j0, 2, loop(i1, 4, loop(j1, 4, body)))));
  PrimFunc g = tf::loopPartition(f);
  const std::string s = script(g);
  EXPECT_NE(s.find("    for i_0 in range(2):\n"
                   "        for j_0, i_1, j_1 in T.grid(1, 4, 4):\n"
                   "            B[i_0 * 4 + i_1, j_0 * 4 + j_1] = T.float32(1.0)\n"),
            std::string::npos)
      << s;
  EXPECT_TRUE(sameResults(f, g));
}

// Every `if` that tests a proven bound sheds it, whatever its other conjuncts: the init and the
// update of a reduction split on two axes test the same bound beside different ones. A bound
// proven for the whole loop goes too (VectorizeLoop would otherwise see a per-lane condition).
TEST(LoopPartition, DropsTheBoundFromEveryIfThatTestsIt) {
  Buffer b = constBuffer("B", {10, 8}), c = constBuffer("C", {10, 6});
  Var i0 = makeVar("i_0"), i1 = makeVar("i_1"), j0 = makeVar("j_0"), j1 = makeVar("j_1");
  PrimExpr i = i0 * 4 + i1, j = j0 * 4 + j1;
  Stmt init =
      loop(i1, 4, loop(j1, 4, ifThenElse(lt(i, intImm(10)), bufferStore(b, floatImm(1), {i, j}))));
  Stmt update = loop(i1, 4,
                     loop(j1, 4,
                          ifThenElse(logicalAnd(lt(j, intImm(6)), lt(i, intImm(10))),
                                     bufferStore(c, floatImm(2), {i, j}))));
  PrimFunc f = makePrimFunc("main", {b, c}, loop(i0, 3, loop(j0, 2, seq({init, update}))));
  PrimFunc g = tf::loopPartition(f);
  const std::string s = script(g);
  EXPECT_NE(s.find("    for i_0 in range(2):\n"
                   "        for j_0 in range(1):\n"
                   "            for i_1, j_1 in T.grid(4, 4):\n"
                   "                B[i_0 * 4 + i_1, j_0 * 4 + j_1] = T.float32(1.0)\n"
                   "            for i_1, j_1 in T.grid(4, 4):\n"
                   "                C[i_0 * 4 + i_1, j_0 * 4 + j_1] = T.float32(2.0)\n"),
            std::string::npos)
      << s;
  EXPECT_TRUE(sameResults(f, g));

  // A bound that holds on every iteration is dropped without a boundary part.
  PrimFunc whole = splitWithPredicate(12);
  EXPECT_EQ(script(tf::loopPartition(whole)),
            R"(def main(A: T.Buffer((12,), "float32"), B: T.Buffer((12,), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    for i_0, i_1 in T.grid(3, 4):
        B[i_0 * 4 + i_1] = A[i_0 * 4 + i_1] + T.float32(1.0)
)");
}

TEST(LoopPartition, LeavesSymbolicLoopsAlone) {
  Var n = makeSizeVar("n");
  Buffer a = makeBuffer("A", {n});
  Var i = makeVar("i");
  PrimFunc s =
      makePrimFunc("main", {a},
                   forLoop(i, intImm(0), n, ForKind::kSerial,
                           ifThenElse(lt(i, intImm(3)), bufferStore(a, floatImm(1), {i}))));
  EXPECT_EQ(script(tf::loopPartition(s)), script(s));
}

TEST(LoopPartition, ParallelOuterLoop) {
  PrimFunc f = splitWithPredicate(30, ForKind::kParallel);
  PrimFunc g = tf::loopPartition(f);
  std::string s = script(g);
  EXPECT_NE(s.find("for i_0 in T.parallel(7):"), std::string::npos) << s;
  EXPECT_EQ(s.find("T.parallel(7, 8)"), std::string::npos) << s;  // one value: no loop
  EXPECT_NE(s.find("if i_1 < 2:"), std::string::npos) << s;
  EXPECT_TRUE(sameResults(f, g));
}

// for i in range(4): for j in T.vectorized(8): B[i*8 + j] = A[<index>] * 2 + 1
PrimFunc vectorLoop(const std::function<PrimExpr(const Var&, const Var&)>& readIndex,
                    int64_t aSize = 32) {
  Buffer a = constBuffer("A", {aSize}), b = constBuffer("B", {32});
  Var i = makeVar("i"), j = makeVar("j");
  Stmt body =
      bufferStore(b, bufferLoad(a, {readIndex(i, j)}) * floatImm(2) + floatImm(1), {i * 8 + j});
  return makePrimFunc("main", {a, b}, loop(i, 4, loop(j, 8, body, ForKind::kVectorized)));
}

TEST(VectorizeLoop, ContiguousAccessesBecomeRamps) {
  PrimFunc f = vectorLoop([](const Var& i, const Var& j) { return i * 8 + j; });
  PrimFunc g = tf::vectorizeLoop(f);
  EXPECT_EQ(script(g), R"(def main(A: T.Buffer((32,), "float32"), B: T.Buffer((32,), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    for i in range(4):
        B[i * 8:i * 8 + 8] = A[i * 8:i * 8 + 8] * T.Broadcast(T.float32(2.0), 8) + T.Broadcast(T.float32(1.0), 8)
)");
  EXPECT_TRUE(sameResults(f, g));
}

TEST(VectorizeLoop, StridedAndInvariantLoads) {
  PrimFunc f = vectorLoop([](const Var& i, const Var& j) { return j * 2 + i; }, 32);
  PrimFunc g = tf::vectorizeLoop(f);
  EXPECT_NE(script(g).find("A[i:i + 16:2]"), std::string::npos) << script(g);
  EXPECT_TRUE(sameResults(f, g));
  PrimFunc h = vectorLoop([](const Var& i, const Var&) { return PrimExpr(i); });
  PrimFunc k = tf::vectorizeLoop(h);
  EXPECT_NE(script(k).find("T.Broadcast(A[i] * T.float32(2.0) + T.float32(1.0), 8)"),
            std::string::npos)
      << script(k);
  EXPECT_TRUE(sameResults(h, k));
}

TEST(VectorizeLoop, FallsBackToSerial) {
  // A gather (j * j is not a ramp) has no vector load here: the loop becomes serial.
  PrimFunc f = vectorLoop([](const Var& i, const Var& j) { return j * j; }, 64);
  PrimFunc g = tf::vectorizeLoop(f);
  EXPECT_EQ(script(g), R"(def main(A: T.Buffer((64,), "float32"), B: T.Buffer((32,), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    for i, j in T.grid(4, 8):
        B[i * 8 + j] = A[j * j] * T.float32(2.0) + T.float32(1.0)
)");
  EXPECT_TRUE(sameResults(f, g));
  // A condition that differs per lane, with an else branch.
  Buffer a = constBuffer("A", {8});
  Var j = makeVar("j");
  PrimFunc c = makePrimFunc("main", {a},
                            loop(j, 8,
                                 ifThenElse(lt(j, intImm(3)), bufferStore(a, floatImm(1), {j}),
                                            bufferStore(a, floatImm(2), {j})),
                                 ForKind::kVectorized));
  ASSERT_TRUE(tf::vectorizeLoop(c)->body->as<ForNode>());
  EXPECT_EQ(tf::vectorizeLoop(c)->body->as<ForNode>()->forKind, ForKind::kSerial);
  EXPECT_TRUE(sameResults(c, tf::vectorizeLoop(c)));
}

TEST(VectorizeLoop, PerLaneConditionAroundAStoreIsAMaskedStore) {
  // for j in 0..8 (vectorized): if i < 2 and j < 5: B[j] = A[j + 3] * 2, with A of 8 elements:
  // the lanes j >= 5 would read past A. The scalar conjunct stays a branch; the per-lane one masks
  // the store and the load.
  Buffer a = constBuffer("A", {8}), b = constBuffer("B", {8});
  Var i = makeSizeVar("i"), j = makeVar("j");
  Stmt store = bufferStore(b, bufferLoad(a, {j + intImm(3)}) * floatImm(2), {j});
  Stmt body = ifThenElse(logicalAnd(lt(i, intImm(2)), lt(j, intImm(5))), store);
  PrimFunc f =
      makePrimFunc("main", {a, b}, letStmt(i, intImm(1), loop(j, 8, body, ForKind::kVectorized)));
  PrimFunc g = tf::vectorizeLoop(f);
  EXPECT_EQ(script(g), R"(def main(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    i: T.int32 = 1
    if i < 2:
        B[0:8] = T.if_then_else(T.Ramp(0, 1, 8) < T.Broadcast(5, 8), T.if_then_else(T.Ramp(0, 1, 8) < T.Broadcast(5, 8), A[3:11], T.Broadcast(T.float32(0.0), 8)) * T.Broadcast(T.float32(2.0), 8), B[0:8])
)");
  const auto* masked =
      g->body->as<LetStmtNode>()->body->as<IfThenElseNode>()->thenCase->as<BufferStoreNode>();
  ASSERT_TRUE(masked);
  EXPECT_TRUE(maskedStoreParts(*masked).mask);
  // The evaluator reads and writes only the mask's lanes (A[8..10] would be out of bounds).
  EXPECT_TRUE(sameResults(f, g));
}

TEST(VectorizeLoop, DisabledMakesEveryLoopSerial) {
  PrimFunc f = vectorLoop([](const Var& i, const Var& j) { return i * 8 + j; });
  PrimFunc g = tf::vectorizeLoop(f, /*disable=*/true);
  EXPECT_EQ(script(g), R"(def main(A: T.Buffer((32,), "float32"), B: T.Buffer((32,), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    for i, j in T.grid(4, 8):
        B[i * 8 + j] = A[i * 8 + j] * T.float32(2.0) + T.float32(1.0)
)");
}

// for i in T.parallel(4): for j in range(2): tmp = allocate([extent]); tmp[k] = ...; B[.] = ...
PrimFunc allocInLoop(bool extentUsesLoopVar) {
  Buffer a = constBuffer("A", {8}), b = constBuffer("B", {8});
  Var i = makeVar("i"), j = makeVar("j"), k = makeVar("k");
  Buffer tmp = constBuffer("tmp", {2});
  if (extentUsesLoopVar) tmp = makeBuffer("tmp", {j + 2});
  Stmt body = seq({loop(k, 2, bufferStore(tmp, bufferLoad(a, {i * 2 + k}) * floatImm(3), {k})),
                   bufferStore(b, bufferLoad(tmp, {j}), {i * 2 + j})});
  body = allocate(tmp->data, tmp->dtype, tmp->shape, "global", declBuffer(tmp, body));
  return makePrimFunc("main", {a, b}, loop(i, 4, loop(j, 2, body), ForKind::kParallel));
}

TEST(StorageRewrite, HoistsAllocationToParallelLoopBody) {
  PrimFunc f = allocInLoop(false);
  PrimFunc g = tf::storageRewrite(f);
  EXPECT_EQ(script(g), R"(def main(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    for i in T.parallel(4):
        tmp = T.allocate([2], "float32", "global")
        for j in range(2):
            tmp_1 = T.decl_buffer((2,), data=tmp)
            for k in range(2):
                tmp_1[k] = A[i * 2 + k] * T.float32(3.0)
            B[i * 2 + j] = tmp_1[j]
)");
  EXPECT_TRUE(sameResults(f, g));
  PrimFunc h = allocInLoop(true);  // the size depends on j: stays inside
  EXPECT_EQ(script(tf::storageRewrite(h)), script(h));
}

TEST(HoistIfThenElse, InvariantConditionLeavesInnerLoop) {
  Buffer b = constBuffer("B", {16});
  Var i = makeVar("i"), j = makeVar("j");
  Stmt body = ifThenElse(lt(i, intImm(2)), bufferStore(b, floatImm(1), {i * 4 + j}),
                         bufferStore(b, cast(DataType::float32(), j), {i * 4 + j}));
  PrimFunc f = makePrimFunc("main", {b}, loop(i, 4, loop(j, 4, body)));
  PrimFunc g = tf::hoistIfThenElse(f);
  EXPECT_EQ(script(g), R"(def main(B: T.Buffer((16,), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    for i in range(4):
        if i < 2:
            for j in range(4):
                B[i * 4 + j] = T.float32(1.0)
        else:
            for j in range(4):
                B[i * 4 + j] = T.Cast("float32", j)
)");
  EXPECT_TRUE(sameResults(f, g));
}

PrimFunc unrollCandidate(ForKind kind, int64_t pragmaMaxStep = -1) {
  Buffer b = constBuffer("B", {8});
  Var i = makeVar("i"), j = makeVar("j");
  Stmt inner = forLoop(j, intImm(0), intImm(4), kind,
                       bufferStore(b, cast(DataType::float32(), i + j), {i * 4 + j}));
  if (pragmaMaxStep >= 0)
    inner = attrStmt(i, "pragma_auto_unroll_max_step", intImm(pragmaMaxStep), inner);
  return makePrimFunc("main", {b}, loop(i, 2, inner));
}

TEST(UnrollLoop, UnrolledLoopIsCopiedExplicitly) {
  PrimFunc f = unrollCandidate(ForKind::kUnrolled);
  PrimFunc g = tf::unrollLoop(f);
  EXPECT_EQ(script(g), R"(def main(B: T.Buffer((8,), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    for i in range(2):
        B[i * 4 + 0] = T.Cast("float32", i + 0)
        B[i * 4 + 1] = T.Cast("float32", i + 1)
        B[i * 4 + 2] = T.Cast("float32", i + 2)
        B[i * 4 + 3] = T.Cast("float32", i + 3)
)");
  EXPECT_TRUE(sameResults(f, g));
}

TEST(UnrollLoop, AutoUnrollFollowsMaxStep) {
  // 4 iterations x 1 store fit a max step of 4 (the pragma is consumed), not of 3.
  PrimFunc f = unrollCandidate(ForKind::kSerial, 4);
  PrimFunc g = tf::unrollLoop(f);
  EXPECT_NE(script(g).find("B[i * 4 + 3] = "), std::string::npos) << script(g);
  EXPECT_EQ(script(g).find("pragma"), std::string::npos) << script(g);
  EXPECT_TRUE(sameResults(f, g));
  PrimFunc h = tf::unrollLoop(unrollCandidate(ForKind::kSerial, 3));
  EXPECT_NE(script(h).find("for i, j in T.grid(2, 4):"), std::string::npos) << script(h);
  // Without pragma, TVM's defaults (auto_max_step 0, auto_max_extent 0) unroll nothing.
  PrimFunc d = unrollCandidate(ForKind::kSerial);
  EXPECT_EQ(script(tf::unrollLoop(d)), script(d));
  // auto_max_extent unrolls the inner loop, and then the outer one (its body has no loop left).
  PrimFunc e = tf::unrollLoop(d, {.autoMaxExtent = 4});
  EXPECT_EQ(script(e).find("for"), std::string::npos) << script(e);
  EXPECT_TRUE(sameResults(d, e));
}

TEST(UnrollLoop, NonExplicitOnlyMarks) {
  PrimFunc f = unrollCandidate(ForKind::kSerial);
  PrimFunc g = tf::unrollLoop(f, {.autoMaxExtent = 4, .explicitUnroll = false});
  EXPECT_EQ(script(g), R"(def main(B: T.Buffer((8,), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    for i in T.unroll(2):
        for j in T.unroll(4):
            B[i * 4 + j] = T.Cast("float32", i + j)
)");
}

}  // namespace
}  // namespace tessera::test
