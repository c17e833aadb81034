// BindParams (symbolic dimensions inferred from the constants) and updateFunc (replacing one
// PrimFunc by a scheduled one keeps the results).
#include <gtest/gtest.h>

#include "mlp_modules.h"
#include "relax/bind_params.h"
#include "relax/printer.h"
#include "relax/vm.h"
#include "relax_test_util.h"
#include "tir/schedule/schedule.h"

namespace tessera {
namespace {

using relax_test::diagnosticOf;

TEST(BindParams, InfersSymbolicDimensions) {
  auto params = mlp_vm::randomParams(20, 6, 3, 2);
  relax::IRModule mod = mlp_vm::myModule();
  relax::IRModule bound = relax::bindParams(mod, "main", params);
  // m, n, k are inferred (20, 6, 3) and substituted into x's annotation and every out_sinfo.
  EXPECT_EQ(relax::toScript(bound.relaxFunction("main"), "main"), R"(@R.function
def main(x: R.Tensor((1, 20), dtype="float32")) -> R.Tensor((1, 3), dtype="float32"):
    with R.dataflow():
        lv0 = R.call_dps_packed("linear0", (x, metadata["relax.expr.Constant"][0], metadata["relax.expr.Constant"][1]), out_sinfo=R.Tensor((1, 6), dtype="float32"))
        lv1 = R.call_dps_packed("relu0", (lv0,), out_sinfo=R.Tensor((1, 6), dtype="float32"))
        out = R.call_dps_packed("linear0", (lv1, metadata["relax.expr.Constant"][2], metadata["relax.expr.Constant"][3]), out_sinfo=R.Tensor((1, 3), dtype="float32"))
        R.output(out)
    return out
# Metadata omitted. Use show_meta=True in script() method to show it.
)");
  // PrimFuncs stay symbolic and untouched.
  EXPECT_EQ(bound.primFunc("linear0"), mod.primFunc("linear0"));
  relax::VirtualMachine vm(relax::compile(bound));
  NDArray x = relax_test::randomTensor({1, 20}, 3);
  relax_test::expectClose(vm.run("main", {x}), mlp_vm::referenceMlp(x, params));
}

TEST(BindParams, PartialBindingKeepsRemainingParams) {
  auto params = mlp_vm::randomParams(20, 6, 3, 2);
  relax::IRModule bound = relax::bindParams(mlp_vm::myModule(), "main", {{"w0", params["w0"]}});
  relax::Function f = bound.relaxFunction("main");
  ASSERT_EQ(f->params.size(), 4u);
  EXPECT_EQ(relax::sinfoScript(f->params[1]->sinfo),
            "R.Tensor((6,), dtype=\"float32\")");  // b0: n = 6
  EXPECT_EQ(relax::sinfoScript(f->params[2]->sinfo, true),
            "R.Tensor((\"k\", 6), dtype=\"float32\")");
}

TEST(BindParams, Errors) {
  relax::IRModule mod = mlp_vm::myModule();
  NDArray w = NDArray::empty({6, 20}, DataType::float32());
  EXPECT_EQ(diagnosticOf([&] { relax::bindParams(mod, "main", {{"w9", w}}); }),
            "bind_params: function 'main' does not have parameter with name 'w9'");
  EXPECT_EQ(diagnosticOf([&] {
              relax::bindParams(mod, "main", {{"w0", NDArray::empty({6, 20}, DataType::int32())}});
            }),
            "bind_params: parameter 'w0' has dtype float32, the value int32");
  EXPECT_EQ(diagnosticOf([&] {
              relax::bindParams(mod, "main", {{"w0", NDArray::empty({6}, DataType::float32())}});
            }),
            "bind_params: parameter 'w0' has rank 2, the value 1");
  EXPECT_EQ(diagnosticOf([&] {
              relax::bindParams(mod, "main",
                                {{"b0", NDArray::empty({5}, DataType::float32())}, {"w0", w}});
            }),
            "bind_params: symbolic dimension 'n' is 5 from an earlier parameter but 6 in 'w0'");
  EXPECT_EQ(diagnosticOf([&] { relax::bindParams(mod, "nothing", {}); }),
            "relax_module: module has no Relax function named 'nothing'");
}

/// linear0 for fixed shapes, scheduled: the output loop split by 16, as a tuned kernel would be.
tir::PrimFunc tunedLinear0(int64_t in, int64_t hidden) {
  tir::Schedule sch(mlp_vm::linear0(in, hidden));
  auto loops = sch.getLoops(sch.getBlock("Y"));
  sch.split(loops[1], {std::monostate{}, int64_t{16}});
  return sch.func();
}

TEST(UpdateFunc, ReplacingLinear0KeepsResults) {
  mlp_vm::registerEnvFunctions();
  auto params = mlp_vm::randomParams(784, 128, 10, 4);
  relax::IRModule mod = relax::bindParams(mlp_vm::myModuleMixture(), "main", params);
  NDArray x = relax_test::randomTensor({1, 784}, 5);
  NDArray before = relax::VirtualMachine(relax::compile(mod)).run("main", {x});
  tir::PrimFunc tuned = tunedLinear0(784, 128);
  mod.update("linear0", tuned);
  EXPECT_EQ(mod.primFunc("linear0"), tuned);
  EXPECT_EQ(mod.entries().front().name, "linear0");  // replaced in place
  NDArray after = relax::VirtualMachine(relax::compile(mod)).run("main", {x});
  relax_test::expectClose(after, before, 1e-5);
  relax_test::expectClose(after, mlp_vm::referenceMlp(x, params));
  EXPECT_EQ(diagnosticOf([&] { mod.update("linear9", tuned); }),
            "relax_module: update_func: module has no function named 'linear9'");
}

}  // namespace
}  // namespace tessera
