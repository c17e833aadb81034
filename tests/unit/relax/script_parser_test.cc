// The Relax TVMScript parser: seed 002's MyModule and MyModuleWithExternCall as the seed writes
// them, parsed and run on the VM against the NumPy-style reference; every Relax module the suite
// builds printed, parsed and printed again; and bad input as located diagnostics.
#include <gtest/gtest.h>

#include "mlp_modules.h"
#include "relax/printer.h"
#include "relax/script_parser.h"
#include "relax/vm.h"
#include "relax_test_util.h"
#include "test_util.h"
#include "tir/structural_equal.h"

namespace tessera {
namespace {

using relax_test::expectClose;
using relax_test::randomTensor;

// Seed 002's MyModule, as the seed writes it (with its `tvm.script` decorator and imports); the
// same file the Python tests and the fuzz corpus start from.
const std::string& seedMyModule() {
  static const std::string text =
      test::readFile(test::sourcePath("tests/data/tvmscript/seed002_my_module.py"));
  return text;
}

const char* kSeedExternCall = R"(@tvm.script.ir_module
class MyModuleWithExternCall:
    @R.function
    def main(x: R.Tensor((1, "m"), "float32"),
             w0: R.Tensor(("n", "m"), "float32"),
             b0: R.Tensor(("n", ), "float32"),
             w1: R.Tensor(("k", "n"), "float32"),
             b1: R.Tensor(("k", ), "float32")):
        # block 0
        m, n, k = T.int64(), T.int64(), T.int64()
        with R.dataflow():
            lv0 = R.call_dps_packed("env.linear", (x, w0, b0), R.Tensor((1, n), "float32"))
            lv1 = R.call_dps_packed("env.relu", (lv0, ), R.Tensor((1, n), "float32"))
            out = R.call_dps_packed("env.linear", (lv1, w1, b1), R.Tensor((1, k), "float32"))
            R.output(out)
        return out
)";

void expectRunsLikeTheReference(const relax::IRModule& mod, int64_t m, int64_t n, int64_t k) {
  relax::VirtualMachine vm(relax::compile(mod));
  auto params = mlp_vm::randomParams(m, n, k, 7);
  NDArray x = randomTensor({1, m}, 3);
  NDArray out = vm.run("main", {x, params["w0"], params["b0"], params["w1"], params["b1"]});
  expectClose(out, mlp_vm::referenceMlp(x, params));
}

std::string reprinted(const std::string& text) {
  return relax::toScript(relax::parseScript(text));
}

TEST(RelaxScriptParser, SeedMyModuleParsesAndRuns) {
  relax::IRModule mod = relax::parseScript(seedMyModule(), "seed002.py");
  ASSERT_EQ(mod.entries().size(), 3u);
  EXPECT_EQ(mod.entries()[2].name, "main");
  relax::Function main = mod.relaxFunction("main");
  EXPECT_EQ(main->params.size(), 5u);
  ASSERT_EQ(main->blocks.size(), 1u);
  EXPECT_TRUE(main->blocks[0].dataflow);
  EXPECT_TRUE(main->blocks[0].bindings[0].var->dataflow);   // lv0
  EXPECT_FALSE(main->blocks[0].bindings[2].var->dataflow);  // out, listed in R.output
  std::string text = relax::toScript(mod);
  EXPECT_NE(text.find("def main(x: R.Tensor((1, \"m\"), dtype=\"float32\"), w0: R.Tensor((\"n\", "
                      "\"m\"), dtype=\"float32\")"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("-> R.Tensor((1, \"k\"), dtype=\"float32\"):"), std::string::npos);
  EXPECT_NE(text.find("lv1 = R.call_dps_packed(\"relu0\", (lv0,), out_sinfo=R.Tensor((1, n), "
                      "dtype=\"float32\"))"),
            std::string::npos)
      << text;
  EXPECT_EQ(reprinted(text), text);
  expectRunsLikeTheReference(mod, 784, 128, 10);
  expectRunsLikeTheReference(mod, 5, 3, 2);
}

TEST(RelaxScriptParser, SeedMyModuleMatchesTheBuiltOne) {
  // main equals the one examples/mlp_vm builds with the C++ API. (The seed's PrimFuncs write
  // `T.grid(1, n)` with an int32 1 where create_prim_func makes an int64 one, so they differ.)
  relax::IRModule parsed = relax::parseScript(seedMyModule());
  relax::IRModule built = mlp_vm::myModule();
  EXPECT_EQ(relax::toScript(parsed.relaxFunction("main"), "main"),
            relax::toScript(built.relaxFunction("main"), "main"));
}

TEST(RelaxScriptParser, SeedExternCallRunsRegisteredFunctions) {
  mlp_vm::registerEnvFunctions();
  relax::IRModule mod = relax::parseScript(kSeedExternCall);
  EXPECT_EQ(mod.entries().size(), 1u);
  expectRunsLikeTheReference(mod, 784, 128, 10);
}

TEST(RelaxScriptParser, EveryBuiltModuleRoundTrips) {
  mlp_vm::registerEnvFunctions();
  for (const relax::IRModule& mod : {mlp_vm::myModule(), mlp_vm::myModuleWithExternCall(),
                                     mlp_vm::myModuleMixture(), mlp_vm::myModuleMixture(6, 4, 3)}) {
    std::string text = relax::toScript(mod);
    relax::IRModule parsed = relax::parseScript(text);
    EXPECT_EQ(relax::toScript(parsed), text);
    for (const relax::IRModule::Entry& e : mod.entries())
      if (const auto* prim = std::get_if<tir::PrimFunc>(&e.func))
        EXPECT_TRUE(tir::structuralEqual(*prim, parsed.primFunc(e.name))) << e.name;
  }
  // The mixture parsed from its text computes what the built one does.
  relax::IRModule mixture = relax::parseScript(relax::toScript(mlp_vm::myModuleMixture(6, 4, 3)));
  expectRunsLikeTheReference(mixture, 6, 4, 3);
}

TEST(RelaxScriptParser, PrintedBlockBuilderModule) {
  // relax/printer_test's emit_te module, as printed: call_tir through `cls`, private PrimFuncs,
  // an annotated alias binding, high-level ops.
  const char* text = R"(# from tvm.script import ir as I
# from tvm.script import tir as T
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True)
    def te_relu(lv: T.Buffer((T.int64(4), T.int64(4)), "float32"), relu: T.Buffer((T.int64(4), T.int64(4)), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        # with T.block("root"):
        for i, j in T.grid(T.int64(4), T.int64(4)):
            with T.block("relu"):
                v_i = T.axis.spatial(T.int64(4), i)
                v_j = T.axis.spatial(T.int64(4), j)
                T.reads(lv[v_i, v_j])
                T.writes(relu[v_i, v_j])
                relu[v_i, v_j] = T.max(lv[v_i, v_j], T.float32(0.0))

    @R.function
    def main(A: R.Tensor((4, 4), dtype="float32"), B: R.Tensor((4, 4), dtype="float32")) -> R.Tuple(R.Tensor((4, 4), dtype="float32"), R.Tensor((4, 4), dtype="float32")):
        cls = Module
        with R.dataflow():
            lv = R.matmul(A, B, out_dtype="void")
            lv1 = R.call_tir(cls.te_relu, (lv,), out_sinfo=R.Tensor((4, 4), dtype="float32"))
            lv2 = R.add(lv1, A)
            lv3 = R.permute_dims(lv2, axes=[1, 0])
            gv: R.Tensor((4, 4), dtype="float32") = lv3
            gv1 = R.nn.relu(R.multiply(gv, B))
            R.output(gv, gv1)
        t = (gv, gv1)
        return t
)";
  try {
    relax::parseScript(text);
    ADD_FAILURE() << "a nested call is not in normal form";
  } catch (const DiagnosticError& e) {
    EXPECT_EQ(e.diagnostic().span.line, 28);
    EXPECT_NE(e.diagnostic().message.find("normal form"), std::string::npos);
  }
  std::string normal = text;
  normal.replace(normal.find("gv1 = R.nn.relu(R.multiply(gv, B))"),
                 std::string("gv1 = R.nn.relu(R.multiply(gv, B))").size(),
                 "lv4 = R.multiply(gv, B)\n            gv1 = R.nn.relu(lv4)");
  relax::IRModule mod = relax::parseScript(normal);
  std::string printed = relax::toScript(mod);
  EXPECT_EQ(printed, normal);
  // Runs: relu(A @ B) + A, transposed, and relu(that * B).
  relax::VirtualMachine vm(relax::compile(mod));
  NDArray a = randomTensor({4, 4}, 1), b = randomTensor({4, 4}, 2);
  relax::VMValue result = vm.invoke("main", {a, b});
  (void)result;
}

struct BadRelax {
  const char* name;
  const char* body;
  int line;
  int column;
  const char* message;
};

TEST(RelaxScriptParser, BadInputIsALocatedDiagnostic) {
  const char* head =
      "@I.ir_module\nclass Module:\n    @R.function\n    def main(x: R.Tensor((2, \"n\"), "
      "\"float32\")):\n";
  const BadRelax cases[] = {
      {"undefined variable", "        return y\n", 5, 16, "undefined variable 'y'"},
      {"no R.output",
       "        with R.dataflow():\n            lv = R.nn.relu(x)\n        return lv\n", 5, 9,
       "ends with R.output"},
      {"dataflow var after its block",
       "        with R.dataflow():\n            lv = R.nn.relu(x)\n            gv = "
       "R.nn.relu(lv)\n            R.output(gv)\n        return lv\n",
       9, 16, "undefined variable 'lv'"},
      {"call_tir of a missing PrimFunc",
       "        cls = Module\n        lv = R.call_tir(cls.nope, (x,), out_sinfo=R.Tensor((2, n), "
       "\"float32\"))\n        return lv\n",
       6, 25, "no PrimFunc named 'nope'"},
      {"metadata constant",
       "        lv = R.add(x, metadata[\"relax.expr.Constant\"][0])\n        return lv\n", 5, 23,
       "constants are not part of the text"},
      {"unsupported op", "        lv = R.nn.softmax(x)\n        return lv\n", 5, 14,
       "unsupported Relax function 'R.nn.softmax'"},
      {"op misuse", "        lv = R.matmul(x, x)\n        return lv\n", 5, 14,
       "reduction dimensions differ"},
      {"undefined shape variable",
       "        lv = R.call_dps_packed(\"f\", (x,), R.Tensor((2, \"q\"), \"float32\"))\n        "
       "return lv\n",
       5, 56, "undefined shape variable \"q\""},
      {"no return", "        lv = R.nn.relu(x)\n", 4, 5, "has no 'return'"},
      {"tir_vars",
       "        cls = Module\n        lv = R.call_tir(cls.f, (x,), out_sinfo=R.Tensor((2,), "
       "\"float32\"), tir_vars=R.shape([1]))\n        return lv\n",
       6, 84, "tir_vars is not supported"},
  };
  for (const BadRelax& c : cases) {
    try {
      relax::parseScript(std::string(head) + c.body, "bad.py");
      ADD_FAILURE() << c.name << ": parsed";
    } catch (const DiagnosticError& e) {
      const Diagnostic& d = e.diagnostic();
      EXPECT_EQ(d.span.line, c.line) << c.name << ": " << d.str();
      EXPECT_EQ(d.span.column, c.column) << c.name << ": " << d.str();
      EXPECT_NE(d.message.find(c.message), std::string::npos) << c.name << ": " << d.str();
    }
  }
}

TEST(RelaxScriptParser, LoneFunction) {
  auto [name, func] = relax::parseFunction(R"(@R.function
def double(x: R.Tensor(("n",), dtype="float32")) -> R.Tensor(("n",), dtype="float32"):
    n = T.int64()
    y = R.add(x, x)
    return y
)");
  EXPECT_EQ(name, "double");
  EXPECT_EQ(func->params.size(), 1u);
  EXPECT_FALSE(func->blocks.at(0).dataflow);
  EXPECT_THROW(relax::parseFunction("@T.prim_func\ndef f():\n    T.evaluate(0)\n"),
               DiagnosticError);
}

}  // namespace
}  // namespace tessera
