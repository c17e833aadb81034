// The packed calling convention (runtime/module.h): argument checks and their messages, symbolic
// shape binding, scalar parameters, targets, and inputs codegen rejects.
#include <filesystem>

#include <gtest/gtest.h>

#include "codegen_test_util.h"
#include "runtime/thread_pool.h"

namespace tessera::codegen::test {
namespace {

using tessera::test::diagnosticOf;
using tessera::test::randomTensor;

PrimFunc addConst16() {
  Buffer a = makeBuffer("A", {intImm(16)});
  Buffer b = makeBuffer("B", {intImm(16)});
  Stmt body =
      loop("i", 16, [&](Var i) { return bufferStore(b, bufferLoad(a, {i}) + floatImm(1.0), {i}); });
  return makePrimFunc("add", {a, b}, body);
}

/// A(n) + B(n) -> C(n) with a symbolic n.
PrimFunc addSymbolic() {
  Var n = makeSizeVar("n");
  Buffer a = makeBuffer("A", {n});
  Buffer b = makeBuffer("B", {n});
  Buffer c = makeBuffer("C", {n});
  Var i = makeVar("i");
  Stmt body = forLoop(i, intImm(0), n, ForKind::kSerial,
                      bufferStore(c, bufferLoad(a, {i}) + bufferLoad(b, {i}), {i}));
  return makePrimFunc("vadd", {a, b, c}, body);
}

std::string callError(const CompiledModule& m, const std::string& name,
                      const std::vector<NDArray>& args) {
  return diagnosticOf([&] { m.call(name, args); }).message;
}

TEST(CodegenPackedApi, ChecksArgumentCountNdimDtypeAndShape) {
  CompiledModule m = compileOne(addConst16());
  NDArray ok = randomTensor({16}, DataType::float32(), 1);
  NDArray out = NDArray::empty({16}, DataType::float32());
  EXPECT_EQ(callError(m, "add", {ok}), "add: num_args should be 2 (got 1)");
  EXPECT_EQ(callError(m, "add", {NDArray::empty({4, 4}, DataType::float32()), out}),
            "add.A.ndim is expected to equal 1 (got 2)");
  EXPECT_EQ(callError(m, "add", {NDArray::empty({16}, DataType::int32()), out}),
            "add.A.dtype is expected to be float32");
  EXPECT_EQ(callError(m, "add", {ok, NDArray::empty({8}, DataType::float32())}),
            "Argument add.B.shape[0] has an unsatisfied constraint: 16 == add_B_shape[0] (got 8)");
  EXPECT_EQ(callError(m, "add", {NDArray(), out}), "add.A is expected to be a non-null DLTensor");
  EXPECT_EQ(diagnosticOf([&] { m.call("nope", {ok, out}); }).code, "codegen_call");
  m.call("add", {ok, out});
  EXPECT_FLOAT_EQ(static_cast<float>(out.getFloat(3)), static_cast<float>(ok.getFloat(3) + 1.0));
}

TEST(CodegenPackedApi, RejectsNonCompactStridesAndOtherDevices) {
  CompiledModule m = compileOne(addConst16());
  NDArray a = randomTensor({16}, DataType::float32(), 2);
  NDArray b = NDArray::empty({16}, DataType::float32());
  DLTensor ta = a.dlTensor();
  DLTensor tb = b.dlTensor();
  int64_t strides[] = {2};
  ta.strides = strides;
  void* args[] = {&ta, &tb};
  EXPECT_NE(m.getFunction("add")(args, 2), 0);
  EXPECT_STREQ(TesseraGetLastError(), "add.A.strides: expected to be compact array");
  int64_t unit[] = {1};
  ta.strides = unit;
  EXPECT_EQ(m.getFunction("add")(args, 2), 0);
  ta.device.device_type = kDLCUDA;
  EXPECT_NE(m.getFunction("add")(args, 2), 0);
  EXPECT_STREQ(TesseraGetLastError(), "add.A.device_type is expected to be 1 (CPU) (got 2)");
}

TEST(CodegenPackedApi, SymbolicShapesBindAndCheck) {
  PrimFunc f = addSymbolic();
  for (int64_t n : {5, 13}) {
    EXPECT_TRUE(matchesEvaluator(
        f, {randomTensor({n}, DataType::float32(), 3), randomTensor({n}, DataType::float32(), 4),
            NDArray::empty({n}, DataType::float32())}))
        << "n = " << n;
  }
  CompiledModule m = compileOne(f);
  EXPECT_EQ(
      callError(m, "vadd",
                {NDArray::empty({5}, DataType::float32()), NDArray::empty({6}, DataType::float32()),
                 NDArray::empty({5}, DataType::float32())}),
      "Argument vadd.B.shape[0] has an unsatisfied constraint: n == vadd_B_shape[0] (got 6)");
  // Empty tensors are fine (no data needed).
  m.call("vadd",
         {NDArray::empty({0}, DataType::float32()), NDArray::empty({0}, DataType::float32()),
          NDArray::empty({0}, DataType::float32())});
}

TEST(CodegenPackedApi, ScalarParameterIsARankZeroTensor) {
  Buffer a = makeBuffer("A", {intImm(8)});
  Buffer b = makeBuffer("B", {intImm(8)});
  Var alpha = makeVar("alpha", DataType::float32());
  Stmt body = loop("i", 8, [&](Var i) { return bufferStore(b, bufferLoad(a, {i}) * alpha, {i}); });
  auto node = std::make_shared<PrimFuncNode>(*makePrimFunc("scale", {a, b}, body));
  node->params.push_back(alpha);
  PrimFunc f = node;
  CompiledModule m = compileOne(f);
  NDArray x = randomTensor({8}, DataType::float32(), 5);
  NDArray y = NDArray::empty({8}, DataType::float32());
  m.call("scale", {x, y, NDArray::scalar(3.0, DataType::float32())});
  for (int i = 0; i < 8; ++i)
    EXPECT_FLOAT_EQ(y.getFloat(i), static_cast<float>(x.getFloat(i)) * 3.0f);
  EXPECT_EQ(callError(m, "scale", {x, y, NDArray::scalar(3.0, DataType::float64())}),
            "scale.alpha.dtype is expected to be float32");
}

TEST(CodegenPackedApi, EntryNameAndFunctionList) {
  TirModule two;
  two.add(addConst16());
  two.add(addSymbolic());
  CompiledModule m = compile(two);
  EXPECT_EQ(m.functionNames(), (std::vector<std::string>{"add", "vadd"}));
  EXPECT_EQ(m.entryName(), "");
  EXPECT_EQ(compileOne(addConst16()).entryName(), "add");
}

TEST(CodegenPackedApi, RejectsBlocksAndUnknownIntrinsics) {
  Buffer a = makeBuffer("A", {intImm(4)});
  auto block = std::make_shared<BlockNode>();
  block->name = "root";
  block->body = bufferStore(a, floatImm(0.0), {intImm(0)});
  PrimFunc withBlock = makePrimFunc("blocky", {a}, blockRealize({}, boolImm(true), block));
  Diagnostic d = diagnosticOf([&] { compileOne(withBlock); });
  EXPECT_EQ(d.code, "codegen");
  EXPECT_NE(d.message.find("needs lowered TensorIR but found block 'root'"), std::string::npos);
  PrimFunc weird = makePrimFunc(
      "weird", {a},
      bufferStore(a, call(DataType::float32(), "tir.frobnicate", {floatImm(1.0)}), {intImm(0)}));
  EXPECT_EQ(diagnosticOf([&] { compileOne(weird); }).message,
            "function 'weird': unsupported intrinsic 'tir.frobnicate'");
}

// Compiling the same module twice gives the same code (no pointer-hash ordering anywhere).
TEST(CodegenPackedApi, CompilationIsDeterministic) {
  TirModule two;
  two.add(addConst16());
  two.add(addSymbolic());
  EXPECT_EQ(compile(two).llvmIR(), compile(two).llvmIR());
}

// An int64 extent on an int32 loop variable (as NarrowDataType can leave it) still compiles.
TEST(CodegenPackedApi, LoopBoundsTakeTheLoopVariableType) {
  Buffer a = makeBuffer("A", {intImm(6)});
  Var i = makeVar("i");
  Stmt body =
      forLoop(i, intImm(0, DataType::int64()), intImm(6, DataType::int64()), ForKind::kSerial,
              bufferStore(a, cast(DataType::float32(), PrimExpr(i)), {i}));
  NDArray out = NDArray::empty({6}, DataType::float32());
  compileOne(makePrimFunc("iota", {a}, body)).call("iota", {out});
  EXPECT_EQ(tessera::test::valuesOf(out), (std::vector<double>{0, 1, 2, 3, 4, 5}));
}

TEST(CodegenTarget, FillsInTheHostsDefaults) {
  const target::Target host = hostTarget();
  EXPECT_FALSE(host.triple.empty());
  EXPECT_FALSE(host.cpu.empty());
  EXPECT_TRUE(isHostCompatible(host));
  // What the string sets is kept; what it leaves out is the host's. Features without a CPU change
  // the host's, as LLVM reads -mattr against -mcpu's defaults.
  const target::Target t = withHostDefaults(target::Target::parse("llvm -mattr=+avx2,-fma"));
  EXPECT_TRUE(t.hasFeature("avx2"));
  EXPECT_FALSE(t.hasFeature("fma"));
  EXPECT_NE(t.features.find("-fma"), std::string::npos);
  for (const std::string f : {"sse2", "avx512f", "amx-int8"})
    EXPECT_EQ(t.hasFeature(f), host.hasFeature(f)) << f;
  EXPECT_EQ(t.triple, host.triple);
  // With a CPU, the features are that CPU's as LLVM defines it, changed by -mattr: schedules then
  // use the vectors LLVM generates code for (-mcpu=skylake-avx512 alone once meant 16-byte ones).
  const target::Target haswell =
      withHostDefaults(target::Target::parse("llvm -mcpu=haswell -mattr=-fma"));
  EXPECT_TRUE(haswell.hasFeature("avx2"));
  EXPECT_FALSE(haswell.hasFeature("fma"));
  EXPECT_FALSE(haswell.hasFeature("avx512f"));
  EXPECT_EQ(haswell.vectorBytes(), 32);
  const target::Target skylake =
      withHostDefaults(target::Target::parse("llvm -mcpu=skylake-avx512"));
  EXPECT_TRUE(skylake.hasFeature("avx512f"));
  EXPECT_TRUE(skylake.hasFeature("avx512bw"));
  EXPECT_FALSE(skylake.hasFeature("avx512vnni"));
  EXPECT_EQ(skylake.vectorBytes(), 64);
  EXPECT_TRUE(
      withHostDefaults(target::Target::parse("llvm -mcpu=sapphirerapids")).hasFeature("amx-int8"));
  const Diagnostic unknown =
      diagnosticOf([] { withHostDefaults(target::Target::parse("llvm -mcpu=znver99")); });
  EXPECT_EQ(unknown.code, "target");
  EXPECT_NE(unknown.message.find("unknown CPU 'znver99'"), std::string::npos) << unknown.message;
  // Another architecture gets LLVM's generic CPU, not the host's.
  EXPECT_EQ(withHostDefaults(target::Target::parse("llvm -mtriple=aarch64-linux-gnu")).cpu,
            "generic");
  EXPECT_EQ(diagnosticOf([] { withHostDefaults(target::Target::parse("vta")); }).message,
            "target kind 'vta' has no LLVM code generator (kernels for it are not compiled by "
            "LLVM)");
}

TEST(CodegenTarget, CrossCompilesWithoutLoading) {
  CompiledModule m =
      compileOne(addConst16(), target::Target::parse("llvm -mtriple=aarch64-linux-gnu"));
  EXPECT_NE(m.llvmIR().find("aarch64"), std::string::npos);
  EXPECT_EQ(m.getFunction("add"), nullptr);
  EXPECT_EQ(diagnosticOf([&] { m.call("add", {}); }).code, "codegen_call");
  // The host's linker cannot make a shared library of it: said before anything is written.
  const std::string path = "/tmp/tessera_cross_compiled.so";
  const Diagnostic refused = diagnosticOf([&] { m.exportLibrary(path); });
  EXPECT_EQ(refused.code, "codegen_export");
  EXPECT_NE(refused.message.find("compiled for aarch64-linux-gnu"), std::string::npos)
      << refused.message;
  EXPECT_FALSE(std::filesystem::exists(path + ".0.o"));
}

}  // namespace
}  // namespace tessera::codegen::test
