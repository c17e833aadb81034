// The TensorIR TVMScript parser construct by construct: seed 002's hand-written PrimFuncs (run on
// the reference evaluator), loops, blocks, statements and expressions, printed back; and bad input,
// each a located "tvmscript" diagnostic.
#include <gtest/gtest.h>

#include <cstring>

#include "support/diagnostic.h"
#include "tir/eval/eval.h"
#include "tir/printer/printer.h"
#include "tir/script/parser.h"
#include "tir/structural_equal.h"
#include "tir_examples.h"

namespace tessera::tir {
namespace {

// Seed 002's MyModule PrimFuncs as the seed writes them: T.handle params, `m, n, k = ...`,
// `T.float32(0)`, no T.reads/T.writes, a top-level T.alloc_buffer.
const char* kSeedModule = R"(@tvm.script.ir_module
class MyModule:
    @T.prim_func
    def relu0(x: T.handle, y: T.handle):
        n = T.int64()
        X = T.match_buffer(x, (1, n), "float32")
        Y = T.match_buffer(y, (1, n), "float32")
        for i, j in T.grid(1, n):
            with T.block("Y"):
                vi, vj = T.axis.remap("SS", [i, j])
                Y[vi, vj] = T.max(X[vi, vj], T.float32(0))

    @T.prim_func
    def linear0(x: T.handle,
                w: T.handle,
                b: T.handle,
                z: T.handle):
        m, n, k = T.int64(), T.int64(), T.int64()
        X = T.match_buffer(x, (1, m), "float32")
        W = T.match_buffer(w, (n, m), "float32")
        B = T.match_buffer(b, (n, ), "float32")
        Z = T.match_buffer(z, (1, n), "float32")
        Y = T.alloc_buffer((1, n), "float32")
        for i, j, k in T.grid(1, n, m):
            with T.block("Y"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    Y[vi, vj] = T.float32(0)
                Y[vi, vj] = Y[vi, vj] + X[vi, vk] * W[vj, vk]
        for i, j in T.grid(1, n):
            with T.block("Z"):
                vi, vj = T.axis.remap("SS", [i, j])
                Z[vi, vj] = Y[vi, vj] + B[vj]
)";

// Parses, prints, and checks that the printed text parses and prints to itself.
std::string printedRoundTrip(const std::string& text) {
  PrimFunc f = parsePrimFunc(text);
  std::string printed = toScript(f);
  PrimFunc again = parsePrimFunc(printed);
  EXPECT_EQ(toScript(again), printed);
  EXPECT_TRUE(structuralEqual(f, again));
  return printed;
}

TEST(TirScriptParser, SeedRelu0InfersRegionsAndRuns) {
  TirModule module = parseScript(kSeedModule, "seed002.py");
  ASSERT_EQ(module.functions().size(), 2u);
  PrimFunc relu = module.find("relu0");
  ASSERT_TRUE(relu);
  EXPECT_EQ(relu->params.size(), 2u);
  ASSERT_EQ(relu->bufferMap.size(), 2u);
  EXPECT_EQ(relu->bufferMap[0].second->name, "X");
  std::string text = toScript(relu);
  EXPECT_NE(text.find("def relu0(x: T.handle, y: T.handle):"), std::string::npos) << text;
  EXPECT_NE(text.find("n = T.int64()\n    X = T.match_buffer(x, (1, n))"), std::string::npos);
  EXPECT_NE(text.find("T.reads(X[vi, vj])\n            T.writes(Y[vi, vj])"), std::string::npos)
      << text;
  EXPECT_NE(text.find("T.max(X[vi, vj], T.float32(0.0))"), std::string::npos);
  // Runs: relu of a 1 x 5 row.
  NDArray x = NDArray::empty({1, 5}, DataType::float32());
  NDArray y = NDArray::empty({1, 5}, DataType::float32());
  float in[5] = {-2, -0.5f, 0, 1.5f, 3};
  std::memcpy(x.data(), in, sizeof in);
  evaluate(relu, {x, y});
  const float* out = static_cast<const float*>(y.data());
  for (int i = 0; i < 5; ++i) EXPECT_EQ(out[i], in[i] > 0 ? in[i] : 0.0f);
}

TEST(TirScriptParser, SeedLinear0HasRootAllocAndReduction) {
  PrimFunc linear = parseScript(kSeedModule).find("linear0");
  ASSERT_TRUE(linear);
  std::string text = toScript(linear);
  EXPECT_NE(text.find("# with T.block(\"root\"):\n    Y = T.alloc_buffer((1, n))"),
            std::string::npos)
      << text;
  // The update reads its own output; like TVM, the inferred reads do not list it.
  EXPECT_NE(text.find("T.reads(X[vi, vk], W[vj, vk])\n            T.writes(Y[vi, vj])"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("T.reads(Y[vi, vj], B[vj])"), std::string::npos);
  // X (1 x 3) @ W.T (2 x 3) + B.
  NDArray x = NDArray::empty({1, 3}, DataType::float32());
  NDArray w = NDArray::empty({2, 3}, DataType::float32());
  NDArray b = NDArray::empty({2}, DataType::float32());
  NDArray z = NDArray::empty({1, 2}, DataType::float32());
  float xs[3] = {1, 2, 3}, ws[6] = {1, 0, 1, 0, 1, 1}, bs[2] = {10, 20};
  std::memcpy(x.data(), xs, sizeof xs);
  std::memcpy(w.data(), ws, sizeof ws);
  std::memcpy(b.data(), bs, sizeof bs);
  evaluate(linear, {x, w, b, z});
  const float* out = static_cast<const float*>(z.data());
  EXPECT_EQ(out[0], 14.0f);
  EXPECT_EQ(out[1], 25.0f);
  printedRoundTrip(text);
}

TEST(TirScriptParser, PrinterExamplesRoundTrip) {
  for (const PrimFunc& f : {examples::matmulRelu(16), examples::decomposedMatmul(16),
                            examples::loweredMatmulRelu(), examples::symbolicRowMax()}) {
    std::string text = toScript(f);
    PrimFunc parsed = parsePrimFunc(text);
    EXPECT_EQ(toScript(parsed), text);
    EXPECT_TRUE(structuralEqual(f, parsed)) << text;
  }
}

TEST(TirScriptParser, LoopKinds) {
  std::string text = printedRoundTrip(R"(@T.prim_func
def main(A: T.Buffer((64,), "int32")):
    for i in T.parallel(4):
        for j in T.vectorized(4):
            for k in T.unroll(2):
                for t in T.thread_binding(2, thread="threadIdx.x"):
                    for s in T.serial(1, annotations={"pragma_x": 1}):
                        for r in range(2, 3):
                            A[i * 16 + j * 4 + k * 2 + t] = r + s
)");
  for (const char* part : {"T.parallel(4)", "T.vectorized(4)", "T.unroll(2)",
                           "T.thread_binding(2, thread=\"threadIdx.x\")",
                           "T.serial(1, annotations={\"pragma_x\": 1})", "range(2, 3)"})
    EXPECT_NE(text.find(part), std::string::npos) << part << "\n" << text;
}

TEST(TirScriptParser, BlockHeaderForms) {
  std::string text = printedRoundTrip(R"(@T.prim_func(private=True)
def tiled(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16,), "float32")):
    for i0, i1 in T.grid(4, 5):
        with T.block("B"):
            vi = T.axis.spatial(16, i0 * 4 + i1)
            vk = T.axis.reduce((2, 6), i1 + 2)
            T.where(i0 * 4 + i1 < 16)
            T.reads(A[vi, 0:16])
            T.writes(B[vi])
            T.block_attr({"meta_schedule.tiling_structure": "SSR"})
            tmp = T.alloc_buffer((4,), scope="local")
            sub = T.match_buffer(A[vi, 0:4], (4,), elem_offset=off, offset_factor=4)
            with T.init():
                B[vi] = T.float32(0.0)
            tmp[0] = sub[vk - 2] + T.Cast("float32", off)
            B[vi] = B[vi] + tmp[0]
)");
  EXPECT_NE(text.find("@T.prim_func(private=True)"), std::string::npos);
  EXPECT_NE(text.find("vk = T.axis.reduce((2, 6), i1 + 2)"), std::string::npos) << text;
  EXPECT_NE(text.find("T.where(i0 * 4 + i1 < 16)"), std::string::npos);
  EXPECT_NE(text.find("T.block_attr({\"meta_schedule.tiling_structure\": \"SSR\"})"),
            std::string::npos);
  EXPECT_NE(text.find("tmp = T.alloc_buffer((4,), scope=\"local\")"), std::string::npos);
  // The match buffer defines its offset variable (no `off = T.int32()` line).
  EXPECT_NE(text.find("sub = T.match_buffer(A[vi, 0:4], (4,), elem_offset=off, offset_factor=4)"),
            std::string::npos)
      << text;
}

TEST(TirScriptParser, ExpressionsPrintBack) {
  std::string text = printedRoundTrip(R"(@T.prim_func
def exprs(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "int64"), C: T.Buffer((8,), "float32")):
    for i in range(8):
        with T.block("e"):
            v = T.axis.spatial(8, i)
            T.reads(A[v], B[v])
            T.writes(C[v], B[v])
            C[v] = T.if_then_else(v < 4 and not v == 2, T.max(A[v], T.float32(1.5)), T.min(A[v], T.float32(-2.0)))
            C[v] = T.Select(v % 2 == 0 or v // 3 > 1, T.exp(A[v]), T.Cast("float32", B[v]))
            B[v] = T.int64(7) * B[v] + T.truncdiv(B[v], T.int64(3)) - T.truncmod(B[v], T.int64(2))
            C[v] = T.float32("inf") + T.Let(x * x, where={x: A[v]})
)");
  for (const char* part :
       {"T.if_then_else(v < 4 and not v == 2, T.max(A[v], T.float32(1.5)), T.min(A[v], "
        "T.float32(-2.0)))",
        "T.Select(v % 2 == 0 or v // 3 > 1, T.exp(A[v]), T.Cast(\"float32\", B[v]))",
        "T.int64(7) * B[v] + T.truncdiv(B[v], T.int64(3)) - T.truncmod(B[v], T.int64(2))",
        "T.float32(\"inf\")", "T.Let(x * x, where={x: A[v]})"})
    EXPECT_NE(text.find(part), std::string::npos) << part << "\n" << text;
}

TEST(TirScriptParser, FlatStatementsAndScopedForms) {
  std::string text = printedRoundTrip(R"(@T.prim_func
def flat(A: T.Buffer((16,), "float32"), n: T.int32):
    T.func_attr({"tir.noalias": T.bool(True), "target": "llvm"})
    A_1 = T.Buffer((4, 4), data=A.data)
    with T.LetStmt(n * 2) as m:
        A[m:m + 4] = T.Broadcast(T.float32(1.0), 4)
    with T.Assert(n > 0, "n must be positive"):
        A[0] = A_1[1, 1]
    with T.attr(A.data, "pragma_scope", 1):
        buf = T.allocate([4], "float32", "local")
        scratch = T.decl_buffer((4,), data=buf, scope="local")
        scratch[0] = T.float32(2.0)
        if n > 2:
            A[1] = scratch[0]
        else:
            T.evaluate(T.call_extern("int32", "abort", n))
    tmp = T.decl_buffer((2,), "int32")
    k: T.int32 = n + 1
    tmp[0] = k
    assert k > 1, "k"
    A[2] = T.Cast("float32", tmp[0])
)");
  for (const char* part :
       {"A_1 = T.Buffer((4, 4), data=A.data)",
        "with T.LetStmt(n * 2) as m:", "A[m:m + 4] = T.Broadcast(T.float32(1.0), 4)",
        "with T.Assert(n > 0, \"n must be positive\"):",
        "with T.attr(A.data, \"pragma_scope\", 1):",
        "scratch = T.decl_buffer((4,), scope=\"local\")",
        "else:", "T.call_extern(\"int32\", \"abort\", n)", "tmp = T.decl_buffer((2,), \"int32\")",
        "k: T.int32 = n + 1", "assert k > 1, \"k\""})
    EXPECT_NE(text.find(part), std::string::npos) << part << "\n" << text;
}

TEST(TirScriptParser, BufferViewOfALetBoundPointer) {
  // A view declared before the T.Let that binds its data (how SelectLoadSource's concatenation
  // prints): the let binds the view's own data variable.
  std::string text = printedRoundTrip(R"(@T.prim_func
def sel(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32"), C: T.Buffer((4,), "float32")):
    for i in range(4):
        src = T.Buffer((4,), data=p)
        C[i] = T.Let(src[i], where={p: T.Select(i < 2, A.data, B.data)})
)");
  EXPECT_NE(text.find("src = T.Buffer((4,), data=p)\n        C[i] = T.Let(src[i], where={p: "),
            std::string::npos)
      << text;
  PrimFunc f = parsePrimFunc(text);
  const auto* loop = f->body->as<ForNode>();
  ASSERT_TRUE(loop);
  const auto* store = loop->body->as<BufferStoreNode>();
  ASSERT_TRUE(store);
  const auto* let = store->value->as<LetNode>();
  ASSERT_TRUE(let);
  EXPECT_EQ(let->body->as<BufferLoadNode>()->buffer->data, let->var);
}

struct BadCase {
  const char* name;
  const char* text;
  int line;
  int column;
  const char* message;
};

const char* const kHead = "@T.prim_func\ndef f(A: T.Buffer((4, 4), \"float32\")):\n";

TEST(TirScriptParser, BadInputIsALocatedDiagnostic) {
  const BadCase cases[] = {
      {"undefined name", "    A[0, 0] = x\n", 3, 15, "undefined name 'x'"},
      {"index count", "    A[0] = T.float32(1.0)\n", 3, 5,
       "has 2 dimensions but is indexed with 1"},
      {"bad dedent",
       "    for i in range(4):\n        A[i, 0] = T.float32(0.0)\n      A[0, 0] = T.float32(0.0)\n",
       5, 7, "unindent does not match"},
      {"unterminated string", "    T.evaluate(\"abc)\n", 3, 16, "unterminated string literal"},
      {"unknown loop kind", "    for i in T.spin(4):\n        A[i, 0] = T.float32(0.0)\n", 3, 14,
       "unknown loop kind 'T.spin'"},
      {"remap count",
       "    for i, j in T.grid(4, 4):\n        with T.block(\"b\"):\n            vi = "
       "T.axis.remap(\"SS\", [i, j])\n",
       5, 18, "T.axis.remap has 2 kinds, 2 loop variables and 1 targets"},
      {"remap of a non-loop",
       "    for i in range(4):\n        with T.block(\"b\"):\n            vi, vj = "
       "T.axis.remap(\"SS\", [i, i + 1])\n",
       5, 45, "expected a variable"},
      {"types differ", "    for i in range(4):\n        A[i, 0] = A[i, 0] + i\n", 4, 19,
       "have types float32 and int32"},
      {"declaration in an expression", "    A[0, 0] = T.int64()\n", 3, 15, "declares a variable"},
      {"unknown dtype", "    B = T.alloc_buffer((4,), \"float33\")\n", 3, 30,
       "unknown dtype \"float33\""},
      {"stray character", "    A[0, 0] = $\n", 3, 15, "unexpected character '$'"},
      {"chained comparison", "    if 0 < 1 < 2:\n        A[0, 0] = T.float32(0.0)\n", 3, 14,
       "chained comparisons"},
      {"reads outside a block", "    T.reads(A[0, 0])\n", 3, 5,
       "only allowed at the start of a block"},
      {"unknown function", "    A[0, 0] = np.exp(A[0, 0])\n", 3, 15, "unknown function 'np.exp'"},
      {"float from int type", "    A[0, 0] = T.int32(1.5)\n", 3, 23,
       "cannot make a int32 from a float literal"},
      {"return", "    return A\n", 3, 5, "'return' is not supported"},
      {"missing block name", "    with T.block():\n        pass\n", 3, 10,
       "expected T.block(\"name\")"},
      {"condition not bool", "    if 1:\n        pass\n", 3, 8, "if condition must be boolean"},
      {"view of an unbound pointer", "    V = T.Buffer((16,), data=p)\n    V[0] = T.float32(0.0)\n",
       3, 30, "undefined name 'p' (the data of a buffer view)"},
      {"big integer", "    A[0, 0] = 99999999999999999999\n", 3, 15, "does not fit in 64 bits"},
  };
  for (const BadCase& c : cases) {
    std::string text = std::string(kHead) + c.text;
    try {
      parsePrimFunc(text, "bad.py");
      ADD_FAILURE() << c.name << ": parsed without error";
    } catch (const DiagnosticError& e) {
      const Diagnostic& d = e.diagnostic();
      EXPECT_EQ(d.code, "tvmscript") << c.name;
      EXPECT_EQ(d.span.line, c.line) << c.name << ": " << d.str();
      EXPECT_EQ(d.span.column, c.column) << c.name << ": " << d.str();
      EXPECT_NE(d.message.find(c.message), std::string::npos) << c.name << ": " << d.str();
      EXPECT_EQ(*d.span.source, "bad.py");
    }
  }
}

TEST(TirScriptParser, DeepNestingIsRejectedNotOverflowed) {
  std::string deep = std::string(kHead) + "    A[0, 0] = " + std::string(100000, '(') +
                     "T.float32(1.0)" + std::string(100000, ')') + "\n";
  try {
    parsePrimFunc(deep);
    ADD_FAILURE() << "parsed";
  } catch (const DiagnosticError& e) {
    EXPECT_NE(e.diagnostic().message.find("nesting is deeper than"), std::string::npos);
  }
  std::string negations =
      std::string(kHead) + "    A[0, 0] = " + std::string(100000, '-') + "T.float32(1.0)\n";
  EXPECT_THROW(parsePrimFunc(negations), DiagnosticError);
}

TEST(TirScriptParser, EveryPrefixOfTheSeedFailsCleanlyOrParses) {
  // Truncated input anywhere: a diagnostic (or a valid prefix), never a crash.
  std::string text = kSeedModule;
  size_t parsed = 0;
  for (size_t n = 0; n <= text.size(); n += 3) {
    try {
      parseScript(text.substr(0, n));
      ++parsed;
    } catch (const DiagnosticError& e) {
      EXPECT_EQ(e.diagnostic().code, "tvmscript");
    }
  }
  EXPECT_GE(parsed, 1u);
}

TEST(TirScriptParser, RelaxFunctionNeedsTheRelaxParser) {
  const char* text = R"(@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2,), dtype="float32")):
        return x
)";
  try {
    parseScript(text);
    ADD_FAILURE() << "parsed";
  } catch (const DiagnosticError& e) {
    EXPECT_EQ(e.diagnostic().span.line, 4);
    EXPECT_NE(e.diagnostic().message.find("is a Relax function"), std::string::npos);
  }
}

}  // namespace
}  // namespace tessera::tir
