// build(): modules with control flow compiled for the VM, each checked against the reference
// interpreter (the oracle) on the same inputs: `if` on run-time values, loops written as
// recursion (tail calls run in place), kernels with packed weights inside branches, and the clean
// errors for what the VM does not run yet.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <regex>

#include <gtest/gtest.h>

#include "build_test_util.h"
#include "driver/build.h"
#include "frontend/onnx/importer.h"
#include "runtime/vm/vm.h"
#include "runtime/vm/vm_file.h"
#include "unit/frontend/onnx_graph_builder.h"

namespace tessera::driver {
namespace {

using test::parse;

std::vector<NDArray> runVM(const Built& built, const std::vector<relay::Value>& inputs) {
  std::vector<NDArray> args;
  for (const relay::Value& v : inputs) args.push_back(v.tensor());
  runtime::vm::VirtualMachine vm(*built.exec);
  return test::flatten(vm.invoke("main", args));
}

::testing::AssertionResult vmMatchesInterpreter(const relay::IRModule& module,
                                                const std::vector<relay::Value>& inputs,
                                                double rtol = 1e-4, double atol = 1e-5) {
  const Built built = build(module, codegen::hostTarget(), {}, {.executor = Executor::kVM});
  const std::vector<NDArray> expected = test::flatten(relay::Interpreter(module).run(inputs));
  const std::vector<NDArray> got = runVM(built, inputs);
  if (got.size() != expected.size())
    return ::testing::AssertionFailure() << got.size() << " outputs, expected " << expected.size();
  for (size_t i = 0; i < got.size(); ++i) {
    const bool exact = !expected[i].dtype().isFloat();
    auto r = tessera::test::allClose(got[i], expected[i], exact ? 0 : rtol, exact ? 0 : atol);
    if (!r) return ::testing::AssertionFailure() << "output " << i << ": " << r.message();
  }
  return ::testing::AssertionSuccess();
}

NDArray boolScalar(bool v) {
  NDArray a = NDArray::empty({}, DataType::boolType());
  a.setInt(0, v ? 1 : 0);
  return a;
}

NDArray int64Scalar(int64_t v) {
  NDArray a = NDArray::empty({}, DataType::int64());
  a.setInt(0, v);
  return a;
}

// Both branches run depending on the input; the value computed before the `if` is shared by them.
TEST(BuildVM, IfOnARunTimeConditionTakesEitherBranch) {
  relay::IRModule m = parse(R"(def @main(%c: bool, %x: Tensor[(3, 4), float32]) {
  %0 = add(%x, 1f);
  if (%c) { nn.relu(%0) } else { (negative(exp(%0)), %0).0 }
})");
  EXPECT_TRUE(needsVM(m));
  const NDArray x = tessera::test::randomTensor({3, 4}, DataType::float32(), 7, -2, 2);
  for (bool c : {true, false}) EXPECT_TRUE(vmMatchesInterpreter(m, {boolScalar(c), x})) << c;
}

// A loop as tail recursion: the VM reuses the frame, so a trip count far beyond what the C++
// stack could hold as nested calls runs (the interpreter checks a short one).
TEST(BuildVM, TailRecursiveLoopRunsInPlace) {
  relay::IRModule m = parse(R"(def @loop(%i: int64, %n: int64, %acc: Tensor[(4), float32],
                                          %step: Tensor[(4), float32]) -> Tensor[(4), float32] {
  if (less(%i, %n)) {
    @loop(add(%i, 1i64), %n, add(%acc, %step), %step)
  } else {
    %acc
  }
}
def @main(%n: int64, %x: Tensor[(4), float32]) -> Tensor[(4), float32] {
  @loop(0i64, %n, zeros_like(%x), %x)
})");
  EXPECT_TRUE(needsVM(m));
  const NDArray x = tessera::test::randomTensor({4}, DataType::float32(), 3, -1, 1);
  EXPECT_TRUE(vmMatchesInterpreter(m, {int64Scalar(5), x}));
  EXPECT_TRUE(vmMatchesInterpreter(m, {int64Scalar(0), x}));

  const Built built = build(m, codegen::hostTarget(), {}, {.executor = Executor::kVM});
  const std::vector<NDArray> out = runVM(built, {int64Scalar(200000), x});
  for (int k = 0; k < 4; ++k)
    EXPECT_NEAR(out[0].getFloat(k), 200000.0 * x.getFloat(k), 1e-3 * 200000) << k;
  EXPECT_NE(built.exec->asText().find("tail_call loop"), std::string::npos) << built.exec->asText();

