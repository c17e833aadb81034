// Allocations: small constant ones live on the stack, large or symbolic ones in workspace memory
// from the runtime; both compute the same as the evaluator.
#include <gtest/gtest.h>

#include "codegen_test_util.h"

namespace tessera::codegen::test {
namespace {

using tessera::test::randomTensor;

/// B[i] = 2 * A[reverse i] through a temporary of `tmpSize` elements (only the first n used).
PrimFunc reverseThroughTemp(const PrimExpr& n, const PrimExpr& tmpSize) {
  Buffer a = makeBuffer("A", {n});
  Buffer b = makeBuffer("B", {n});
  Buffer tmp = makeBuffer("T", {tmpSize});
  Var i = makeVar("i");
  Var j = makeVar("j");
  Stmt fill = forLoop(i, intImm(0), n, ForKind::kSerial,
                      bufferStore(tmp, bufferLoad(a, {n - 1 - PrimExpr(i)}) * floatImm(2.0), {i}));
  Stmt copy = forLoop(j, intImm(0), n, ForKind::kSerial, bufferStore(b, bufferLoad(tmp, {j}), {j}));
  Stmt body = allocate(tmp->data, DataType::float32(), {tmpSize}, "global",
                       declBuffer(tmp, seq({fill, copy})));
  return makePrimFunc("rev", {a, b}, body);
}

bool usesWorkspace(const CompiledModule& m) {
  return m.llvmIR().find("@__TesseraBackendAllocWorkspace,") != std::string::npos ||
         m.llvmIR().find("load ptr, ptr @__TesseraBackendAllocWorkspace") != std::string::npos;
}

TEST(CodegenAllocate, SmallConstantAllocationIsOnTheStack) {
  PrimFunc f = reverseThroughTemp(intImm(40), intImm(64));  // 256 bytes
  EXPECT_FALSE(usesWorkspace(compileOne(f)));
  EXPECT_TRUE(matchesEvaluator(
      f, {randomTensor({40}, DataType::float32(), 1), NDArray::empty({40}, DataType::float32())}));
}

TEST(CodegenAllocate, LargeAllocationUsesWorkspace) {
  PrimFunc f = reverseThroughTemp(intImm(300), intImm(4096));  // 16 KiB
  EXPECT_TRUE(usesWorkspace(compileOne(f)));
  EXPECT_TRUE(matchesEvaluator(f, {randomTensor({300}, DataType::float32(), 2),
                                   NDArray::empty({300}, DataType::float32())}));
}

// Workspace blocks are fresh memory (the allocator's call is `noalias`, as malloc's), so a
// serial loop from one workspace buffer into another vectorizes without run-time overlap
// checks. Without it a winograd convolution built for one core ran 3x slower than built for
// two, whose parallel bodies get noalias pointers.
TEST(CodegenAllocate, WorkspaceBuffersDoNotAliasEachOther) {
  const int64_t n = 4096;  // 16 KiB each: workspace, not the stack
  Buffer a = makeBuffer("A", {intImm(n)});
  Buffer b = makeBuffer("B", {intImm(n)});
  Buffer first = makeBuffer("T1", {intImm(n)});
  Buffer second = makeBuffer("T2", {intImm(n)});
  Stmt body = seq(
      {loop("i", n,
            [&](Var i) { return bufferStore(first, bufferLoad(a, {i}) * floatImm(2.0), {i}); }),
       loop(
           "j", n,
           [&](Var j) { return bufferStore(second, bufferLoad(first, {j}) + floatImm(1.0), {j}); }),
       loop("k", n,
            [&](Var k) { return bufferStore(b, bufferLoad(second, {k}) * floatImm(3.0), {k}); })});
  body =
      allocate(second->data, DataType::float32(), {intImm(n)}, "global", declBuffer(second, body));
  body = allocate(first->data, DataType::float32(), {intImm(n)}, "global", declBuffer(first, body));
  const PrimFunc f = makePrimFunc("chain", {a, b}, body);
  const CompiledModule m = compileOne(f);
  ASSERT_TRUE(usesWorkspace(m));
  EXPECT_EQ(m.llvmIR().find("vector.memcheck"), std::string::npos) << m.llvmIR();
  EXPECT_TRUE(matchesEvaluator(
      f, {randomTensor({n}, DataType::float32(), 4), NDArray::empty({n}, DataType::float32())}));
}

TEST(CodegenAllocate, SymbolicAllocationUsesWorkspace) {
  Var n = makeSizeVar("n");
  PrimFunc f = reverseThroughTemp(n, n);
  EXPECT_TRUE(usesWorkspace(compileOne(f)));
  for (int64_t size : {3, 257}) {
    EXPECT_TRUE(matchesEvaluator(f, {randomTensor({size}, DataType::float32(), 3),
                                     NDArray::empty({size}, DataType::float32())}));
  }
}

}  // namespace
}  // namespace tessera::codegen::test
