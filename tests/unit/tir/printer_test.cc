// Golden tests of the TVMScript printer against the spec's printed examples (specs/tir_relax.md
// §1.6, §1.8, §3.6, §4.2, with Tessera's `T.float32(0.0)` rule) plus the individual forms of §2.6.
#include <gtest/gtest.h>

#include "tir/printer/printer.h"
#include "tir_examples.h"

namespace tessera::tir {
namespace {

using examples::pointRegion;
using examples::rootBlock;

PrimExpr c(int64_t v) {
  return intImm(v);
}

TEST(TirPrinter, MatmulReluMatchesSpec16) {
  const char* expected =
      R"(@T.prim_func
def main(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 128), "float32"), relu: T.Buffer((128, 128), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    # with T.block("root"):
    matmul = T.alloc_buffer((128, 128))
    for i, j, k in T.grid(128, 128, 128):
        with T.block("matmul"):
            v_i, v_j, v_k = T.axis.remap("SSR", [i, j, k])
            T.reads(A[v_i, v_k], B[v_k, v_j])
            T.writes(matmul[v_i, v_j])
            with T.init():
                matmul[v_i, v_j] = T.float32(0.0)
            matmul[v_i, v_j] = matmul[v_i, v_j] + A[v_i, v_k] * B[v_k, v_j]
    for i, j in T.grid(128, 128):
        with T.block("relu"):
            v_i, v_j = T.axis.remap("SS", [i, j])
            T.reads(matmul[v_i, v_j])
            T.writes(relu[v_i, v_j])
            relu[v_i, v_j] = T.max(matmul[v_i, v_j], T.float32(0.0))
)";
  EXPECT_EQ(toScript(examples::matmulRelu()), expected);
}

TEST(TirPrinter, DecomposeReductionMatchesSpec36) {
  const char* expected =
      R"(@T.prim_func
def main(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 128), "float32"), C: T.Buffer((128, 128), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    # with T.block("root"):
    for i, j_0 in T.grid(128, 16):
        for j_1_init in range(8):
            with T.block("C_init"):
                vi = T.axis.spatial(128, i)
                vj = T.axis.spatial(128, j_0 * 8 + j_1_init)
                T.reads()
                T.writes(C[vi, vj])
                C[vi, vj] = T.float32(0.0)
        for k, j_1 in T.grid(128, 8):
            with T.block("C_update"):
                vi = T.axis.spatial(128, i)
                vj = T.axis.spatial(128, j_0 * 8 + j_1)
                vk = T.axis.reduce(128, k)
                T.reads(C[vi, vj], A[vi, vk], B[vk, vj])
                T.writes(C[vi, vj])
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
)";
  EXPECT_EQ(toScript(examples::decomposedMatmul()), expected);
}

TEST(TirPrinter, LoweredProgramMatchesSpec42) {
  // The spec's excerpt (from `for i in T.parallel(64)` on) appears verbatim; the flat views of the
  // parameters are declared above it.
  const char* excerpt = R"(    for i in T.parallel(64):
        C = T.allocate([8], "float32", "global")
        for j_0 in range(8):
            C_1 = T.Buffer((8,), data=C)
            for ax0_init in range(8):
                C_1[ax0_init] = T.float32(0.0)
            for ax0, ax1 in T.grid(8, 64):
                C_1[ax0] = C_1[ax0] + A_1[i * 64 + ax1] * B_1[ax1 * 64 + j_0 * 8 + ax0]
            D_1[i * 64 + j_0 * 8:i * 64 + j_0 * 8 + 8] = T.max(C_1[0:8], T.Broadcast(T.float32(0.0), 8))
)";
  std::string expected = std::string(R"(@T.prim_func
def main(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32"), D: T.Buffer((64, 64), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    A_1 = T.decl_buffer((4096,), data=A.data)
    B_1 = T.decl_buffer((4096,), data=B.data)
    D_1 = T.decl_buffer((4096,), data=D.data)
)") + excerpt;
  EXPECT_EQ(toScript(examples::loweredMatmulRelu()), expected);
}