  // The profiler counts each kernel's calls in a run: the loop body's add runs n times.
  runtime::vm::VirtualMachine vm(*built.exec);
  const std::vector<runtime::KernelTime> profile = vm.profile("main", {int64Scalar(5), x}, 3);
  ASSERT_FALSE(profile.empty());
  int adds = 0;
  for (const runtime::KernelTime& k : profile) {
    EXPECT_GE(k.seconds, 0) << k.kernel;
    if (k.kernel.find("fused_add") == 0 && k.calls == 5) ++adds;
  }
  EXPECT_GE(adds, 1) << "no kernel called once per iteration";
}

// A non-tail call of a recursive function (invoke), tuples through calls, and an if in value
// position joining into a later kernel.
TEST(BuildVM, InvokeTuplesAndJoins) {
  relay::IRModule m =
      parse(R"(def @count(%i: int64, %t: (Tensor[(2, 2), float32], Tensor[(2, 2), float32]))
    -> (Tensor[(2, 2), float32], Tensor[(2, 2), float32]) {
  if (greater(%i, 0i64)) {
    @count(subtract(%i, 1i64), (multiply(%t.0, %t.1), add(%t.1, 1f)))
  } else {
    %t
  }
}
def @main(%c: bool, %x: Tensor[(2, 2), float32]) {
  %0 = @count(3i64, (%x, %x));
  %1 = if (%c) { %0.0 } else { %0.1 };
  (tanh(%1), %0.1)
})");
  const NDArray x = tessera::test::randomTensor({2, 2}, DataType::float32(), 5, -1, 1);
  for (bool c : {true, false}) EXPECT_TRUE(vmMatchesInterpreter(m, {boolScalar(c), x})) << c;
}

// Convolutions and dense layers in the branches take weights bound at compile time and packed
// into the constant pool, as the graph executor's do.
TEST(BuildVM, PackedWeightsInsideBranches) {
  relay::IRModule m = parse(R"(def @main(%c: bool, %x: Tensor[(1, 8, 10, 10), float32],
    %w: Tensor[(16, 8, 3, 3), float32], %d1: Tensor[(10, 1600), float32],
    %d2: Tensor[(10, 16), float32]) {
  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1], channels=16, kernel_size=[3, 3]);
  %1 = nn.relu(%0);
  if (%c) {
    %2 = nn.batch_flatten(%1);
    nn.dense(%2, %d1, units=10)
  } else {
    %3 = nn.global_avg_pool2d(%1);
    %4 = nn.batch_flatten(%3);
    nn.dense(%4, %d2, units=10)
  }
})");
  const std::map<std::string, NDArray> weights = {
      {"w", tessera::test::randomTensor({16, 8, 3, 3}, DataType::float32(), 1, -1, 1)},
      {"d1", tessera::test::randomTensor({10, 1600}, DataType::float32(), 2, -1, 1)},
      {"d2", tessera::test::randomTensor({10, 16}, DataType::float32(), 3, -1, 1)}};
  const Built built = build(m, codegen::hostTarget(), weights, {.executor = Executor::kVM});
  EXPECT_EQ(built.exec->functions.at("main").params.size(), 2u);
  const NDArray x = tessera::test::randomTensor({1, 8, 10, 10}, DataType::float32(), 9, -1, 1);
  for (bool c : {true, false}) {
    const relay::Value expected = relay::Interpreter(m).run(
        {boolScalar(c), x, weights.at("w"), weights.at("d1"), weights.at("d2")});
    const std::vector<NDArray> got = runVM(built, {boolScalar(c), x});
    EXPECT_TRUE(tessera::test::allClose(got.at(0), expected.tensor(), 1e-4, 1e-4)) << c;
  }
}

// A graph without control flow runs on the VM too (Executor::kVM takes any module).
TEST(BuildVM, PlainGraphsRunAsWell) {
  relay::IRModule m = parse(R"(def @main(%x: Tensor[(2, 3), float32]) {
  %0 = split(%x, indices_or_sections=[1], axis=1);
  (sigmoid(%0.0), %0.1)
})");
  EXPECT_FALSE(needsVM(m));
  const NDArray x = tessera::test::randomTensor({2, 3}, DataType::float32(), 1, -1, 1);
  EXPECT_TRUE(vmMatchesInterpreter(m, {x}));
}

