// Phase-1 passes on loop programs: Simplify, FlattenBuffer, NarrowDataType (golden before/after
// and differential checks with tir::evaluate).
#include <gtest/gtest.h>

#include "tir/transform/transform.h"
#include "transform_test_util.h"

namespace tessera::test {
namespace {

using namespace tir;
namespace tf = tir::transform;

TEST(Simplify, UsesLoopBoundsForIndicesAndConditions) {
  Buffer a = constBuffer("A", {8}), b = constBuffer("B", {8});
  Var i = makeVar("i"), j = makeVar("j");
  PrimExpr idx = floordiv(i * 4 + j, intImm(4));
  Stmt body = ifThenElse(lt(i, intImm(8)), bufferStore(b, bufferLoad(a, {idx}), {i}),
                         bufferStore(b, floatImm(0), {i}));
  body = seq({body, ifThenElse(ge(i, intImm(8)), bufferStore(b, floatImm(1), {i}))});
  PrimFunc f = makePrimFunc("main", {a, b}, loop(i, 8, loop(j, 4, body)));
  PrimFunc g = tf::simplify(f);
  EXPECT_EQ(script(g), R"(def main(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    for i, j in T.grid(8, 4):
        B[i] = A[i]
)");
  EXPECT_TRUE(sameResults(f, g));
}

TEST(Simplify, UsesBranchConditionAsFact) {
  Buffer a = constBuffer("A", {16}), b = constBuffer("B", {16});
  Var i = makeVar("i");
  Stmt inner = ifThenElse(lt(i, intImm(10)), bufferStore(b, bufferLoad(a, {i}), {i}));
  PrimFunc f = makePrimFunc(
      "main", {a, b},
      loop(i, 16, ifThenElse(lt(i, intImm(5)), inner, bufferStore(b, floatImm(2), {i}))));
  PrimFunc g = tf::simplify(f);
  EXPECT_EQ(script(g), R"(def main(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    for i in range(16):
        if i < 5:
            B[i] = A[i]
        else:
            B[i] = T.float32(2.0)
)");
  EXPECT_TRUE(sameResults(f, g));
}

TEST(FlattenBuffer, RowMajorViewsShareData) {
  Buffer a = constBuffer("A", {2, 3, 4}), b = constBuffer("B", {24});
  Var i = makeVar("i"), j = makeVar("j"), k = makeVar("k");
  Stmt body = bufferStore(b, bufferLoad(a, {i, j, k}) * floatImm(2), {i * 12 + j * 4 + k});
  PrimFunc f = makePrimFunc("main", {a, b}, loop(i, 2, loop(j, 3, loop(k, 4, body))));
  PrimFunc g = tf::flattenBuffer(f);
  EXPECT_EQ(script(g),
            R"(def main(A: T.Buffer((2, 3, 4), "float32"), B: T.Buffer((24,), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    for i, j, k in T.grid(2, 3, 4):
        A_1 = T.Buffer((24,), data=A.data)
        B[i * 12 + j * 4 + k] = A_1[i * 12 + j * 4 + k] * T.float32(2.0)
)");
  // The view shares the parameter's data variable.
  const auto* store =
      g->body->as<ForNode>()->body->as<ForNode>()->body->as<ForNode>()->body->as<BufferStoreNode>();
  ASSERT_NE(store, nullptr);
  const auto* load = store->value->as<BinaryNode>()->a->as<BufferLoadNode>();
  EXPECT_EQ(load->buffer->data, a->data);
  EXPECT_NE(load->buffer, a);
  EXPECT_TRUE(sameResults(f, g));
}

TEST(FlattenBuffer, StridesAndElemOffsetAndAllocations) {
  Buffer a = constBuffer("A", {4, 4});
  auto view = std::make_shared<BufferNode>(*constBuffer("S", {2, 3}));
  view->strides = {intImm(8), intImm(1)};
  view->elemOffset = intImm(5);
  Buffer tmp = constBuffer("tmp", {2, 3});
  Var i = makeVar("i"), j = makeVar("j");
  Stmt body = seq({bufferStore(view, floatImm(1), {i, j}), bufferStore(tmp, floatImm(2), {i, j})});
  body = allocate(tmp->data, tmp->dtype, tmp->shape, "global",
                  declBuffer(tmp, loop(i, 2, loop(j, 3, body))));
  PrimFunc g = tf::flattenBuffer(makePrimFunc("main", {a}, declBuffer(view, body)));
  EXPECT_EQ(script(g), R"(def main(A: T.Buffer((4, 4), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    S = T.handle()
    S_1 = T.decl_buffer((16,), data=S)
    tmp = T.decl_buffer((6,))
    for i, j in T.grid(2, 3):
        S_1[i * 8 + j + 5] = T.float32(1.0)
        tmp[i * 3 + j] = T.float32(2.0)
)");
}

TEST(FlattenBuffer, SymbolicShape) {
  Var m = makeSizeVar("m", DataType::int64()), n = makeSizeVar("n", DataType::int64());
  Buffer a = makeBuffer("A", {m, n}), b = makeBuffer("B", {m, n});
  Var i = makeVar("i", DataType::int64()), j = makeVar("j", DataType::int64());
  Stmt body = bufferStore(b, bufferLoad(a, {i, j}) + floatImm(1), {i, j});
  PrimFunc f =
      makePrimFunc("main", {a, b},
                   forLoop(i, intImm(0, DataType::int64()), m, ForKind::kSerial,
                           forLoop(j, intImm(0, DataType::int64()), n, ForKind::kSerial, body)));
  PrimFunc g = tf::flattenBuffer(f);
  EXPECT_NE(script(g).find("B_1[i * n + j] = A_1[i * n + j] + T.float32(1.0)"), std::string::npos)
      << script(g);
  EXPECT_TRUE(sameResults(f, g, 2, {{3, 5}, {3, 5}}));
}

TEST(NarrowDataType, Int64LoopsThatFitBecomeInt32) {
  Buffer a = makeBuffer("A", {intImm(64, DataType::int64())});
  Buffer b = makeBuffer("B", {intImm(64, DataType::int64())});
  Var i = makeVar("i", DataType::int64()), j = makeVar("j", DataType::int64());
  PrimExpr idx = i * 8 + j;
  Stmt body = bufferStore(b, bufferLoad(a, {idx}) + cast(DataType::float32(), idx), {idx});
  PrimFunc f = makePrimFunc(
      "main", {a, b},
      forLoop(i, intImm(0, DataType::int64()), intImm(8, DataType::int64()), ForKind::kSerial,
              forLoop(j, intImm(0, DataType::int64()), intImm(8, DataType::int64()),
                      ForKind::kSerial, body)));
  PrimFunc g = tf::narrowDataType(f, 32);
  EXPECT_EQ(
      script(g),
      R"(def main(A: T.Buffer((T.int64(64),), "float32"), B: T.Buffer((T.int64(64),), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    for i, j in T.grid(8, 8):
        B[i * 8 + j] = A[i * 8 + j] + T.Cast("float32", i * 8 + j)
)");
  const auto* loop = g->body->as<ForNode>();
  EXPECT_EQ(loop->loopVar->dtype, DataType::int32());
  EXPECT_TRUE(sameResults(f, g));
}

TEST(NarrowDataType, SymbolicExtentStaysInt64) {
  Var n = makeSizeVar("n", DataType::int64());
  Buffer a = makeBuffer("A", {n}), b = makeBuffer("B", {n});
  Var i = makeVar("i", DataType::int64());
  PrimFunc f = makePrimFunc("main", {a, b},
                            forLoop(i, intImm(0, DataType::int64()), n, ForKind::kSerial,
                                    bufferStore(b, bufferLoad(a, {i}), {i})));
  PrimFunc g = tf::narrowDataType(f, 32);
  EXPECT_EQ(g->body->as<ForNode>()->loopVar->dtype, DataType::int64());
  EXPECT_EQ(script(g), script(f));
}

}  // namespace
}  // namespace tessera::test
