// The VM: symbolic shapes at several sizes, high-level ops mixed with call_tir and
// call_dps_packed, tuples, and the errors a user can cause (wrong inputs, missing functions).
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "mlp_modules.h"
#include "relax/block_builder.h"
#include "relax/ops.h"
#include "relax/vm.h"
#include "relax_test_util.h"
#include "runtime/packed_func.h"
#include "topi/broadcast.h"

namespace tessera {
namespace {

using relax_test::diagnosticOf;
using relax_test::expectClose;
using relax_test::randomTensor;

TEST(VM, SymbolicShapesAtSeveralSizes) {
  relax::VirtualMachine vm(relax::compile(mlp_vm::myModule()));
  for (auto [m, n, k] :
       std::vector<std::tuple<int64_t, int64_t, int64_t>>{{3, 5, 2}, {16, 7, 4}, {784, 128, 10}}) {
    auto params = mlp_vm::randomParams(m, n, k, static_cast<uint32_t>(m));
    NDArray x = randomTensor({1, m}, 11);
    NDArray out = vm.run("main", {x, params["w0"], params["b0"], params["w1"], params["b1"]});
    EXPECT_EQ(out.shape(), (std::vector<int64_t>{1, k}));
    expectClose(out, mlp_vm::referenceMlp(x, params));
  }
}

// relax::compile runs as named, instrumented steps under a pass context: --time-passes and
// --print-after see LegalizeOps, every TIR pass by name, CodegenLLVM and CompileVM, and the
// context's config reaches the TIR lowering as in build().
TEST(VM, CompileRunsInstrumentedStepsUnderTheContext) {
  transform::PassContext ctx;
  ctx.timePasses = true;
  ctx.printAfter = {"FlattenBuffer"};
  std::ostringstream printed;
  ctx.printStream = &printed;
  ctx.setConfig("tir.disable_vectorize", "true");
  relax::VirtualMachine vm(relax::compile(mlp_vm::myModule(), ctx));
  std::vector<std::string> names;
  for (const transform::PassTiming& t : ctx.timings) names.push_back(t.name);
  for (const char* step : {"LegalizeOps", "LowerInitBlock", "FlattenBuffer", "VectorizeLoop",
                           "CodegenLLVM", "CompileVM"})
    EXPECT_NE(std::find(names.begin(), names.end(), step), names.end()) << step;
  EXPECT_NE(printed.str().find("// after FlattenBuffer"), std::string::npos);
  EXPECT_EQ(printed.str().find("T.Broadcast"), std::string::npos);
  auto params = mlp_vm::randomParams(3, 5, 2, 3);
  NDArray x = randomTensor({1, 3}, 11);
  expectClose(vm.run("main", {x, params["w0"], params["b0"], params["w1"], params["b1"]}),
              mlp_vm::referenceMlp(x, params));
}

/// Reference of y = relu(a @ b + c) * permute(d) for (p, q) x (q, r).
NDArray reference(const NDArray& a, const NDArray& b, const NDArray& c, const NDArray& d) {
  int64_t p = a.shape()[0], q = a.shape()[1], r = b.shape()[1];
  NDArray out = NDArray::empty({p, r}, DataType::float32());
  for (int64_t i = 0; i < p; ++i)
    for (int64_t j = 0; j < r; ++j) {
      double acc = 0;
      for (int64_t t = 0; t < q; ++t) acc += a.getFloat(i * q + t) * b.getFloat(t * r + j);
      acc = std::max(acc + c.getFloat(j), 0.0);
      out.setFloat(i * r + j, acc * d.getFloat(j * p + i));
    }
  return out;
}

TEST(VM, HighLevelOpsMixedWithCallTirAndPackedCalls) {
  mlp_vm::registerEnvFunctions();
  relax::SymbolScope s;
  const DataType f32 = DataType::float32();
  relax::Var a = relax::makeVar("a", s.tensor({"p", "q"}, f32));
  relax::Var b = relax::makeVar("b", s.tensor({"q", "r"}, f32));
  relax::Var c = relax::makeVar("c", s.tensor({"r"}, f32));
  relax::Var d = relax::makeVar("d", s.tensor({"r", "p"}, f32));
  relax::BlockBuilder bb;
  bb.function("main", std::vector<relax::Var>{a, b, c, d});
  relax::Var out;
  {
    auto df = bb.dataflow();
    relax::Var mm = bb.emit(relax::matmul(a, b));
    relax::Var biased =
        bb.emitTe("bias_add", [](const auto& t) { return topi::add(t[0], t[1]); }, {mm, c});
    relax::Var r = bb.emit(relax::callDpsPacked("env.relu", {biased}, biased->sinfo));
    out = bb.emitOutput(relax::multiply(r, relax::permuteDims(d)));
  }
  bb.emitFuncOutput(out);
  relax::Executable exec = relax::compile(bb.get());
  EXPECT_NE(exec.asText().find("call_kernel matmul"), std::string::npos) << exec.asText();
  EXPECT_NE(exec.asText().find("call_packed env.relu"), std::string::npos);
  relax::VirtualMachine vm(std::move(exec));
  for (auto [p, q, r] :
       std::vector<std::tuple<int64_t, int64_t, int64_t>>{{2, 3, 4}, {5, 8, 1}, {7, 16, 9}}) {
    NDArray va = randomTensor({p, q}, 1), vb = randomTensor({q, r}, 2), vc = randomTensor({r}, 3),
            vd = randomTensor({r, p}, 4);
    expectClose(vm.run("main", {va, vb, vc, vd}), reference(va, vb, vc, vd));
  }
}

TEST(VM, TupleOutputs) {
  relax::SymbolScope s;
  relax::Var x = relax::makeVar("x", s.tensor({"n"}, DataType::float32()));
  relax::BlockBuilder bb;
  bb.function("main", std::vector<relax::Var>{x});
  relax::Var r = bb.emit(relax::relu(x));
  relax::Var t = bb.emit(relax::makeTuple({r, x}));
  relax::Var first = bb.emit(relax::makeTupleGetItem(t, 0));
  relax::Var pair = bb.emit(relax::makeTuple({x, first}));
  bb.emitFuncOutput(pair);
  relax::VirtualMachine vm(relax::compile(bb.get()));
  NDArray in = randomTensor({6}, 9);
  relax::VMValue v = vm.invoke("main", {in});
  ASSERT_TRUE(v.isTuple());
  ASSERT_EQ(v.tuple->size(), 2u);
  EXPECT_EQ((*v.tuple)[0].tensor.data(), in.data());
  for (int64_t i = 0; i < 6; ++i)
    EXPECT_EQ((*v.tuple)[1].tensor.getFloat(i), std::max(in.getFloat(i), 0.0));
  EXPECT_EQ(diagnosticOf([&] { vm.run("main", {in}); }),
            "vm_call: main: returns a tuple; use invoke()");
}

TEST(VM, WrongInputsNameTheParameter) {
  relax::VirtualMachine vm(relax::compile(mlp_vm::myModule()));
  auto params = mlp_vm::randomParams(8, 4, 2, 1);
  NDArray x = randomTensor({1, 8}, 1);
  EXPECT_EQ(diagnosticOf([&] { vm.run("main", {x}); }),
            "vm_input: main: expected 5 arguments, got 1");
  EXPECT_EQ(diagnosticOf([&] {
              vm.run("main", {randomTensor({2, 8}, 1), params["w0"], params["b0"], params["w1"],
                              params["b1"]});
            }),
            "vm_input: main: argument 0 ('x', R.Tensor((1, m), dtype=\"float32\")) got Tensor[(2, "
            "8), float32]: "
            "dimension 0 must be 1, got 2");
  // w0's m must agree with x's.
  EXPECT_EQ(diagnosticOf([&] {
              vm.run("main",
                     {x, randomTensor({4, 9}, 1), params["b0"], params["w1"], params["b1"]});
            }),
            "vm_input: main: argument 1 ('w0', R.Tensor((n, m), dtype=\"float32\")) got Tensor[(4, "
            "9), float32]: "
            "dimension 1 must be m = 8, got 9");
  EXPECT_EQ(diagnosticOf([&] {
              vm.run("main",
                     {x, params["w0"], params["b0"], params["w1"], randomTensor({2, 1}, 1)});
            }),
            "vm_input: main: argument 4 ('b1', R.Tensor((k,), dtype=\"float32\")) got Tensor[(2, "
            "1), float32]: "
            "expected rank 1, got 2");
  EXPECT_EQ(diagnosticOf([&] {
              vm.run("main", {NDArray::empty({1, 8}, DataType::int32()), params["w0"], params["b0"],
                              params["w1"], params["b1"]});
            }),
            "vm_input: main: argument 0 ('x', R.Tensor((1, m), dtype=\"float32\")) got Tensor[(1, "
            "8), int32]: "
            "expected dtype float32, got int32");
  EXPECT_EQ(diagnosticOf([&] { vm.run("nothing", {}); }),
            "vm_input: the executable has no function named 'nothing'");
}

TEST(VM, MissingPackedFunctionIsReportedAtLoad) {
  removeGlobal("env.linear");
  removeGlobal("env.relu");
  relax::Executable exec = relax::compile(mlp_vm::myModuleWithExternCall());
  EXPECT_EQ(diagnosticOf([&] { relax::VirtualMachine vm(exec); }),
            "vm_missing_function: main: call_dps_packed target 'env.linear' is neither a compiled "
            "PrimFunc nor a "
            "registered packed function");
  mlp_vm::registerEnvFunctions();
  EXPECT_EQ(diagnosticOf([&] { relax::VirtualMachine vm(exec); }), "no error");
}

TEST(VM, CompileErrors) {
  relax::SymbolScope s;
  relax::Var x = relax::makeVar("x", s.tensor({int64_t{4}}, DataType::float32()));
  relax::BlockBuilder bb;
  bb.function("main", std::vector<relax::Var>{x});
  relax::Var y = bb.emit(relax::callTir("missing_kernel", {x}, x->sinfo));
  bb.emitFuncOutput(y);
  EXPECT_EQ(diagnosticOf([&] { relax::compile(bb.get()); }),
            "vm_compile: main: call_tir target 'missing_kernel' is not a PrimFunc of the module");
  EXPECT_EQ(diagnosticOf([&] {
              relax::add(x, relax::makeVar("z", s.tensor({int64_t{3}}, DataType::float32())));
            }),
            "relax_op: relax.add: cannot broadcast dimension 4 with 3 (shapes R.Tensor((4,), "
            "dtype=\"float32\") "
            "and R.Tensor((3,), dtype=\"float32\"))");
}

}  // namespace
}  // namespace tessera
