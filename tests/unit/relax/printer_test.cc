// Golden TVMScript of Relax modules: seed 002's MyModule main (spec §5.5), the BlockBuilder
// example module with its emit_te PrimFuncs, and the bound-parameter module with metadata.
#include <gtest/gtest.h>

#include "mlp_modules.h"
#include "relax/bind_params.h"
#include "relax/block_builder.h"
#include "relax/printer.h"
#include "te/reduce.h"

namespace tessera {
namespace {

te::Tensor teMatmul(const std::vector<te::Tensor>& t) {
  const te::Tensor &a = t[0], &b = t[1];
  te::IterVar k = te::reduceAxis(tir::Range{tir::intImm(0, DataType::int64()), a.shape()[1]}, "k");
  te::ComputeOptions options;
  options.name = "matmul";
  options.indexNames = {"i", "j"};
  return te::compute(
      {{a.shape()[0], b.shape()[1]}},
      [&](tir::Var i, tir::Var j) { return te::sum(a(i, k.var) * b(k.var, j), {k}); }, options);
}

te::Tensor teRelu(const std::vector<te::Tensor>& t) {
  te::ComputeOptions options;
  options.name = "relu";
  options.indexNames = {"i", "j"};
  return te::compute(
      t[0].shape(),
      [&](tir::Var i, tir::Var j) { return tir::max(t[0](i, j), tir::floatImm(0.0)); }, options);
}

TEST(RelaxPrinter, SeedMyModuleMain) {
  relax::IRModule mod = mlp_vm::myModule();
  EXPECT_EQ(relax::toScript(mod.relaxFunction("main"), "main"),
            R"(@R.function
def main(x: R.Tensor((1, "m"), dtype="float32"), w0: R.Tensor(("n", "m"), dtype="float32"), b0: R.Tensor(("n",), dtype="float32"), w1: R.Tensor(("k", "n"), dtype="float32"), b1: R.Tensor(("k",), dtype="float32")) -> R.Tensor((1, "k"), dtype="float32"):
    k = T.int64()
    m = T.int64()
    n = T.int64()
    with R.dataflow():
        lv0 = R.call_dps_packed("linear0", (x, w0, b0), out_sinfo=R.Tensor((1, n), dtype="float32"))
        lv1 = R.call_dps_packed("relu0", (lv0,), out_sinfo=R.Tensor((1, n), dtype="float32"))
        out = R.call_dps_packed("linear0", (lv1, w1, b1), out_sinfo=R.Tensor((1, k), dtype="float32"))
        R.output(out)
    return out
)");
}

TEST(RelaxPrinter, SeedBlockBuilderModule) {
  relax::StructInfo t = relax::tensorSInfo({relax::dim(128), relax::dim(128)}, DataType::float32());
  relax::Var a = relax::makeVar("A", t);
  relax::Var b = relax::makeVar("B", t);
  relax::BlockBuilder bb;
  bb.function("main");
  relax::Var r;
  {
    auto df = bb.dataflow();
    relax::Var c = bb.emitTe("te_matmul", teMatmul, {a, b});
    relax::Var d = bb.emitTe("te_relu", teRelu, {c});
    r = bb.emitOutput(d);
  }
  bb.emitFuncOutput(r, std::vector<relax::Var>{a, b});
  EXPECT_EQ(relax::toScript(bb.get()), R"(# from tvm.script import ir as I
# from tvm.script import tir as T
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True)
    def te_matmul(A: T.Buffer((T.int64(128), T.int64(128)), "float32"), B: T.Buffer((T.int64(128), T.int64(128)), "float32"), matmul: T.Buffer((T.int64(128), T.int64(128)), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        # with T.block("root"):
        for i, j, k in T.grid(T.int64(128), T.int64(128), T.int64(128)):
            with T.block("matmul"):
                v_i, v_j, v_k = T.axis.remap("SSR", [i, j, k])
                T.reads(A[v_i, v_k], B[v_k, v_j])
                T.writes(matmul[v_i, v_j])
                with T.init():
                    matmul[v_i, v_j] = T.float32(0.0)
                matmul[v_i, v_j] = matmul[v_i, v_j] + A[v_i, v_k] * B[v_k, v_j]

    @T.prim_func(private=True)
    def te_relu(lv: T.Buffer((T.int64(128), T.int64(128)), "float32"), relu: T.Buffer((T.int64(128), T.int64(128)), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        # with T.block("root"):
        for i, j in T.grid(T.int64(128), T.int64(128)):
            with T.block("relu"):
                v_i, v_j = T.axis.remap("SS", [i, j])
                T.reads(lv[v_i, v_j])
                T.writes(relu[v_i, v_j])
                relu[v_i, v_j] = T.max(lv[v_i, v_j], T.float32(0.0))

    @R.function
    def main(A: R.Tensor((128, 128), dtype="float32"), B: R.Tensor((128, 128), dtype="float32")) -> R.Tensor((128, 128), dtype="float32"):
        cls = Module
        with R.dataflow():
            lv = R.call_tir(cls.te_matmul, (A, B), out_sinfo=R.Tensor((128, 128), dtype="float32"))
            lv1 = R.call_tir(cls.te_relu, (lv,), out_sinfo=R.Tensor((128, 128), dtype="float32"))
            gv: R.Tensor((128, 128), dtype="float32") = lv1
            R.output(gv)
        return gv
)");
}

TEST(RelaxPrinter, BoundParamsPrintAsMetadata) {
  auto params = mlp_vm::randomParams(784, 128, 10, 1);
  relax::IRModule bound = relax::bindParams(mlp_vm::myModuleMixture(), "main", params);
  EXPECT_EQ(relax::toScript(bound.relaxFunction("main"), "main"), R"(@R.function
def main(x: R.Tensor((1, 784), dtype="float32")) -> R.Tensor((1, 10), dtype="float32"):
    with R.dataflow():
        lv0 = R.call_dps_packed("linear0", (x, metadata["relax.expr.Constant"][0], metadata["relax.expr.Constant"][1]), out_sinfo=R.Tensor((1, 128), dtype="float32"))
        lv1 = R.call_dps_packed("env.relu", (lv0,), out_sinfo=R.Tensor((1, 128), dtype="float32"))
        out = R.call_dps_packed("env.linear", (lv1, metadata["relax.expr.Constant"][2], metadata["relax.expr.Constant"][3]), out_sinfo=R.Tensor((1, 10), dtype="float32"))
        R.output(out)
    return out
# Metadata omitted. Use show_meta=True in script() method to show it.
)");
}

}  // namespace
}  // namespace tessera