TEST(BuildVM, UnsupportedProgramsAreCleanErrors) {
  relay::IRModule closure = parse(R"(def @main(%x: Tensor[(2), float32]) {
  let %f = fn (%y: Tensor[(2), float32]) { add(%y, %y) };
  %f(%x)
})");
  Diagnostic d = tessera::test::diagnosticOf(
      [&] { build(closure, codegen::hostTarget(), {}, {.executor = Executor::kVM}); });
  EXPECT_EQ(d.code, "vm_compile") << d.message;
  EXPECT_NE(d.message.find("closures"), std::string::npos) << d.message;

  // A `?` extent no shape function computes (padding a `?` axis) is refused at the call.
  relay::IRModule dynamic = parse(R"(def @main(%c: bool, %x: Tensor[(?, 3), float32]) {
  if (%c) { nn.pad(%x, 0f, pad_width=[[1, 1], [0, 0]]) } else { %x }
})");
  d = tessera::test::diagnosticOf(
      [&] { build(dynamic, codegen::hostTarget(), {}, {.executor = Executor::kVM}); });
  EXPECT_EQ(d.code, "dynamic_shape") << d.message;
  EXPECT_NE(d.message.find("nn.pad"), std::string::npos) << d.message;
}

// The VM checks the entry's inputs like the graph executor does.
TEST(BuildVM, WrongInputsAreCleanErrors) {
  relay::IRModule m = parse(R"(def @main(%c: bool, %x: Tensor[(2), float32]) {
  if (%c) { %x } else { negative(%x) }
})");
  const Built built = build(m, codegen::hostTarget(), {}, {.executor = Executor::kVM});
  runtime::vm::VirtualMachine vm(*built.exec);
  Diagnostic d = tessera::test::diagnosticOf([&] {
    vm.invoke("main", {boolScalar(true), NDArray::empty({3}, DataType::float32())});
  });
  EXPECT_EQ(d.code, "vm_input");
  EXPECT_NE(d.message.find("dimension 0 must be 2"), std::string::npos) << d.message;
}

// A VM program saved as files (kernels.so, vm.json, constants.npz) and loaded back runs the same;
// a damaged vm.json or a missing kernel is a diagnostic naming the file, not a bad program.
TEST(BuildVM, ExportAndLoad) {
  namespace fs = std::filesystem;
  std::string pattern = (fs::temp_directory_path() / "tessera_vm_XXXXXX").string();
  const fs::path dir = mkdtemp(pattern.data());
  relay::IRModule m = parse(R"(def @main(%c: bool, %x: Tensor[(2, 3), float32]) {
  %0 = multiply(%x, 3f);
  if (%c) { (nn.relu(%0), %x) } else { (negative(%0), exp(%x)) }
})");
  const Built built = build(m, codegen::hostTarget(), {}, {.executor = Executor::kVM});
  exportBuilt(built, dir.string());
  ASSERT_TRUE(runtime::vm::isExecutableDirectory(dir.string()));
  Built loaded;
  loaded.exec = runtime::vm::loadExecutable(dir.string());
  const NDArray x = tessera::test::randomTensor({2, 3}, DataType::float32(), 4, -1, 1);
  for (bool c : {true, false}) {
    const std::vector<NDArray> a = runVM(built, {boolScalar(c), x});
    const std::vector<NDArray> b = runVM(loaded, {boolScalar(c), x});
    ASSERT_EQ(a.size(), 2u);
    ASSERT_EQ(b.size(), 2u);
    for (size_t i = 0; i < 2; ++i) EXPECT_TRUE(tessera::test::allClose(a[i], b[i], 0, 0)) << c;
  }

  // A jump past the end of the program.
  const std::string text = runtime::vm::programToJson(*built.exec);
  // The if's jump target (keys are written in sorted order: "index" just before "op").
  const std::regex jump(R"("index":[0-9]+,"op":8)");
  ASSERT_TRUE(std::regex_search(text, jump)) << text;
  const std::string damaged = std::regex_replace(text, jump, R"("index":999,"op":8)");
  Diagnostic d =
      tessera::test::diagnosticOf([&] { runtime::vm::programFromJson(damaged, "vm.json"); });
  EXPECT_EQ(d.code, "vm_json");
  EXPECT_NE(d.message.find("jump target 999 past the end"), std::string::npos) << d.message;
  d = tessera::test::diagnosticOf(
      [&] { runtime::vm::programFromJson("{\"format\": 1", "vm.json"); });
  EXPECT_EQ(d.code, "vm_json");

  // kernels.so gone: the program's kernels cannot be found.
  fs::remove(dir / "kernels.so");
  d = tessera::test::diagnosticOf([&] { runtime::vm::loadExecutable(dir.string()); });
  EXPECT_EQ(d.code, "export");
  EXPECT_NE(d.message.find("missing kernels.so"), std::string::npos) << d.message;
  fs::remove_all(dir);
}

