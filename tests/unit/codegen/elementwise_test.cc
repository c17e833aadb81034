// Compiled scalar and vector expressions against the reference evaluator: float and integer
// arithmetic, floor division/modulo on negative operands, casts, select/if_then_else, vector
// ramps and broadcasts, and a reduction.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <regex>

#include "codegen_test_util.h"
#include "support/float16.h"
#include "tir/printer/printer.h"
#include "tir/script/parser.h"
#include "tir/transform/lower.h"
#include "tir/transform/transform.h"

namespace tessera::codegen::test {
namespace {

using tessera::test::randomTensor;

TEST(CodegenElementwise, FloatArithmetic2D) {
  Buffer a = makeBuffer("A", {intImm(7), intImm(9)});
  Buffer b = makeBuffer("B", {intImm(7), intImm(9)});
  Buffer c = makeBuffer("C", {intImm(7), intImm(9)});
  Buffer af = flat(a), bf = flat(b), cf = flat(c);
  Stmt body = loop("i", 7, [&](Var i) {
    return loop("j", 9, [&](Var j) {
      PrimExpr idx = i * 9 + PrimExpr(j);
      PrimExpr x = bufferLoad(af, {idx});
      PrimExpr y = bufferLoad(bf, {idx});
      PrimExpr v = (x + y * floatImm(2.5)) - truncdiv(x, y + floatImm(3.0)) + max(x, y) * min(x, y);
      return bufferStore(cf, v, {idx});
    });
  });
  PrimFunc f = makePrimFunc("arith", {a, b, c}, body);
  EXPECT_TRUE(matchesEvaluator(f, {randomTensor({7, 9}, DataType::float32(), 1),
                                   randomTensor({7, 9}, DataType::float32(), 2),
                                   NDArray::empty({7, 9}, DataType::float32())}));
}

// Multi-dimensional accesses that were not flattened are linearized row-major by codegen.
TEST(CodegenElementwise, UnflattenedAccessesAreRowMajor) {
  Buffer a = makeBuffer("A", {intImm(3), intImm(5)});
  Buffer c = makeBuffer("C", {intImm(5), intImm(3)});
  Stmt body = loop("i", 3, [&](Var i) {
    return loop("j", 5, [&](Var j) { return bufferStore(c, bufferLoad(a, {i, j}), {j, i}); });
  });
  PrimFunc f = makePrimFunc("transpose", {a, c}, body);
  EXPECT_TRUE(matchesEvaluator(f, {randomTensor({3, 5}, DataType::float32(), 3),
                                   NDArray::empty({5, 3}, DataType::float32())}));
}

void checkFloorDivMod(DataType dtype) {
  int64_t n = 64;
  Buffer a = makeBuffer("A", {intImm(n)}, dtype);
  Buffer b = makeBuffer("B", {intImm(n)}, dtype);
  std::vector<Buffer> outs;
  for (const char* name : {"FD", "FM", "TD", "TM"})
    outs.push_back(makeBuffer(name, {intImm(n)}, dtype));
  Stmt body = loop("i", n, [&](Var i) {
    PrimExpr x = bufferLoad(a, {i});
    PrimExpr y = bufferLoad(b, {i});
    return seq(
        {bufferStore(outs[0], floordiv(x, y), {i}), bufferStore(outs[1], floormod(x, y), {i}),
         bufferStore(outs[2], truncdiv(x, y), {i}), bufferStore(outs[3], truncmod(x, y), {i})});
  });
  PrimFunc f = makePrimFunc("divmod", {a, b, outs[0], outs[1], outs[2], outs[3]}, body);
  NDArray x = randomTensor({n}, dtype, 4, -50, 50);
  NDArray y = randomTensor({n}, dtype, 5, -7, 7);
  for (int64_t i = 0; i < n; ++i) {
    if (y.getInt(i) == 0) y.setInt(i, i % 2 ? 3 : -3);
  }
  std::vector<NDArray> args = {x, y};
  for (int k = 0; k < 4; ++k) args.push_back(NDArray::empty({n}, dtype));
  EXPECT_TRUE(matchesEvaluator(f, args));
}

TEST(CodegenElementwise, FloorDivModOnNegativesInt32) {
  checkFloorDivMod(DataType::int32());
}
TEST(CodegenElementwise, FloorDivModOnNegativesInt64) {
  checkFloorDivMod(DataType::int64());
}

TEST(CodegenElementwise, FloorDivModSpotValues) {
  Buffer a = makeBuffer("A", {intImm(4)}, DataType::int32());
  Buffer q = makeBuffer("Q", {intImm(4)}, DataType::int32());
  Buffer r = makeBuffer("R", {intImm(4)}, DataType::int32());
  Stmt body = loop("i", 4, [&](Var i) {
    PrimExpr x = bufferLoad(a, {i});
    PrimExpr d = select(lt(PrimExpr(i), intImm(2)), intImm(2), intImm(-2));
    return seq({bufferStore(q, floordiv(x, d), {i}), bufferStore(r, floormod(x, d), {i})});
  });
  PrimFunc f = makePrimFunc("spot", {a, q, r}, body);
  NDArray qa = NDArray::empty({4}, DataType::int32()), ra = NDArray::empty({4}, DataType::int32());
  compileOne(f).call("spot",
                     {tessera::test::tensorOf({4}, DataType::int32(), {-7, 7, 7, -7}), qa, ra});
  EXPECT_EQ(tessera::test::valuesOf(qa), (std::vector<double>{-4, 3, -4, 3}));
  EXPECT_EQ(tessera::test::valuesOf(ra), (std::vector<double>{1, 1, -1, -1}));
}

TEST(CodegenElementwise, Casts) {
  int64_t n = 32;
  Buffer a = makeBuffer("A", {intImm(n)});
  Buffer k = makeBuffer("K", {intImm(n)}, DataType::int32());
  Buffer toInt = makeBuffer("I", {intImm(n)}, DataType::int32());
  Buffer toU8 = makeBuffer("U", {intImm(n)}, DataType::uint8());
  Buffer toF64 = makeBuffer("D", {intImm(n)}, DataType::float64());
  Buffer toBool = makeBuffer("B", {intImm(n)}, DataType::boolType());
  Buffer fromInt = makeBuffer("F", {intImm(n)});
  Stmt body = loop("i", n, [&](Var i) {
    PrimExpr x = bufferLoad(a, {i});
    PrimExpr y = bufferLoad(k, {i});
    return seq({bufferStore(toInt, cast(DataType::int32(), x * floatImm(10.0)), {i}),
                bufferStore(toU8, cast(DataType::uint8(), y), {i}),
                bufferStore(toF64, cast(DataType::float64(), x), {i}),
                bufferStore(toBool, cast(DataType::boolType(), y), {i}),
                bufferStore(fromInt, cast(DataType::float32(), y) * floatImm(0.5), {i})});
  });
  PrimFunc f = makePrimFunc("casts", {a, k, toInt, toU8, toF64, toBool, fromInt}, body);
  NDArray ints = randomTensor({n}, DataType::int32(), 7, -300, 300);
  ints.setInt(0, 0);
  EXPECT_TRUE(matchesEvaluator(
      f, {randomTensor({n}, DataType::float32(), 6, -20, 20), ints,
          NDArray::empty({n}, DataType::int32()), NDArray::empty({n}, DataType::uint8()),
          NDArray::empty({n}, DataType::float64()), NDArray::empty({n}, DataType::boolType()),
          NDArray::empty({n}, DataType::float32())}));
}

// Float to narrow integers saturates at the target's range (NaN gives 0), scalar and in 16-lane
// vectors: values beyond the range, infinities, NaN, halves, negatives to unsigned. (The
// evaluator saturates at 64 bits and wraps, C's undefined case, so the expected values are
// written out here.)
int64_t saturated(double v, int bits, bool isSigned) {
  if (std::isnan(v)) return 0;
  const double lo = isSigned ? -std::ldexp(1.0, bits - 1) : 0.0;
  const double hi = isSigned ? std::ldexp(1.0, bits - 1) - 1 : std::ldexp(1.0, bits) - 1;
  return static_cast<int64_t>(std::trunc(std::min(std::max(v, lo), hi)));
}

TEST(CodegenElementwise, FloatToNarrowIntegersSaturate) {
  const int64_t n = 32;
  Buffer a = makeBuffer("A", {intImm(n)});
  Buffer i8 = makeBuffer("I8", {intImm(n)}, DataType::int8());
  Buffer u8 = makeBuffer("U8", {intImm(n)}, DataType::uint8());
  Buffer i16 = makeBuffer("I16", {intImm(n)}, DataType::int16());
  Buffer nan8 = makeBuffer("N8", {intImm(n)}, DataType::uint8());
  Buffer v8 = makeBuffer("V8", {intImm(n)}, DataType::int8());
  // Infinities and NaN are made inside the kernel: x * 1e30 overflows for the large entries,
  // and inf - inf is NaN.
  Stmt scalar = loop("i", n, [&](Var i) {
    PrimExpr x = bufferLoad(a, {i});
    PrimExpr big = x * floatImm(1e30);
    return seq({bufferStore(i8, cast(DataType::int8(), x), {i}),
                bufferStore(u8, cast(DataType::uint8(), x), {i}),
                bufferStore(i16, cast(DataType::int16(), big), {i}),
                bufferStore(nan8, cast(DataType::uint8(), big - big), {i})});
  });
  Stmt vector = loop("j", n / 16, [&](Var j) {
    PrimExpr lanes = ramp(j * 16, intImm(1), 16);
    return bufferStore(v8, cast(DataType::int8().withLanes(16), bufferLoad(a, {lanes})), {lanes});
  });
  PrimFunc f = makePrimFunc("narrow", {a, i8, u8, i16, nan8, v8}, seq({scalar, vector}));
  NDArray x = randomTensor({n}, DataType::float32(), 9, -400, 400);
  const float special[] = {1e10f, -1e10f, 127.5f, -128.5f, 255.9f,  -0.7f,
                           3e38f, -3e38f, 0.5f,   -0.5f,   126.99f, 1e-30f};
  for (size_t k = 0; k < sizeof(special) / sizeof(float); ++k)
    x.setFloat(static_cast<int64_t>(k) * 2, special[k]);
  std::vector<NDArray> args = {x,
                               NDArray::empty({n}, DataType::int8()),
                               NDArray::empty({n}, DataType::uint8()),
                               NDArray::empty({n}, DataType::int16()),
                               NDArray::empty({n}, DataType::uint8()),
                               NDArray::empty({n}, DataType::int8())};
  compileOne(f).call(symbolOf(f), args);
  for (int64_t e = 0; e < n; ++e) {
    const double v = x.getFloat(e);
    const double big = static_cast<double>(static_cast<float>(v) * 1e30f);
    EXPECT_EQ(args[1].getInt(e), saturated(v, 8, true)) << v;
    EXPECT_EQ(args[2].getInt(e), saturated(v, 8, false)) << v;
    EXPECT_EQ(args[3].getInt(e), saturated(big, 16, true)) << v;
    EXPECT_EQ(args[4].getInt(e), saturated(big - big, 8, false)) << v;
    EXPECT_EQ(args[5].getInt(e), saturated(v, 8, true)) << v;
  }
}

// Vector products of widened bytes (what the generic int8 kernels multiply): signed, unsigned
// and mixed operands at their extremes, and a broadcast scalar operand.
TEST(CodegenElementwise, ProductsOfWidenedBytes) {
  const int64_t n = 32;
  Buffer s8 = makeBuffer("S", {intImm(n)}, DataType::int8());
  Buffer u8 = makeBuffer("U", {intImm(n)}, DataType::uint8());
  Buffer out = makeBuffer("O", {intImm(4 * n)}, DataType::int32());
  const DataType i32x16 = DataType::int32().withLanes(16);
  Stmt body = loop("j", n / 16, [&](Var j) {
    PrimExpr lanes = ramp(j * 16, intImm(1), 16);
    PrimExpr a = cast(i32x16, bufferLoad(s8, {lanes}));
    PrimExpr b = cast(i32x16, bufferLoad(u8, {lanes}));
    PrimExpr scalar = broadcast(cast(DataType::int32(), bufferLoad(s8, {intImm(0)})), 16);
    auto at = [&](int64_t k) { return ramp(j * 16 + k * n, intImm(1), 16); };
    return seq({bufferStore(out, a * a, {at(0)}), bufferStore(out, b * b, {at(1)}),
                bufferStore(out, a * b, {at(2)}), bufferStore(out, b * scalar, {at(3)})});
  });
  PrimFunc f = makePrimFunc("byte_products", {s8, u8, out}, body);
  NDArray s = randomTensor({n}, DataType::int8(), 10, -128, 128);
  NDArray u = randomTensor({n}, DataType::uint8(), 11, 0, 256);
  s.setInt(0, -128);
  s.setInt(1, 127);
  u.setInt(0, 255);
  u.setInt(1, 255);
  EXPECT_TRUE(matchesEvaluator(f, {s, u, NDArray::empty({4 * n}, DataType::int32())}));
}

// if_then_else is lazy: the out-of-bounds load on the last element must not run.
TEST(CodegenElementwise, IfThenElseIsLazyAndSelectChooses) {
  int64_t n = 17;
  Buffer a = makeBuffer("A", {intImm(n)});
  Buffer c = makeBuffer("C", {intImm(n)});
  Buffer d = makeBuffer("D", {intImm(n)});
  Stmt body = loop("i", n, [&](Var i) {
    PrimExpr next =
        ifThenElse(lt(PrimExpr(i), intImm(n - 1)), bufferLoad(a, {i + 1}), floatImm(-1.0));
    PrimExpr x = bufferLoad(a, {i});
    return seq({bufferStore(c, next, {i}),
                bufferStore(d, select(gt(x, floatImm(0.0)), x, x * floatImm(0.1)), {i})});
  });
  PrimFunc f = makePrimFunc("shift", {a, c, d}, body);
  EXPECT_TRUE(matchesEvaluator(
      f, {randomTensor({n}, DataType::float32(), 8), NDArray::empty({n}, DataType::float32()),
          NDArray::empty({n}, DataType::float32())}));
}

// A padding's edges under a per-lane condition, vectorized: the loads read only the lanes the
// condition selects (masked; contiguous and stride 2, as a padded input and its phases are read),
// so the reads before and after A stay unread, and the result is the lazy scalar loop's.
TEST(CodegenElementwise, VectorizedPaddingReadsOnlyInside) {
  const int64_t n = 40;
  const DataType i8 = DataType::int8();
  Buffer a = makeBuffer("A", {intImm(n)}, i8);
  Buffer c = makeBuffer("C", {intImm(n + 2)}, i8);
  Buffer d = makeBuffer("D", {intImm(n / 2 + 1)}, i8);
  auto padded = [&](ForKind kind) {
    auto inside = [&](const PrimExpr& x) {
      return ifThenElse(logicalAnd(ge(x, intImm(0)), lt(x, intImm(n))), bufferLoad(a, {x}),
                        intImm(0, i8));
    };
    Stmt body = seq(
        {loop(
             "x", n + 2,
             [&](Var x) { return bufferStore(c, inside(PrimExpr(x) - 1), {PrimExpr(x)}); }, kind),
         loop(
             "y", n / 2 + 1,
             [&](Var y) { return bufferStore(d, inside(PrimExpr(y) * 2 - 1), {PrimExpr(y)}); },
             kind)});
    return makePrimFunc("padded", {a, c, d}, body);
  };
  const PrimFunc vectorized = tir::transform::vectorizeLoop(padded(ForKind::kVectorized));
  const std::vector<NDArray> args = {randomTensor({n}, i8, 12, -128, 128),
                                     NDArray::empty({n + 2}, i8), NDArray::empty({n / 2 + 1}, i8)};
  std::vector<NDArray> expected = deepCopy(args), actual = deepCopy(args);
  evaluate(padded(ForKind::kSerial), expected);
  compileOne(vectorized).call("padded", actual);
  for (size_t i = 1; i < args.size(); ++i)
    EXPECT_TRUE(tessera::test::allClose(actual[i], expected[i], 0, 0)) << "argument " << i;
  // Both loops became single vector stores.
  EXPECT_EQ(toScript(vectorized).find("for "), std::string::npos) << toScript(vectorized);
}

// A stride-2 read under a padding test over 28 float lanes (a 3x3 stride-2 max pool's row): the
// lanes' mask is spread over the span the load reads. Shuffled as an i1 vector, LLVM moved it
// bit by bit through the mask registers (70% of the pool's time); as integers it is a few
// permutes, so no i1 vector may be shuffled in the optimized IR.
TEST(CodegenElementwise, StridedMaskedLoadsSpreadTheirMaskAsIntegers) {
  const int64_t n = 56, lanes = n / 2;
  Buffer a = makeBuffer("A", {intImm(n)});
  Buffer tap = makeBuffer("Tap", {intImm(1)}, DataType::int32());  // not a constant to fold
  Buffer b = makeBuffer("B", {intImm(lanes)});
  auto pool = [&](ForKind kind) {
    Stmt body = loop(
        "x", lanes,
        [&](Var x) {
          const PrimExpr at = PrimExpr(x) * 2 + bufferLoad(tap, {intImm(0)}) - 1;
          return bufferStore(b, ifThenElse(ge(at, intImm(0)), bufferLoad(a, {at}), floatImm(-1e30)),
                             {PrimExpr(x)});
        },
        kind);
    return makePrimFunc("pool", {a, tap, b}, body);
  };
  const CompiledModule m = compileOne(tir::transform::vectorizeLoop(pool(ForKind::kVectorized)));
  for (int32_t first : {0, 1}) {
    NDArray taps = NDArray::empty({1}, DataType::int32());
    taps.as<int32_t>()[0] = first;
    const std::vector<NDArray> args = {randomTensor({n}, DataType::float32(), 14), taps,
                                       NDArray::empty({lanes}, DataType::float32())};
    std::vector<NDArray> expected = deepCopy(args), actual = deepCopy(args);
    evaluate(pool(ForKind::kSerial), expected);
    m.call("pool", actual);
    EXPECT_TRUE(tessera::test::allClose(actual[2], expected[2], 0, 0)) << "tap " << first;
  }
  const std::regex maskShuffle(R"(shufflevector <\d+ x i1> %)");
  EXPECT_FALSE(std::regex_search(m.llvmIR(), maskShuffle)) << m.llvmIR();
}

// A padding computed at a parallel loop and vectorized over a row of 10 (a tuned winograd
// convolution's schedule): masked loads of a lane count that is not a power of two. LLVM 19's
// x86 lowering loaded lanes 8 and 9 where their mask was false, so the padding's right edge held
// the input's values; widths around the vector width of AVX2 and AVX-512 are checked.
TEST(CodegenElementwise, MaskedLoadsOfAnyWidthKeepTheirMask) {
  for (int width : {5, 6, 9, 10, 12, 17, 20}) {
    const int inner = width - 3;  // one column of padding on the left, two on the right
    const std::string n = std::to_string(width), m = std::to_string(inner);
    const std::string text =
        R"(
@T.prim_func
def pad(p0: T.Buffer((1, 64, 7, )" +
        m + R"(), "float32"), out: T.Buffer((4, 64, 6, )" + n + R"(), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    pad_temp = T.alloc_buffer((1, 64, 10, )" +
        n + R"())
    for f in T.parallel(4):
        for ax0, ax1 in T.grid(64, 6):
            for ax2 in T.vectorized()" +
        n + R"():
                with T.block("pad_temp"):
                    v_i0 = T.axis.spatial(1, 0)
                    v_i1 = T.axis.spatial(64, ax0)
                    v_i2 = T.axis.spatial(10, f // 2 * 4 + ax1)
                    v_i3 = T.axis.spatial()" +
        n + R"(, ax2)
                    T.reads(p0[v_i0, v_i1, v_i2 + -1, v_i3 + -1])
                    T.writes(pad_temp[v_i0, v_i1, v_i2, v_i3])
                    pad_temp[v_i0, v_i1, v_i2, v_i3] = T.if_then_else(v_i2 >= 1 and v_i2 < 8 and v_i3 >= 1 and v_i3 < )" +
        std::to_string(inner + 1) + R"(, p0[v_i0, v_i1, v_i2 + -1, v_i3 + -1], T.float32(0.0))
        for c, r, w in T.grid(64, 6, )" +
        n + R"():
            with T.block("copy"):
                v_f = T.axis.spatial(4, f)
                v_c, v_r, v_w = T.axis.remap("SSS", [c, r, w])
                T.reads(pad_temp[0, v_c, v_f // 2 * 4 + v_r, v_w])
                T.writes(out[v_f, v_c, v_r, v_w])
                out[v_f, v_c, v_r, v_w] = pad_temp[0, v_c, v_f // 2 * 4 + v_r, v_w]
)";
    const PrimFunc func = parsePrimFunc(text);
    const std::vector<NDArray> args = {randomTensor({1, 64, 7, inner}, DataType::float32(), 13),
                                       NDArray::empty({4, 64, 6, width}, DataType::float32())};
    std::vector<NDArray> expected = deepCopy(args), actual = deepCopy(args);
    evaluate(func, expected);
    compileOne(tir::transform::lower(func)).call("pad", actual);
    EXPECT_TRUE(tessera::test::allClose(actual[1], expected[1], 0, 0)) << "width " << width;
  }
}

TEST(CodegenElementwise, VectorRampsAndBroadcasts) {
  Buffer a = makeBuffer("A", {intImm(32)});
  Buffer b = makeBuffer("B", {intImm(32)});
  Buffer c = makeBuffer("C", {intImm(32)});
  Buffer g = makeBuffer("G", {intImm(32)});
  Stmt body = loop("i", 4, [&](Var i) {
    PrimExpr base = PrimExpr(i) * 8;
    PrimExpr va = bufferLoad(a, {ramp(base, intImm(1), 8)});
    PrimExpr vb = bufferLoad(b, {ramp(base, intImm(1), 8)});
    // A strided gather: G[i*8 + l] = A[i + 4*l].
    PrimExpr gathered = bufferLoad(a, {ramp(PrimExpr(i), intImm(4), 8)});
    PrimExpr v = max(va * broadcast(floatImm(2.0), 8) + vb, broadcast(floatImm(0.0), 8));
    return seq({bufferStore(c, v, {ramp(base, intImm(1), 8)}),
                bufferStore(g, gathered, {ramp(base, intImm(1), 8)})});
  });
  PrimFunc f = makePrimFunc("vec", {a, b, c, g}, body);
  EXPECT_TRUE(matchesEvaluator(
      f, {randomTensor({32}, DataType::float32(), 9), randomTensor({32}, DataType::float32(), 10),
          NDArray::empty({32}, DataType::float32()), NDArray::empty({32}, DataType::float32())}));
}

TEST(CodegenElementwise, IntegerVectorScatterStore) {
  Buffer a = makeBuffer("A", {intImm(16)}, DataType::int32());
  Buffer c = makeBuffer("C", {intImm(16)}, DataType::int32());
  // C[15 - l] = A[l] * 3 for the 16 lanes: a store with a non-unit stride ramp.
  PrimExpr v = bufferLoad(a, {ramp(intImm(0), intImm(1), 16)}) * broadcast(intImm(3), 16);
  Stmt body = bufferStore(c, v, {ramp(intImm(15), intImm(-1), 16)});
  PrimFunc f = makePrimFunc("rev", {a, c}, body);
  EXPECT_TRUE(matchesEvaluator(f, {randomTensor({16}, DataType::int32(), 11, -100, 100),
                                   NDArray::empty({16}, DataType::int32())}));
}

// A vector store of every stride-th element (as the int8 kernels repack channels into groups of
// 4) is one masked store of the spread lanes: the elements in between keep their values, for
// lane counts that are not powers of two, and at the end of a buffer.
TEST(CodegenElementwise, StridedStoresKeepTheElementsBetween) {
  for (DataType dtype : {DataType::uint8(), DataType::int32(), DataType::float32()}) {
    for (int64_t stride : {2, 3, 4}) {
      for (int lanes : {5, 16}) {
        const int64_t span = (lanes - 1) * stride + 1, size = 2 * span + 1;
        Buffer a = makeBuffer("A", {intImm(2 * lanes)}, dtype);
        Buffer c = makeBuffer("C", {intImm(size)}, dtype);
        // C[i*span + 1 + l*stride] = 2 * A[i*lanes + l]: the second store ends at C's last
        // element (the widened vector's masked-off lanes lie past the buffer).
        Stmt body = loop("i", 2, [&](Var i) {
          PrimExpr v = bufferLoad(a, {ramp(PrimExpr(i) * lanes, intImm(1), lanes)});
          return bufferStore(c, v + v, {ramp(PrimExpr(i) * span + 1, intImm(stride), lanes)});
        });
        PrimFunc f = makePrimFunc("strided", {a, c}, body);
        const std::vector<NDArray> args = {randomTensor({2 * lanes}, dtype, 21, 0, 100),
                                           randomTensor({size}, dtype, 22, 0, 100)};
        std::vector<NDArray> expected = deepCopy(args), actual = deepCopy(args);
        evaluate(f, expected);
        compileOne(f).call("strided", actual);
        EXPECT_TRUE(tessera::test::allClose(actual[1], expected[1], 0, 0))
            << dtype.name() << " stride " << stride << " lanes " << lanes;
      }
    }
  }
}

TEST(CodegenElementwise, MatVecReduction) {
  int64_t m = 13, k = 37;
  Buffer a = makeBuffer("A", {intImm(m), intImm(k)});
  Buffer x = makeBuffer("X", {intImm(k)});
  Buffer y = makeBuffer("Y", {intImm(m)});
  Buffer af = flat(a);
  Stmt body = loop("i", m, [&](Var i) {
    Stmt init = bufferStore(y, floatImm(0.0), {i});
    Stmt update = loop("r", k, [&](Var r) {
      PrimExpr acc =
          bufferLoad(y, {i}) + bufferLoad(af, {PrimExpr(i) * k + PrimExpr(r)}) * bufferLoad(x, {r});
      return bufferStore(y, acc, {i});
    });
    return seq({init, update});
  });
  PrimFunc f = makePrimFunc("matvec", {a, x, y}, body);
  EXPECT_TRUE(matchesEvaluator(
      f,
      {randomTensor({m, k}, DataType::float32(), 12), randomTensor({k}, DataType::float32(), 13),
       NDArray::empty({m}, DataType::float32())},
      1e-5, 1e-5));
}

TEST(CodegenElementwise, ComparisonsToBool) {
  Buffer a = makeBuffer("A", {intImm(20)}, DataType::int64());
  Buffer c = makeBuffer("C", {intImm(20)}, DataType::boolType());
  Stmt body = loop("i", 20, [&](Var i) {
    PrimExpr x = bufferLoad(a, {i});
    PrimExpr cond = logicalOr(
        logicalAnd(ge(x, intImm(-3, DataType::int64())), ne(x, intImm(0, DataType::int64()))),
        logicalNot(lt(x, intImm(5, DataType::int64()))));
    return bufferStore(c, cond, {i});
  });
  PrimFunc f = makePrimFunc("cmp", {a, c}, body);
  EXPECT_TRUE(matchesEvaluator(f, {randomTensor({20}, DataType::int64(), 14, -10, 10),
                                   NDArray::empty({20}, DataType::boolType())}));
}

}  // namespace
}  // namespace tessera::codegen::test

namespace tessera::codegen::test {
namespace {

// Buffer pointers are noalias, so LLVM vectorizes a plain loop without runtime overlap checks.
TEST(CodegenElementwise, SerialLoopVectorizesWithoutAliasChecks) {
  Buffer a = makeBuffer("A", {intImm(1024)});
  Buffer b = makeBuffer("B", {intImm(1024)});
  Stmt body = loop("i", 1024, [&](Var i) {
    return bufferStore(b, bufferLoad(a, {i}) * floatImm(3.0) + floatImm(1.0), {i});
  });
  std::string ir = compileOne(makePrimFunc("axpb", {a, b}, body)).llvmIR();
  EXPECT_NE(ir.find("x float>"), std::string::npos);
  EXPECT_EQ(ir.find("vector.memcheck"), std::string::npos);
}

}  // namespace
}  // namespace tessera::codegen::test

namespace tessera::codegen::test {
namespace {

// Float to bfloat16 is rounded by the generated code itself (no __truncsfbf2 call, which the JIT
// cannot resolve): nearest with ties to even, NaN kept quiet, as support/float16.cc does it.
TEST(CodegenElementwise, FloatToBfloat16RoundsToNearestEvenWithoutALibraryCall) {
  const std::vector<float> values = {1.0f,
                                     -2.5f,
                                     3.14159f,
                                     1.00390625f /* halfway, to even (down) */,
                                     1.01171875f /* halfway, to even (up) */,
                                     65504.0f,
                                     3.4e38f,
                                     -3.4e38f,
                                     1e-40f /* subnormal */,
                                     std::numeric_limits<float>::infinity(),
                                     -std::numeric_limits<float>::infinity(),
                                     std::numeric_limits<float>::quiet_NaN(),
                                     0.0f,
                                     -0.0f,
                                     1.9999999f,
                                     7e-39f};
  const int64_t n = static_cast<int64_t>(values.size());
  NDArray in = NDArray::empty({n}, DataType::float32());
  for (int64_t i = 0; i < n; ++i) in.setFloat(i, values[i]);
  Buffer a = makeBuffer("A", {intImm(n)});
  Buffer b = makeBuffer("B", {intImm(n)}, DataType::bfloat16());
  Stmt scalar = loop("i", n, [&](Var i) {
    return bufferStore(b, cast(DataType::bfloat16(), bufferLoad(a, {i})), {i});
  });
  // The same as one vector: the first 8 lanes.
  Buffer c = makeBuffer("C", {intImm(8)}, DataType::bfloat16());
  PrimExpr lanes = ramp(intImm(0), intImm(1), 8);
  Stmt vector =
      bufferStore(c, cast(DataType::bfloat16().withLanes(8), bufferLoad(a, {lanes})), {lanes});
  PrimFunc f = makePrimFunc("to_bf16", {a, b, c}, seq({scalar, vector}));
  std::vector<NDArray> args = {in, NDArray::empty({n}, DataType::bfloat16()),
                               NDArray::empty({8}, DataType::bfloat16())};
  compileOne(f).call(symbolOf(f), args);
  for (int64_t i = 0; i < n; ++i) {
    const float want = bfloat16ToFloat(floatToBfloat16(values[i]));
    const float got = static_cast<float>(args[1].getFloat(i));
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(got)) << "element " << i;
    } else {
      EXPECT_EQ(std::bit_cast<uint32_t>(got), std::bit_cast<uint32_t>(want))
          << "element " << i << ": " << values[i];
    }
    if (i < 8 && !std::isnan(want)) {
      EXPECT_EQ(std::bit_cast<uint32_t>(static_cast<float>(args[2].getFloat(i))),
                std::bit_cast<uint32_t>(want))
          << "vector lane " << i;
    }
  }
}

}  // namespace
}  // namespace tessera::codegen::test

namespace tessera::codegen::test {
namespace {

// A function the code calls but nothing provides is named in the error (not some runtime slot).
TEST(CodegenElementwise, AnUnresolvedSymbolIsNamedInTheLinkError) {
  Buffer a = makeBuffer("A", {intImm(4)});
  Stmt body = loop("i", 4, [&](Var i) {
    return bufferStore(a,
                       call(DataType::float32(), "tir.call_extern",
                            {stringImm("tessera_no_such_function"), bufferLoad(a, {i})}),
                       {i});
  });
  PrimFunc f = makePrimFunc("calls_missing", {a}, body);
  try {
    compileOne(f);
    ADD_FAILURE() << "linking should fail";
  } catch (const DiagnosticError& e) {
    EXPECT_NE(e.diagnostic().message.find("tessera_no_such_function"), std::string::npos)
        << e.diagnostic().str();
  }
}

}  // namespace
}  // namespace tessera::codegen::test
