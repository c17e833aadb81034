// The reference evaluator against hand-written loops: blocks with init and predicates, lowered
// programs with allocations, flat views and vectors, exact integer and float32 semantics, symbolic
// shapes, and the errors a caller can cause.
#include <gtest/gtest.h>

#include <cmath>

#include "test_util.h"
#include "tir/eval/eval.h"
#include "tir_examples.h"

namespace tessera::tir {
namespace {

using examples::pointRegion;
using examples::rootBlock;
using test::diagnosticOf;
using test::randomTensor;

PrimExpr c(int64_t v) {
  return intImm(v);
}

// Reference matmul + relu with float32 arithmetic in the same order as the TIR programs.
NDArray matmulReluRef(const NDArray& a, const NDArray& b, int64_t n) {
  NDArray out = NDArray::empty({n, n}, DataType::float32());
  const float* pa = a.as<float>();
  const float* pb = b.as<float>();
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      float acc = 0.0f;
      for (int64_t k = 0; k < n; ++k) {
        float prod = pa[i * n + k] * pb[k * n + j];
        acc = acc + prod;
      }
      out.as<float>()[i * n + j] = std::max(acc, 0.0f);
    }
  return out;
}

TEST(TirEval, MatmulReluMatchesHandLoopBitForBit) {
  NDArray a = randomTensor({128, 128}, DataType::float32(), 1);
  NDArray b = randomTensor({128, 128}, DataType::float32(), 2);
  NDArray out = NDArray::empty({128, 128}, DataType::float32());
  evaluate(examples::matmulRelu(128), {a, b, out});
  EXPECT_TRUE(out.bitwiseEqual(matmulReluRef(a, b, 128)));
}

TEST(TirEval, DecomposedReductionMatchesHandLoop) {
  NDArray a = randomTensor({32, 32}, DataType::float32(), 3);
  NDArray b = randomTensor({32, 32}, DataType::float32(), 4);
  NDArray out = NDArray::empty({32, 32}, DataType::float32());
  for (int64_t e = 0; e < out.numel(); ++e) out.setFloat(e, 99.0);  // C_init must overwrite
  evaluate(examples::decomposedMatmul(32), {a, b, out});
  for (int64_t i = 0; i < 32; ++i)
    for (int64_t j = 0; j < 32; ++j) {
      float acc = 0.0f;
      for (int64_t k = 0; k < 32; ++k)
        acc = acc + a.as<float>()[i * 32 + k] * b.as<float>()[k * 32 + j];
      ASSERT_EQ(out.as<float>()[i * 32 + j], acc) << i << "," << j;
    }
}

TEST(TirEval, LoweredProgramWithAllocateViewsAndVectorsMatches) {
  NDArray a = randomTensor({64, 64}, DataType::float32(), 5);
  NDArray b = randomTensor({64, 64}, DataType::float32(), 6);
  NDArray d = NDArray::empty({64, 64}, DataType::float32());
  evaluate(examples::loweredMatmulRelu(), {a, b, d});
  EXPECT_TRUE(d.bitwiseEqual(matmulReluRef(a, b, 64)));
}

TEST(TirEval, InitRunsOnlyAtTheFirstReductionIteration) {
  // out[i] = 10 + sum_{k in [2, 6)} A[i, k]: the reduce domain starts at 2, init sets 10.
  Buffer A = makeBuffer("A", {c(3), c(8)}, DataType::int32());
  Buffer out = makeBuffer("out", {c(3)}, DataType::int32());
  Var i = makeVar("i"), k = makeVar("k"), vi = makeVar("vi"), vk = makeVar("vk");
  auto b = std::make_shared<BlockNode>();
  b->name = "sum";
  b->iterVars = {IterVar{Range{c(0), c(3)}, vi, IterVarType::kDataPar, ""},
                 IterVar{Range{c(2), c(4)}, vk, IterVarType::kCommReduce, ""}};
  b->init = bufferStore(out, c(10), {vi});
  b->body = bufferStore(out, bufferLoad(out, {vi}) + bufferLoad(A, {vi, vk}), {vi});
  Stmt loops =
      forLoop(i, c(0), c(3), ForKind::kSerial,
              forLoop(k, c(2), c(4), ForKind::kSerial, blockRealize({i, k}, boolImm(true), b)));
  NDArray a = randomTensor({3, 8}, DataType::int32(), 7, -100, 100);
  NDArray o = NDArray::empty({3}, DataType::int32());
  evaluate(makePrimFunc("main", {A, out}, rootBlock({}, loops)), {a, o});
  for (int64_t r = 0; r < 3; ++r) {
    int64_t want = 10;
    for (int64_t kk = 2; kk < 6; ++kk) want += a.getInt(r * 8 + kk);
    EXPECT_EQ(o.getInt(r), want);
  }
}

// B[vi] = A[vi] * 2 over loops 13 x 10 bound as i_0 * 10 + i_1 (split of 128 by 10).
PrimFunc splitScale(bool withPredicate) {
  Buffer A = makeBuffer("A", {c(128)}), B = makeBuffer("B", {c(128)});
  Var i0 = makeVar("i_0"), i1 = makeVar("i_1"), vi = makeVar("vi");
  auto b = std::make_shared<BlockNode>();
  b->name = "B";
  b->iterVars = {IterVar{Range{c(0), c(128)}, vi, IterVarType::kDataPar, ""}};
  b->body = bufferStore(B, bufferLoad(A, {vi}) * floatImm(2.0), {vi});
  PrimExpr pred = withPredicate ? lt(i0 * 10 + i1, c(128)) : boolImm(true);
  Stmt loops = loopNest({i0, i1}, {c(13), c(10)}, blockRealize({i0 * 10 + i1}, pred, b));
  return makePrimFunc("main", {A, B}, rootBlock({}, loops));
}

TEST(TirEval, PredicateGuardsTheTailOfASplit) {
  NDArray a = randomTensor({128}, DataType::float32(), 8);
  NDArray out = NDArray::empty({128}, DataType::float32());
  evaluate(splitScale(true), {a, out});
  for (int64_t e = 0; e < 128; ++e) EXPECT_EQ(out.getFloat(e), a.getFloat(e) * 2);
  Diagnostic d = diagnosticOf([&] { evaluate(splitScale(false), {a, out}); });
  EXPECT_NE(d.message.find("block B: iter var vi is bound to 128, outside its domain [0, 128)"),
            std::string::npos)
      << d.message;
}

TEST(TirEval, VectorRampBroadcastAndVectorLet) {
  // out[r*4 : r*4+4] = A[r*4 : r*4+4] + broadcast(1.5) for r in [0, 4), through a vector let.
  Buffer A = makeBuffer("A", {c(16)}), out = makeBuffer("out", {c(16)});
  Var r = makeVar("r");
  Var v = makeVar("v", DataType::float32().withLanes(4));
  PrimExpr idx = ramp(r * 4, c(1), 4);
  Stmt body = loopNest({r}, {c(4)},
                       letStmt(v, bufferLoad(A, {idx}),
                               bufferStore(out, PrimExpr(v) + broadcast(floatImm(1.5), 4), {idx})));
  NDArray a = randomTensor({16}, DataType::float32(), 9);
  NDArray o = NDArray::empty({16}, DataType::float32());
  evaluate(makePrimFunc("main", {A, out}, body), {a, o});
  for (int64_t e = 0; e < 16; ++e) EXPECT_EQ(o.as<float>()[e], a.as<float>()[e] + 1.5f);
  // Strided ramp: reverse the lanes through stride -1.
  Stmt rev = bufferStore(out, bufferLoad(A, {ramp(c(15), c(-1), 16)}), {ramp(c(0), c(1), 16)});
  evaluate(makePrimFunc("main", {A, out}, rev), {a, o});
  for (int64_t e = 0; e < 16; ++e) EXPECT_EQ(o.as<float>()[e], a.as<float>()[15 - e]);
}

// Evaluates `value` (over no inputs) into a one-element tensor of its dtype.
NDArray scalarOf(const PrimExpr& value) {
  Buffer out = makeBuffer("out", {c(1)}, value->dtype);
  NDArray o = NDArray::empty({1}, value->dtype);
  evaluate(makePrimFunc("main", {out}, bufferStore(out, value, {c(0)})), {o});
  return o;
}

// A binary node built directly, bypassing constant folding so the evaluator does the arithmetic.
PrimExpr raw(BinaryOp op, PrimExpr a, PrimExpr b) {
  DataType t = isComparison(op) ? DataType::boolType() : a->dtype;
  return std::make_shared<BinaryNode>(op, t, a, b);
}

TEST(TirEval, IntegersWrapToTheirWidth) {
  auto i8 = [](int64_t v) { return intImm(v, DataType::int8()); };
  auto u8 = [](int64_t v) { return intImm(v, DataType::uint8()); };
  EXPECT_EQ(scalarOf(raw(BinaryOp::kAdd, i8(100), i8(100))).getInt(0), -56);
  EXPECT_EQ(scalarOf(raw(BinaryOp::kAdd, u8(200), u8(100))).getInt(0), 44);
  EXPECT_EQ(scalarOf(raw(BinaryOp::kMul, c(65536), c(65536))).getInt(0), 0);
  EXPECT_EQ(scalarOf(raw(BinaryOp::kSub, c(INT32_MIN), c(1))).getInt(0), INT32_MAX);
  EXPECT_EQ(scalarOf(raw(BinaryOp::kLT, u8(200), u8(100))).getInt(0), 0);  // unsigned compare
  EXPECT_EQ(scalarOf(cast(DataType::int8(), c(300))).getInt(0), 44);
  EXPECT_EQ(scalarOf(cast(DataType::int32(), floatImm(-2.7))).getInt(0), -2);
  EXPECT_EQ(scalarOf(cast(DataType::uint8(), c(-1))).getInt(0), 255);
}

TEST(TirEval, TruncatingAndFlooringDivision) {
  EXPECT_EQ(scalarOf(raw(BinaryOp::kDiv, c(-7), c(2))).getInt(0), -3);
  EXPECT_EQ(scalarOf(raw(BinaryOp::kMod, c(-7), c(2))).getInt(0), -1);
  EXPECT_EQ(scalarOf(raw(BinaryOp::kFloorDiv, c(-7), c(2))).getInt(0), -4);
  EXPECT_EQ(scalarOf(raw(BinaryOp::kFloorMod, c(-7), c(2))).getInt(0), 1);
  EXPECT_EQ(scalarOf(raw(BinaryOp::kFloorMod, c(7), c(-2))).getInt(0), -1);
  Diagnostic d = diagnosticOf([&] { scalarOf(raw(BinaryOp::kFloorDiv, c(1), c(0))); });
  EXPECT_NE(d.message.find("division by zero"), std::string::npos) << d.message;
}

TEST(TirEval, Float32IsRoundedAtEveryOperation) {
  PrimExpr one = floatImm(1.0), tiny = floatImm(1e-8);
  // In double, (1 + 1e-8) - 1 is about 1e-8; in float32 the sum rounds back to 1.
  EXPECT_EQ(scalarOf(raw(BinaryOp::kSub, raw(BinaryOp::kAdd, one, tiny), one)).getFloat(0), 0.0);
  float a = 0.1f, b = 0.2f, q = 3.0f;
  float want = (a + b) / q;
  NDArray got =
      scalarOf(raw(BinaryOp::kDiv, raw(BinaryOp::kAdd, floatImm(a), floatImm(b)), floatImm(q)));
  EXPECT_EQ(got.as<float>()[0], want);
  // float64 keeps the precision.
  PrimExpr one64 = floatImm(1.0, DataType::float64()), tiny64 = floatImm(1e-8, DataType::float64());
  EXPECT_NEAR(scalarOf(raw(BinaryOp::kSub, raw(BinaryOp::kAdd, one64, tiny64), one64)).getFloat(0),
              1e-8, 1e-15);
}

TEST(TirEval, Intrinsics) {
  auto f = [](double v) { return floatImm(v); };
  auto call1 = [](const char* op, PrimExpr x) { return call(x->dtype, op, {x}); };
  EXPECT_FLOAT_EQ(scalarOf(call1("tir.exp", f(1.0))).getFloat(0), std::exp(1.0f));
  EXPECT_FLOAT_EQ(scalarOf(call1("tir.sigmoid", f(0.5))).getFloat(0), 1 / (1 + std::exp(-0.5f)));
  EXPECT_FLOAT_EQ(scalarOf(call1("tir.erf", f(0.3))).getFloat(0), std::erf(0.3f));
  EXPECT_FLOAT_EQ(scalarOf(call1("tir.rsqrt", f(4.0))).getFloat(0), 0.5f);
  // round matches the graph-level reference (half away from zero); nearbyint ties to even.
  EXPECT_EQ(scalarOf(call1("tir.round", f(2.5))).getFloat(0), 3.0);
  EXPECT_EQ(scalarOf(call1("tir.round", f(-2.5))).getFloat(0), -3.0);
  EXPECT_EQ(scalarOf(call1("tir.nearbyint", f(2.5))).getFloat(0), 2.0);
  EXPECT_EQ(scalarOf(call1("tir.trunc", f(-2.5))).getFloat(0), -2.0);
  EXPECT_EQ(scalarOf(call(DataType::float32(), "tir.fma", {f(2), f(3), f(4)})).getFloat(0), 10.0);
  EXPECT_EQ(scalarOf(call(DataType::int32(), "tir.shift_right", {c(-16), c(2)})).getInt(0), -4);
  EXPECT_EQ(scalarOf(call(DataType::int32(), "tir.shift_left", {c(3), c(4)})).getInt(0), 48);
  EXPECT_EQ(scalarOf(call(DataType::int32(), "tir.bitwise_xor", {c(6), c(3)})).getInt(0), 5);
  EXPECT_EQ(scalarOf(call(DataType::float32(), "tir.pow", {f(2), f(0.5)})).getFloat(0),
            std::sqrt(2.0f));
  EXPECT_EQ(scalarOf(call(DataType::int32(), "tir.clz", {c(1)})).getInt(0), 31);
  EXPECT_EQ(scalarOf(call(DataType::int32(), "tir.popcount", {c(255)})).getInt(0), 8);
  EXPECT_EQ(scalarOf(call(DataType::boolType(), "tir.isnan", {f(NAN)})).getInt(0), 1);
  EXPECT_EQ(scalarOf(select(boolImm(true), c(1), c(2))).getInt(0), 1);
  EXPECT_THROW(scalarOf(call(DataType::float32(), "tir.call_extern", {stringImm("f")})),
               DiagnosticError);
}

// Integer power is exact in the type and wraps, like the graph-level reference kernel.
TEST(TirEval, IntegerPowerIsExact) {
  auto pow = [](PrimExpr a, PrimExpr b) { return scalarOf(call(a->dtype, "tir.pow", {a, b})); };
  EXPECT_EQ(pow(c(3), c(13)).getInt(0), 1594323);
  EXPECT_EQ(pow(c(-2), c(31)).getInt(0), INT32_MIN);
  EXPECT_EQ(pow(c(7), c(0)).getInt(0), 1);
  EXPECT_EQ(pow(c(0), c(0)).getInt(0), 1);
  // 3^40 wraps to its low 32 bits.
  EXPECT_EQ(pow(c(3), c(40)).getInt(0), 689956897);
  EXPECT_EQ(pow(c(2), c(-1)).getInt(0), 0);
  EXPECT_EQ(pow(c(1), c(-5)).getInt(0), 1);
  EXPECT_EQ(pow(c(-1), c(-5)).getInt(0), -1);
  EXPECT_EQ(pow(c(-1), c(-4)).getInt(0), 1);
  const DataType u8 = DataType::uint8();
  EXPECT_EQ(pow(intImm(3, u8), intImm(5, u8)).getInt(0), 243);
  EXPECT_EQ(pow(intImm(3, u8), intImm(200, u8)).getInt(0), 161);  // 3^200 mod 256
  const DataType i64 = DataType::int64();
  EXPECT_EQ(pow(intImm(10, i64), intImm(18, i64)).getInt(0), 1000000000000000000);
}

TEST(TirEval, IfThenElseIsLazyButSelectIsNot) {
  // out[i] = A[i - 1] if i >= 1 else 0: the guarded read would be out of bounds at i = 0.
  Buffer A = makeBuffer("A", {c(4)}), out = makeBuffer("out", {c(4)});
  Var i = makeVar("i");
  PrimExpr guarded = bufferLoad(A, {i - 1});
  auto run = [&](PrimExpr value) {
    NDArray a = randomTensor({4}, DataType::float32(), 10);
    NDArray o = NDArray::empty({4}, DataType::float32());
    evaluate(makePrimFunc("main", {A, out}, loopNest({i}, {c(4)}, bufferStore(out, value, {i}))),
             {a, o});
    return std::make_pair(a, o);
  };
  auto [a, o] = run(ifThenElse(ge(i, c(1)), guarded, floatImm(0.0)));
  EXPECT_EQ(o.getFloat(0), 0.0);
  for (int64_t e = 1; e < 4; ++e) EXPECT_EQ(o.getFloat(e), a.getFloat(e - 1));
  Diagnostic d = diagnosticOf([&] { run(select(ge(i, c(1)), guarded, floatImm(0.0))); });
  EXPECT_EQ(d.code, "tir_eval_oob");
  EXPECT_NE(d.message.find("out-of-bounds read of buffer A[-1]"), std::string::npos) << d.message;
}

TEST(TirEval, SymbolicShapesWithTwoSizes) {
  PrimFunc f = examples::symbolicRowMax();
  for (int64_t n : {3, 7}) {
    NDArray x = randomTensor({n, 4}, DataType::float32(), static_cast<uint64_t>(n));
    NDArray red = NDArray::empty({n}, DataType::float32());
    evaluate(f, {x, red});
    for (int64_t r = 0; r < n; ++r) {
      float want = x.as<float>()[r * 4];
      for (int64_t k = 1; k < 4; ++k) want = std::max(want, x.as<float>()[r * 4 + k]);
      EXPECT_EQ(red.as<float>()[r], want);
    }
  }
  // The second occurrence of n is a constraint.
  NDArray x = randomTensor({3, 4}, DataType::float32(), 1);
  NDArray bad = NDArray::empty({5}, DataType::float32());
  Diagnostic d = diagnosticOf([&] { evaluate(f, {x, bad}); });
  EXPECT_NE(d.message.find("argument 1 (X_red): dimension 0 is 5 but the function needs 3"),
            std::string::npos)
      << d.message;
}

TEST(TirEval, BlockAllocationsAndMatchBufferViews) {
  // For each row r: a block-local tmp[4] gets A[r, :] * 2 through a match_buffer view of row r,
  // then out[r] = sum(tmp).
  Buffer A = makeBuffer("A", {c(3), c(4)}), out = makeBuffer("out", {c(3)});
  Buffer tmp = makeBuffer("tmp", {c(4)});
  Buffer row = makeBuffer("row", {c(4)});
  Var r = makeVar("r"), vr = makeVar("vr"), k = makeVar("k"), k2 = makeVar("k2");
  auto b = std::make_shared<BlockNode>();
  b->name = "rowsum";
  b->iterVars = {IterVar{Range{c(0), c(3)}, vr, IterVarType::kDataPar, ""}};
  b->allocBuffers = {tmp};
  b->matchBuffers = {MatchBufferRegion{row, BufferRegion{A, {Range{vr, c(1)}, Range{c(0), c(4)}}}}};
  b->body = seq({loopNest({k}, {c(4)}, bufferStore(tmp, bufferLoad(row, {k}) * floatImm(2.0), {k})),
                 bufferStore(out, floatImm(0.0), {vr}),
                 loopNest({k2}, {c(4)},
                          bufferStore(out, bufferLoad(out, {vr}) + bufferLoad(tmp, {k2}), {vr}))});
  Stmt loops = loopNest({r}, {c(3)}, blockRealize({r}, boolImm(true), b));
  NDArray a = randomTensor({3, 4}, DataType::float32(), 11);
  NDArray o = NDArray::empty({3}, DataType::float32());
  evaluate(makePrimFunc("main", {A, out}, rootBlock({}, loops)), {a, o});
  for (int64_t i = 0; i < 3; ++i) {
    float acc = 0.0f;
    for (int64_t j = 0; j < 4; ++j) acc = acc + a.as<float>()[i * 4 + j] * 2.0f;
    EXPECT_EQ(o.as<float>()[i], acc);
  }
}

TEST(TirEval, StridedBlockAllocationSpansItsPaddedRows) {
  // tmp (4, 4) with padded strides (6, 1), as storage_align leaves it: out = A + 1 through tmp.
  Buffer A = makeBuffer("A", {c(4), c(4)}), out = makeBuffer("out", {c(4), c(4)});
  auto tmp = std::make_shared<BufferNode>(*makeBuffer("tmp", {c(4), c(4)}));
  tmp->strides = {c(6), c(1)};
  Var i = makeVar("i"), j = makeVar("j"), i2 = makeVar("i"), j2 = makeVar("j");
  Stmt write = loopNest({i, j}, {c(4), c(4)},
                        bufferStore(tmp, bufferLoad(A, {i, j}) + floatImm(1.0), {i, j}));
  Stmt read =
      loopNest({i2, j2}, {c(4), c(4)}, bufferStore(out, bufferLoad(tmp, {i2, j2}), {i2, j2}));
  NDArray a = randomTensor({4, 4}, DataType::float32(), 12);
  NDArray o = NDArray::empty({4, 4}, DataType::float32());
  evaluate(makePrimFunc("main", {A, out}, rootBlock({tmp}, seq({write, read}))), {a, o});
  for (int64_t e = 0; e < 16; ++e) EXPECT_EQ(o.as<float>()[e], a.as<float>()[e] + 1.0f);
}

TEST(TirEval, ArgumentErrors) {
  PrimFunc f = examples::matmulRelu(8);
  NDArray a = randomTensor({8, 8}, DataType::float32(), 1);
  NDArray wrongType = NDArray::empty({8, 8}, DataType::int32());
  NDArray wrongShape = NDArray::empty({8, 9}, DataType::float32());
  Diagnostic d = diagnosticOf([&] { evaluate(f, {a, wrongType, a}); });
  EXPECT_EQ(d.code, "tir_eval_args");
  EXPECT_NE(d.message.find("argument 1 (B): expected dtype float32 but got int32"),
            std::string::npos)
      << d.message;
  d = diagnosticOf([&] { evaluate(f, {a, a, wrongShape}); });
  EXPECT_NE(d.message.find("argument 2 (relu): dimension 1 is 9 but the function needs 8"),
            std::string::npos)
      << d.message;
  d = diagnosticOf([&] { evaluate(f, {a, a}); });
  EXPECT_NE(d.message.find("expects 3 tensor arguments but got 2"), std::string::npos);
  d = diagnosticOf([&] { evaluate(f, {a, a, NDArray::empty({8}, DataType::float32())}); });
  EXPECT_NE(d.message.find("expected 2 dimensions"), std::string::npos) << d.message;
}

TEST(TirEval, OutOfBoundsWriteNamesBufferAndIndices) {
  Buffer A = makeBuffer("A", {c(4), c(4)});
  Var i = makeVar("i");
  Stmt body = loopNest({i}, {c(5)}, bufferStore(A, floatImm(1.0), {c(1), i}));
  NDArray a = NDArray::empty({4, 4}, DataType::float32());
  Diagnostic d = diagnosticOf([&] { evaluate(makePrimFunc("main", {A}, body), {a}); });
  EXPECT_EQ(d.code, "tir_eval_oob");
  EXPECT_EQ(d.message,
            "out-of-bounds write of buffer A[1, 4]: index 4 of dimension 1 is outside [0, 4)");
}

TEST(TirEval, AssertFailureIsADiagnostic) {
  Buffer A = makeBuffer("A", {c(1)});
  Stmt body = assertStmt(boolImm(false), "A must be positive", bufferStore(A, floatImm(1), {c(0)}));
  NDArray a = NDArray::empty({1}, DataType::float32());
  Diagnostic d = diagnosticOf([&] { evaluate(makePrimFunc("main", {A}, body), {a}); });
  EXPECT_EQ(d.message, "assertion failed: A must be positive");
}

}  // namespace
}  // namespace tessera::tir