// An ONNX Loop over a run-time trip count and condition imports as a recursive function; the VM
// and the interpreter agree for trip counts that stop on either condition.
TEST(BuildVM, OnnxLoopOverRunTimeData) {
  using tessera::test::OnnxGraph;
  constexpr int32_t kBool = ::onnx::TensorProto::BOOL, kInt64 = ::onnx::TensorProto::INT64;
  OnnxGraph body;
  body.input("i", {}, kInt64).input("cond", {}, kBool).input("s", {2, 3});
  body.node("Mul", {"s", "two"}, {"doubled"});
  body.node("Add", {"doubled", "a"}, {"s_out"});
  body.node("ReduceSum", {"s_out"}, {"total"}).i("keepdims", 0);
  body.node("Less", {"total", "limit"}, {"cond_out"});
  NDArray two = NDArray::empty({}, DataType::float32());
  two.setFloat(0, 2);
  body.initializer("two", two);
  body.output("cond_out").output("s_out");
  OnnxGraph g(13);
  g.input("M", {}, kInt64)
      .input("c", {}, kBool)
      .input("x", {2, 3})
      .input("a", {2, 3})
      .input("limit", {});
  g.node("Loop", {"M", "c", "x"}, {"final"}).g("body", body);
  g.output("final");
  relay::IRModule m = frontend::onnx::importOnnxBytes(g.bytes());
  ASSERT_TRUE(m.has("onnx_loop"));
  const NDArray x = tessera::test::randomTensor({2, 3}, DataType::float32(), 1, 0, 1);
  const NDArray a = tessera::test::randomTensor({2, 3}, DataType::float32(), 2, 0, 1);
  for (int64_t trips : {0, 3, 40}) {
    for (float limit : {50.0f, 1e30f}) {
      NDArray l = NDArray::empty({}, DataType::float32());
      l.setFloat(0, limit);
      EXPECT_TRUE(vmMatchesInterpreter(m, {int64Scalar(trips), boolScalar(true), x, a, l}))
          << trips << " " << limit;
    }
  }
}

// Nested loops over run-time counts: the inner Loop sits in the outer body, so the inner function
// is called from the outer one with the outer loop's values as its invariants.
TEST(BuildVM, NestedOnnxLoops) {
  using tessera::test::OnnxGraph;
  constexpr int32_t kBool = ::onnx::TensorProto::BOOL, kInt64 = ::onnx::TensorProto::INT64;
  NDArray half = NDArray::empty({}, DataType::float32());
  half.setFloat(0, 0.5f);
  OnnxGraph inner;  // g = sin(g) + x * 0.5
  inner.input("j", {}, kInt64).input("c_in", {}, kBool).input("g", {3});
  inner.node("Sin", {"g"}, {"s"});
  inner.node("Mul", {"x", "half"}, {"hx"});
  inner.node("Add", {"s", "hx"}, {"g_out"});
  inner.node("Identity", {"c_in"}, {"c_out"});
  inner.output("c_out").output("g_out");
  OnnxGraph outer;  // h = inner(h) + h * 0.5
  outer.input("i", {}, kInt64).input("c_in", {}, kBool).input("h", {3});
  outer.node("Loop", {"m", "", "h"}, {"g"}).g("body", inner);
  outer.node("Mul", {"h", "half"}, {"hh"});
  outer.node("Add", {"g", "hh"}, {"h_out"});
  outer.node("Identity", {"c_in"}, {"c_out"});
  outer.output("c_out").output("h_out");
  OnnxGraph g(13);
  g.input("x", {3}).input("n", {}, kInt64).input("m", {}, kInt64);
  g.initializer("half", half);
  g.node("Loop", {"n", "", "x"}, {"y"}).g("body", outer);
  g.output("y");
  relay::IRModule m = frontend::onnx::importOnnxBytes(g.bytes());
  ASSERT_TRUE(m.has("onnx_loop"));
  ASSERT_TRUE(m.has("onnx_loop_1"));
  const NDArray x = tessera::test::randomTensor({3}, DataType::float32(), 8, -1, 1);
  for (auto [n, k] : {std::pair<int64_t, int64_t>{0, 2}, {2, 3}, {3, 0}, {4, 5}})
    EXPECT_TRUE(vmMatchesInterpreter(m, {x, int64Scalar(n), int64Scalar(k)})) << n << " " << k;
}

}  // namespace
}  // namespace tessera::driver
