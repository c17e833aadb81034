// Phase-3 passes: RemoveNoOp, RewriteUnsafeSelect, SelectLoadSource, CommonSubexprElimTIR (golden
// before/after and differential checks with tir::evaluate).
#include <gtest/gtest.h>

#include "tir/transform/transform.h"
#include "transform_test_util.h"

namespace tessera::test {
namespace {

using namespace tir;
namespace tf = tir::transform;

TEST(RemoveNoOp, DropsStatementsWithoutEffect) {
  Buffer a = constBuffer("A", {4}), b = constBuffer("B", {4});
  Var i = makeVar("i"), j = makeVar("j"), k = makeVar("k");
  Buffer tmp = constBuffer("tmp", {4});
  Stmt body = seq({
      bufferStore(b, bufferLoad(a, {i}), {i}),
      bufferStore(b, bufferLoad(b, {i}), {i}),            // self-store
      loop(j, 3, evaluate(intImm(0))),                    // empty loop
      ifThenElse(lt(i, intImm(2)), evaluate(intImm(0))),  // empty branch
      loop(k, 0, bufferStore(b, floatImm(1), {i})),       // zero-trip loop
      allocate(tmp->data, tmp->dtype, tmp->shape, "global",
               declBuffer(tmp, evaluate(intImm(0)))),  // unused allocation
  });
  PrimFunc f = makePrimFunc("main", {a, b}, loop(i, 4, body));
  PrimFunc g = tf::removeNoOp(f);
  EXPECT_EQ(script(g), R"(def main(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    for i in range(4):
        B[i] = A[i]
)");
  EXPECT_TRUE(sameResults(f, g));
}

TEST(RemoveNoOp, KeepsExternCalls) {
  Buffer a = constBuffer("A", {4});
  Stmt call = evaluate(tir::call(DataType::int32(), "tir.call_extern", {stringImm("f")}));
  PrimFunc f = makePrimFunc("main", {a}, seq({call, evaluate(intImm(0))}));
  EXPECT_EQ(tf::removeNoOp(f)->body->kind, StmtKind::kEvaluate);
  EXPECT_NE(script(tf::removeNoOp(f)).find("call_extern"), std::string::npos);
}

TEST(RewriteUnsafeSelect, SelectWithLoadBecomesIfThenElse) {
  Buffer a = constBuffer("A", {8}), b = constBuffer("B", {10});
  Var i = makeVar("i");
  // A[i] is out of bounds for i >= 8: only the lazy form may evaluate it.
  Stmt body = bufferStore(b, select(lt(i, intImm(8)), bufferLoad(a, {i}), floatImm(0)), {i});
  Stmt safe = bufferStore(b, select(lt(i, intImm(8)), floatImm(1), floatImm(0)), {i});
  PrimFunc f = makePrimFunc("main", {a, b}, loop(i, 10, seq({safe, body})));
  PrimFunc g = tf::rewriteUnsafeSelect(f);
  EXPECT_EQ(script(g), R"(def main(A: T.Buffer((8,), "float32"), B: T.Buffer((10,), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    for i in range(10):
        B[i] = T.Select(i < 8, T.float32(1.0), T.float32(0.0))
        B[i] = T.if_then_else(i < 8, A[i], T.float32(0.0))
)");
  // Reference: the same program with the guarded read written as an `if` statement.
  Stmt guarded = ifThenElse(lt(i, intImm(8)), bufferStore(b, bufferLoad(a, {i}), {i}),
                            bufferStore(b, floatImm(0), {i}));
  PrimFunc reference = makePrimFunc("main", {a, b}, loop(i, 10, seq({safe, guarded})));
  EXPECT_TRUE(sameResults(reference, g));
}

// The loop of a three-input concatenation along the outer axis: C[c, j] from A (2 rows), B (1 row)
// or D (1 row), each 4 wide.
PrimFunc concatenation(bool alongInnerAxis) {
  Buffer a = constBuffer("A", {8}), b = constBuffer("B", {4}), d = constBuffer("D", {4});
  Buffer c = constBuffer("C", {16});
  Var i = makeVar("i"), j = makeVar("j");
  if (alongInnerAxis) {
    // C[i, j] (4 x 4) from A (4 x 2), B (4 x 1), D (4 x 1): the offsets depend on i.
    PrimExpr value = ifThenElse(
        lt(j, intImm(2)), bufferLoad(a, {i * 2 + j}),
        ifThenElse(lt(j, intImm(3)), bufferLoad(b, {i + j - 2}), bufferLoad(d, {i + j - 3})));
    return makePrimFunc("main", {a, b, d, c},
                        loop(i, 4, loop(j, 4, bufferStore(c, value, {i * 4 + j}))));
  }
  PrimExpr value = ifThenElse(lt(i, intImm(2)), bufferLoad(a, {i * 4 + j}),
                              ifThenElse(lt(i, intImm(3)), bufferLoad(b, {i * 4 + j - 8}),
                                         bufferLoad(d, {i * 4 + j - 12})));
  return makePrimFunc("main", {a, b, d, c},
                      loop(i, 4, loop(j, 4, bufferStore(c, value, {i * 4 + j}))));
}

TEST(SelectLoadSource, ConcatenationReadsThroughOneSelectedPointer) {
  PrimFunc f = concatenation(/*alongInnerAxis=*/false);
  PrimFunc g = tf::selectLoadSource(f);
  EXPECT_EQ(
      script(g),
      R"(def main(A: T.Buffer((8,), "float32"), B: T.Buffer((4,), "float32"), D: T.Buffer((4,), "float32"), C: T.Buffer((16,), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    for i, j in T.grid(4, 4):
        concat_src_1 = T.Buffer((8,), data=concat_src)
        C[i * 4 + j] = T.Let(concat_src_1[i * 4 + j + T.Select(i < 2, 0, T.Select(i < 3, -8, -12))], where={concat_src: T.Select(i < 2, A.data, T.Select(i < 3, B.data, D.data))})
)");
  EXPECT_TRUE(sameResults(f, g));
}

TEST(SelectLoadSource, LeavesOffsetsThatVaryAndNonLoadBranches) {
  // Along the inner axis the inputs' indices differ by multiples of i: no constant offset.
  PrimFunc inner = concatenation(/*alongInnerAxis=*/true);
  EXPECT_EQ(script(tf::selectLoadSource(inner)), script(inner));
  // A padded read (one branch a constant) is not a choice between buffers.
  Buffer a = constBuffer("A", {8}), b = constBuffer("B", {10});
  Var i = makeVar("i");
  PrimFunc padded = makePrimFunc(
      "main", {a, b},
      loop(i, 10,
           bufferStore(b, ifThenElse(lt(i, intImm(8)), bufferLoad(a, {i}), floatImm(0)), {i})));
  EXPECT_EQ(script(tf::selectLoadSource(padded)), script(padded));
}

TEST(CommonSubexprElim, SharesRepeatedIndexArithmetic) {
  Buffer a = constBuffer("A", {40}), b = constBuffer("B", {40});
  Var i = makeVar("i"), j = makeVar("j");
  PrimExpr base = i * 8 + j;
  Stmt body = bufferStore(b, bufferLoad(a, {base}) + bufferLoad(a, {base + 1}), {i * 8 + j});
  PrimFunc f = makePrimFunc("main", {a, b}, loop(i, 4, loop(j, 8, body)));
  PrimFunc g = tf::commonSubexprElim(f);
  EXPECT_EQ(script(g), R"(def main(A: T.Buffer((40,), "float32"), B: T.Buffer((40,), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    for i, j in T.grid(4, 8):
        cse_var_1: T.int32 = i * 8 + j
        B[cse_var_1] = A[cse_var_1] + A[cse_var_1 + 1]
)");
  EXPECT_TRUE(sameResults(f, g));
}

}  // namespace
}  // namespace tessera::test
