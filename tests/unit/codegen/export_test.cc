// Export to a shared library: reloaded in this process (dlopen) and in a fresh process (the
// codegen_load_helper executable), both give the JIT's results.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include <gtest/gtest.h>

#include "codegen_test_util.h"
#include "runtime/npy.h"
#include "runtime/thread_pool.h"

namespace tessera::codegen::test {
namespace {

using tessera::test::diagnosticOf;
using tessera::test::randomTensor;

/// Y[i] = tanh(X[i]) * scale over a parallel loop, with a symbolic length.
PrimFunc exportedFunc() {
  Var n = makeSizeVar("n");
  Buffer x = makeBuffer("X", {n});
  Buffer y = makeBuffer("Y", {n});
  Var i = makeVar("i");
  PrimExpr v = call(DataType::float32(), "tir.tanh", {bufferLoad(x, {i})}) * floatImm(1.5);
  Stmt body = forLoop(i, intImm(0), n, ForKind::kParallel, bufferStore(y, v, {i}));
  return makePrimFunc("tanh_scale", {x, y}, body);
}

std::string tempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("tessera_codegen_" + std::to_string(getpid()) + "_" + name))
      .string();
}

TEST(CodegenExport, SharedLibraryReloadsInProcessAndInAFreshProcess) {
  CompiledModule jit = compileOne(exportedFunc());
  std::string lib = tempPath("lib.so");
  jit.exportLibrary(lib);
  NDArray x = randomTensor({1000}, DataType::float32(), 1, -3, 3);
  NDArray expected = NDArray::empty({1000}, DataType::float32());
  jit.call("tanh_scale", {x, expected});

  CompiledModule loaded = loadLibrary(lib);
  EXPECT_EQ(loaded.functionNames(), (std::vector<std::string>{"tanh_scale"}));
  EXPECT_EQ(loaded.entryName(), "tanh_scale");
  NDArray inProcess = NDArray::empty({1000}, DataType::float32());
  loaded.call("tanh_scale", {x, inProcess});
  EXPECT_TRUE(inProcess.bitwiseEqual(expected));
  EXPECT_EQ(diagnosticOf([&] {
              loaded.call("tanh_scale", {x, NDArray::empty({3}, DataType::float32())});
            }).message,
            "Argument tanh_scale.Y.shape[0] has an unsatisfied constraint: n == "
            "tanh_scale_Y_shape[0] (got 3)");

  std::string xPath = tempPath("x.npy");
  std::string yPath = tempPath("y.npy");
  writeNpy(xPath, x);
  writeNpy(yPath, NDArray::empty({1000}, DataType::float32()));
  std::string command =
      std::string(CODEGEN_LOAD_HELPER) + " " + lib + " tanh_scale " + xPath + " " + yPath;
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  EXPECT_TRUE(readNpy(yPath).bitwiseEqual(expected));
  for (const std::string& p : {lib, xPath, yPath}) std::filesystem::remove(p);
}

TEST(CodegenExport, LoadErrorsAreDiagnostics) {
  EXPECT_EQ(diagnosticOf([] { loadLibrary("/nonexistent/lib.so"); }).code, "codegen_load");
  Diagnostic d = diagnosticOf([] { loadLibrary("libm.so.6"); });
  EXPECT_EQ(d.message, "not a library exported by Tessera");
}

}  // namespace
}  // namespace tessera::codegen::test