TEST(TirPrinter, SymbolicShapeMatchesSpec18) {
  const char* expected =
      R"(@T.prim_func
def main(var_X: T.handle, var_X_red: T.handle):
    T.func_attr({"tir.noalias": T.bool(True)})
    n = T.int64()
    X = T.match_buffer(var_X, (n, 4))
    X_red = T.match_buffer(var_X_red, (n,))
    # with T.block("root"):
    for i, r in T.grid(n, 4):
        with T.block("X_red"):
            v_i = T.axis.spatial(n, i)
            v_r = T.axis.reduce(4, r)
            T.reads(X[v_i, v_r])
            T.writes(X_red[v_i])
            with T.init():
                X_red[v_i] = T.float32(-3.4028234663852886e+38)
            X_red[v_i] = T.max(X_red[v_i], X[v_i, v_r])
)";
  EXPECT_EQ(toScript(examples::symbolicRowMax()), expected);
}

TEST(TirPrinter, ModuleHeaderAndPrivateFunctions) {
  TirModule mod;
  mod.add(examples::matmulRelu(4));
  auto priv = std::make_shared<PrimFuncNode>(*examples::decomposedMatmul(16));
  priv->name = "mm";
  priv->attrs.erase("global_symbol");
  priv->attrs.set("layout_free_buffers", AttrValue::array({AttrValue::integer(1)}));
  mod.add(priv);
  std::string text = toScript(mod);
  EXPECT_EQ(text.rfind(R"(# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((4, 4), "float32"), )",
                       0),
            0u)
      << text;
  EXPECT_NE(text.find(R"(
    @T.prim_func(private=True)
    def mm(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
        T.func_attr({"layout_free_buffers": [1], "tir.noalias": T.bool(True)})
        # with T.block("root"):
        for i, j_0 in T.grid(16, 2):
)"),
            std::string::npos)
      << text;
}

TEST(TirPrinter, SeedLinear0ModuleDeclaresShapeVarsBeforeFirstUse) {
  // Seed 002's printed BindParams module: handles, `m = T.int64()` right before the first buffer
  // that needs it, then `n`, and a symbolic `T.grid(1, n, m)` that still uses the remap shorthand.
  Var m = makeVar("m", DataType::int64()), n = makeVar("n", DataType::int64());
  Buffer X = makeBuffer("X", {c(1), m}), W = makeBuffer("W", {n, m}), B = makeBuffer("B", {n});
  Buffer Z = makeBuffer("Z", {c(1), n}), Y = makeBuffer("Y", {c(1), n});
  auto dom = [](PrimExpr extent) { return Range{c(0), std::move(extent)}; };
  Var i = makeVar("i"), j = makeVar("j", DataType::int64()), k = makeVar("k", DataType::int64());
  Var vi = makeVar("vi"), vj = makeVar("vj", DataType::int64()),
      vk = makeVar("vk", DataType::int64());
  auto y = std::make_shared<BlockNode>();
  y->name = "Y";
  y->iterVars = {IterVar{dom(c(1)), vi, IterVarType::kDataPar, ""},
                 IterVar{dom(n), vj, IterVarType::kDataPar, ""},
                 IterVar{dom(m), vk, IterVarType::kCommReduce, ""}};
  y->reads = {pointRegion(X, {vi, vk}), pointRegion(W, {vj, vk})};
  y->writes = {pointRegion(Y, {vi, vj})};
  y->init = bufferStore(Y, floatImm(0.0), {vi, vj});
  y->body = bufferStore(
      Y, bufferLoad(Y, {vi, vj}) + bufferLoad(X, {vi, vk}) * bufferLoad(W, {vj, vk}), {vi, vj});
  Stmt yLoops = forLoop(
      i, c(0), c(1), ForKind::kSerial,
      forLoop(j, c(0), n, ForKind::kSerial,
              forLoop(k, c(0), m, ForKind::kSerial, blockRealize({i, j, k}, boolImm(true), y))));
  Var i2 = makeVar("i"), j2 = makeVar("j", DataType::int64());
  Var vi2 = makeVar("vi"), vj2 = makeVar("vj", DataType::int64());
  auto z = std::make_shared<BlockNode>();
  z->name = "Z";
  z->iterVars = {IterVar{dom(c(1)), vi2, IterVarType::kDataPar, ""},
                 IterVar{dom(n), vj2, IterVarType::kDataPar, ""}};
  z->reads = {pointRegion(Y, {vi2, vj2}), pointRegion(B, {vj2})};
  z->writes = {pointRegion(Z, {vi2, vj2})};
  z->body = bufferStore(Z, bufferLoad(Y, {vi2, vj2}) + bufferLoad(B, {vj2}), {vi2, vj2});
  Stmt zLoops =
      forLoop(i2, c(0), c(1), ForKind::kSerial,
              forLoop(j2, c(0), n, ForKind::kSerial, blockRealize({i2, j2}, boolImm(true), z)));
  auto f = std::make_shared<PrimFuncNode>();
  f->name = "linear0";
  for (auto [name, buffer] : {std::pair{"x", X}, {"w", W}, {"b", B}, {"z", Z}}) {
    Var handle = makeVar(name, DataType::handle());
    f->params.push_back(handle);
    f->bufferMap.emplace_back(handle, buffer);
  }
  f->body = rootBlock({Y}, seq({yLoops, zLoops}));
  f->attrs.set("global_symbol", AttrValue::string("linear0"));
  TirModule mod;
  mod.add(f);
  EXPECT_EQ(toScript(mod), R"(# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def linear0(x: T.handle, w: T.handle, b: T.handle, z: T.handle):
        m = T.int64()
        X = T.match_buffer(x, (1, m))
        n = T.int64()
        W = T.match_buffer(w, (n, m))
        B = T.match_buffer(b, (n,))
        Z = T.match_buffer(z, (1, n))
        # with T.block("root"):
        Y = T.alloc_buffer((1, n))
        for i, j, k in T.grid(1, n, m):
            with T.block("Y"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                T.reads(X[vi, vk], W[vj, vk])
                T.writes(Y[vi, vj])
                with T.init():
                    Y[vi, vj] = T.float32(0.0)
                Y[vi, vj] = Y[vi, vj] + X[vi, vk] * W[vj, vk]
        for i, j in T.grid(1, n):
            with T.block("Z"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(Y[vi, vj], B[vj])
                T.writes(Z[vi, vj])
                Z[vi, vj] = Y[vi, vj] + B[vj]
)");
}

TEST(TirPrinter, ExpressionPrecedenceAndSpelling) {
  Var a = makeVar("a"), b = makeVar("b"), x = makeVar("x"), n = makeVar("n", DataType::int64());
  EXPECT_EQ(toString(a - (b - x)), "a - (b - x)");
  EXPECT_EQ(toString((a - b) - x), "a - b - x");
  EXPECT_EQ(toString((a + b) * x), "(a + b) * x");
  EXPECT_EQ(toString(a + b * x), "a + b * x");
  EXPECT_EQ(toString(floordiv(a * 8 + b, c(8))), "(a * 8 + b) // 8");
  EXPECT_EQ(toString(floormod(floordiv(a, c(4)), c(2))), "a // 4 % 2");
  EXPECT_EQ(toString(floordiv(a, b * x)), "a // (b * x)");
  EXPECT_EQ(toString(truncdiv(a, b)), "T.truncdiv(a, b)");
  EXPECT_EQ(toString(truncmod(a, b)), "T.truncmod(a, b)");
  // Qualified: for two Vars, ADL would otherwise pick std::min/std::max on the pointers.
  EXPECT_EQ(toString(tir::min(a, tir::max(b, x))), "T.min(a, T.max(b, x))");
  EXPECT_EQ(toString(logicalAnd(le(c(1), a), lt(a, c(15)))), "1 <= a and a < 15");
  EXPECT_EQ(toString(logicalOr(logicalAnd(lt(a, b), lt(b, x)), eq(a, x))),
            "a < b and b < x or a == x");
  EXPECT_EQ(toString(logicalAnd(logicalOr(lt(a, b), lt(b, x)), eq(a, x))),
            "(a < b or b < x) and a == x");
  EXPECT_EQ(toString(logicalNot(lt(a, b))), "not a < b");
  EXPECT_EQ(toString(eq(lt(a, b), lt(b, x))), "(a < b) == (b < x)");
  EXPECT_EQ(toString(n * intImm(128, DataType::int64())), "n * T.int64(128)");
  EXPECT_EQ(toString(c(-1)), "-1");
  EXPECT_EQ(toString(boolImm(false)), "T.bool(False)");
  EXPECT_EQ(toString(intImm(0, DataType::int8())), "T.int8(0)");
  EXPECT_EQ(toString(floatImm(0.5)), "T.float32(0.5)");
  EXPECT_EQ(toString(floatImm(1e16, DataType::float64())), "T.float64(1e+16)");
  EXPECT_EQ(toString(floatImm(0.0001)), "T.float32(0.0001)");
  EXPECT_EQ(toString(floatImm(1e-05)), "T.float32(1e-05)");
  EXPECT_EQ(toString(floatImm(-2.0, DataType::float16())), "T.float16(-2.0)");
  EXPECT_EQ(toString(floatImm(100.0)), "T.float32(100.0)");
  EXPECT_EQ(toString(cast(DataType::int32(), n)), "T.Cast(\"int32\", n)");
  EXPECT_EQ(toString(select(lt(a, b), a, b)), "T.Select(a < b, a, b)");
  EXPECT_EQ(toString(ifThenElse(lt(a, b), a, b)), "T.if_then_else(a < b, a, b)");
  Var f = makeVar("f", DataType::float32());
  EXPECT_EQ(toString(call(DataType::float32(), "tir.exp", {f})), "T.exp(f)");
  EXPECT_EQ(toString(call(DataType::float32(), "tir.call_extern", {stringImm("ext"), f})),
            "T.call_extern(\"float32\", \"ext\", f)");
  EXPECT_EQ(toString(call(DataType::int32(), "tir.vta.uop_push", {a})), "T.tir.vta.uop_push(a)");
  EXPECT_EQ(toString(broadcast(f, 4)), "T.Broadcast(f, 4)");
  EXPECT_EQ(toString(ramp(a, c(2), 4)), "T.Ramp(a, 2, 4)");
  EXPECT_EQ(toString(truncdiv(f, f)), "f / f");
  Buffer buf = makeBuffer("A", {c(64)});
  EXPECT_EQ(toString(bufferLoad(buf, {ramp(a, c(2), 4)})), "A[a:a + 8:2]");
  Buffer scalar = makeBuffer("s", {});
  EXPECT_EQ(toString(bufferLoad(scalar, {})), "s[()]");
}

TEST(TirPrinter, StatementForms) {
  Var i = makeVar("i"), x = makeVar("x"), t = makeVar("t");
  Buffer A = makeBuffer("A", {c(16)}, DataType::int32());
  auto pf = std::make_shared<ForNode>(i, c(0), c(16), ForKind::kParallel, bufferStore(A, i, {i}));
  pf->annotations.set("pragma_auto_unroll_max_step", AttrValue::integer(16));
  EXPECT_EQ(toString(Stmt(pf)),
            "for i in T.parallel(16, annotations={\"pragma_auto_unroll_max_step\": 16}):\n"
            "    A[i] = i\n");
  EXPECT_EQ(toString(forLoop(i, c(2), c(4), ForKind::kSerial, bufferStore(A, i, {i}))),
            "for i in range(2, 6):\n    A[i] = i\n");
  EXPECT_EQ(toString(forLoop(i, c(0), c(8), ForKind::kVectorized, bufferStore(A, i, {i}))),
            "for i in T.vectorized(8):\n    A[i] = i\n");
  EXPECT_EQ(toString(forLoop(i, c(0), c(8), ForKind::kUnrolled, bufferStore(A, i, {i}))),
            "for i in T.unroll(8):\n    A[i] = i\n");
  auto tb =
      std::make_shared<ForNode>(i, c(0), c(8), ForKind::kThreadBinding, bufferStore(A, i, {i}));
  tb->threadTag = "threadIdx.x";
  EXPECT_EQ(toString(Stmt(tb)),
            "for i in T.thread_binding(8, thread=\"threadIdx.x\"):\n    A[i] = i\n");
  // A let, an if/else, an assert, an attribute and an evaluated call.
  Stmt body =
      letStmt(x, i * 2,
              ifThenElse(lt(x, c(8)), bufferStore(A, x, {x}),
                         assertStmt(ge(x, c(8)), "x too small",
                                    attrStmt(t, "pragma_x", c(1),
                                             evaluate(call(DataType::int32(), "tir.call_extern",
                                                           {stringImm("f"), x}))))));
  EXPECT_EQ(toString(body), R"(x: T.int32 = i * 2
if x < 8:
    A[x] = x
else:
    assert x >= 8, "x too small"
    with T.attr(t, "pragma_x", 1):
        T.call_extern("int32", "f", x)
)");
  EXPECT_EQ(toString(evaluate(c(0))), "T.evaluate(0)\n");
  // A loop whose extent depends on the outer loop does not join the grid.
  Var j = makeVar("j");
  EXPECT_EQ(toString(loopNest({i, j}, {c(4), i + 1}, bufferStore(A, j, {j}))),
            "for i in range(4):\n    for j in range(i + 1):\n        A[j] = j\n");
}

TEST(TirPrinter, BlockFormsAndNameCollisions) {
  // A block with a predicate, annotations, a block-level allocation and a match_buffer; names
  // `A` (parameter and allocation) and `T.v0` (dot) collide or need rewriting.
  Buffer A = makeBuffer("A", {c(128)});
  Buffer inner = makeBuffer("A", {c(4)}, DataType::float32(), "local");
  Buffer dotted = makeBuffer("T.v0", {c(128)}, DataType::int32());
  Buffer view = makeBuffer("A_view", {c(4)});
  Var i0 = makeVar("i_0"), i1 = makeVar("i_1"), vi = makeVar("vi");
  auto b = std::make_shared<BlockNode>();
  b->name = "B";
  b->iterVars = {IterVar{Range{c(0), c(128)}, vi, IterVarType::kDataPar, ""}};
  b->reads = {BufferRegion{A, {Range{floordiv(vi, c(4)) * 4, c(4)}}}};
  b->writes = {pointRegion(dotted, {vi})};
  b->allocBuffers = {inner};
  b->matchBuffers = {MatchBufferRegion{view, BufferRegion{A, {Range{c(0), c(4)}}}}};
  b->annotations.set("meta_schedule.tiling_structure", AttrValue::string("SSRSRS"));
  b->body = bufferStore(dotted, cast(DataType::int32(), bufferLoad(A, {vi})), {vi});
  Stmt loops =
      loopNest({i0, i1}, {c(13), c(10)}, blockRealize({i0 * 10 + i1}, lt(i0 * 10 + i1, c(128)), b));
  PrimFunc f = makePrimFunc("main", {A, dotted}, rootBlock({}, loops));
  EXPECT_EQ(toScript(f), R"(@T.prim_func
def main(A: T.Buffer((128,), "float32"), T_v0: T.Buffer((128,), "int32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    # with T.block("root"):
    for i_0, i_1 in T.grid(13, 10):
        with T.block("B"):
            vi = T.axis.spatial(128, i_0 * 10 + i_1)
            T.where(i_0 * 10 + i_1 < 128)
            T.reads(A[vi // 4 * 4:vi // 4 * 4 + 4])
            T.writes(T_v0[vi])
            T.block_attr({"meta_schedule.tiling_structure": "SSRSRS"})
            A_1 = T.alloc_buffer((4,), scope="local")
            A_view = T.match_buffer(A[0:4], (4,))
            T_v0[vi] = T.Cast("int32", A[vi])
)");
}

TEST(TirPrinter, ImplicitViewsAndFreeVariablesPrintAtInnermostCommonStatement) {
  // As in seed 004's lowered output: a flattened view used inside one loop nest is declared right
  // before the statement using it, and a free variable gets `n = T.int32()`.
  Buffer data = makeBuffer("data", {c(4), c(4)}, DataType::int8());
  Buffer flat = withShape(data, {c(16)});
  Var i = makeVar("i"), cse = makeVar("cse_var_1"), n = makeVar("n");
  Stmt store = bufferStore(flat, intImm(0, DataType::int8()), {PrimExpr(cse) + n});
  Stmt body = loopNest({i}, {c(4)}, letStmt(cse, i * 4, store));
  PrimFunc f = makePrimFunc("main", {data}, body);
  EXPECT_EQ(toScript(f), R"(@T.prim_func
def main(data: T.Buffer((4, 4), "int8")):
    T.func_attr({"tir.noalias": T.bool(True)})
    for i in range(4):
        cse_var_1: T.int32 = i * 4
        data_1 = T.Buffer((16,), "int8", data=data.data)
        n = T.int32()
        data_1[cse_var_1 + n] = T.int8(0)
)");
}

TEST(TirPrinter, AllocateWithDeclBufferPrintsAsDeclBuffer) {
  Var p = makeVar("buf", DataType::handle());
  auto b = std::make_shared<BufferNode>(*makeBuffer("buf", {c(8)}, DataType::int32()));
  b->data = p;
  Buffer out = makeBuffer("out", {c(8)}, DataType::int32());
  Var i = makeVar("i");
  Stmt body =
      allocate(p, DataType::int32(), {c(8)}, "global",
               declBuffer(b, loopNest({i}, {c(8)}, bufferStore(out, bufferLoad(b, {i}), {i}))));
  EXPECT_EQ(toScript(makePrimFunc("f", {out}, body)), R"(@T.prim_func
def f(out: T.Buffer((8,), "int32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    buf = T.decl_buffer((8,), "int32")
    for i in range(8):
        out[i] = buf[i]
)");
}

TEST(TirPrinter, IterVarFormsAndReservedNames) {
  // Bindings [i, j, k + 2, l]: i and j form a remap run; k's domain starts at 2 and l alone is a
  // run of one, so both print one line each. A buffer named T must not shadow the T module.
  Buffer out = makeBuffer("T", {c(4), c(4)});
  Var i = makeVar("i"), j = makeVar("j"), k = makeVar("k"), l = makeVar("l");
  Var vi = makeVar("vi"), vj = makeVar("vj"), vk = makeVar("vk"), vl = makeVar("vl");
  auto b = std::make_shared<BlockNode>();
  b->name = "T";
  b->iterVars = {IterVar{Range{c(0), c(4)}, vi, IterVarType::kDataPar, ""},
                 IterVar{Range{c(0), c(4)}, vj, IterVarType::kDataPar, ""},
                 IterVar{Range{c(2), c(4)}, vk, IterVarType::kCommReduce, ""},
                 IterVar{Range{c(0), c(3)}, vl, IterVarType::kCommReduce, ""}};
  b->writes = {pointRegion(out, {vi, vj})};
  b->body = bufferStore(out, floatImm(1.0), {vi, vj});
  Stmt loops = loopNest({i, j, k, l}, {c(4), c(4), c(4), c(3)},
                        blockRealize({i, j, k + 2, l}, boolImm(true), b));
  EXPECT_EQ(toScript(makePrimFunc("main", {out}, rootBlock({}, loops))), R"(@T.prim_func
def main(T_1: T.Buffer((4, 4), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    # with T.block("root"):
    for i, j, k, l in T.grid(4, 4, 4, 3):
        with T.block("T"):
            vi, vj = T.axis.remap("SS", [i, j])
            vk = T.axis.reduce((2, 6), k + 2)
            vl = T.axis.reduce(3, l)
            T.reads()
            T.writes(T_1[vi, vj])
            T_1[vi, vj] = T.float32(1.0)
)");
}

}  // namespace
}  // namespace tessera::tir
