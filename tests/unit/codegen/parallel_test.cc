// Parallel loops and the thread pool: compiled parallel loops agree with the evaluator and give
// identical results with 1 and 2 threads; the pool's launch, barrier, nesting and error contract.
#include <atomic>
#include <cstring>
#include <vector>

#include <gtest/gtest.h>

#include "codegen_test_util.h"
#include "runtime/thread_pool.h"

namespace tessera::codegen::test {
namespace {

using tessera::test::diagnosticOf;
using tessera::test::randomTensor;

/// Restores the pool size a test changed.
class PoolSize {
 public:
  PoolSize() : saved_(runtime::numThreads()) {}
  ~PoolSize() { runtime::setNumThreads(saved_); }

 private:
  int saved_;
};

/// Y[i, j] = sum_k A[i, k] * B[k, j] + bias (a row-parallel matmul with a per-row stack buffer).
PrimFunc parallelMatmul(const PrimExpr& m) {
  Buffer a = makeBuffer("A", {m, intImm(19)});
  Buffer b = makeBuffer("B", {intImm(19), intImm(11)});
  Buffer y = makeBuffer("Y", {m, intImm(11)});
  Buffer af = flat(a), bf = flat(b), yf = flat(y);
  Buffer rowBuf = makeBuffer("row", {intImm(11)});
  Var row = rowBuf->data;
  Var i = makeVar("i");
  Stmt perRow = seq({
      loop("j", 11, [&](Var j) { return bufferStore(rowBuf, floatImm(0.5), {j}); }),
      loop("k", 19,
           [&](Var k) {
             return loop("j", 11, [&](Var j) {
               PrimExpr v =
                   bufferLoad(rowBuf, {j}) + bufferLoad(af, {PrimExpr(i) * 19 + PrimExpr(k)}) *
                                                 bufferLoad(bf, {PrimExpr(k) * 11 + PrimExpr(j)});
               return bufferStore(rowBuf, v, {j});
             });
           }),
      loop("j", 11,
           [&](Var j) {
             return bufferStore(yf, bufferLoad(rowBuf, {j}), {PrimExpr(i) * 11 + PrimExpr(j)});
           }),
  });
  Stmt body = forLoop(
      i, intImm(0), m, ForKind::kParallel,
      allocate(row, DataType::float32(), {intImm(11)}, "global", declBuffer(rowBuf, perRow)));
  return makePrimFunc("pmatmul", {a, b, y}, body);
}

TEST(CodegenParallel, MatchesEvaluatorAndIsIdenticalAcrossThreadCounts) {
  PoolSize restore;
  PrimFunc f = parallelMatmul(intImm(37));
  std::vector<NDArray> args = {randomTensor({37, 19}, DataType::float32(), 1),
                               randomTensor({19, 11}, DataType::float32(), 2),
                               NDArray::empty({37, 11}, DataType::float32())};
  EXPECT_TRUE(matchesEvaluator(f, args, 1e-5, 1e-5));
  CompiledModule m = compileOne(f);
  std::vector<NDArray> outs;
  for (int threads : {1, 2}) {
    runtime::setNumThreads(threads);
    std::vector<NDArray> run = deepCopy(args);
    m.call("pmatmul", run);
    outs.push_back(run[2]);
  }
  EXPECT_TRUE(outs[0].bitwiseEqual(outs[1]));
}

TEST(CodegenParallel, SymbolicExtentSmallerThanThreadCount) {
  PoolSize restore;
  runtime::setNumThreads(2);
  Var n = makeSizeVar("m");
  PrimFunc f = parallelMatmul(n);
  for (int64_t rows : {1, 2, 9}) {
    EXPECT_TRUE(matchesEvaluator(f,
                                 {randomTensor({rows, 19}, DataType::float32(), 3),
                                  randomTensor({19, 11}, DataType::float32(), 4),
                                  NDArray::empty({rows, 11}, DataType::float32())},
                                 1e-5, 1e-5))
        << rows << " rows";
  }
}

TEST(CodegenParallel, NestedParallelLoopsAreRejected) {
  Buffer a = makeBuffer("A", {intImm(4), intImm(4)});
  Stmt body = loop(
      "i", 4,
      [&](Var i) {
        return loop(
            "j", 4, [&](Var j) { return bufferStore(a, floatImm(1.0), {i, j}); },
            ForKind::kParallel);
      },
      ForKind::kParallel);
  Diagnostic d = diagnosticOf([&] { compileOne(makePrimFunc("nested", {a}, body)); });
  EXPECT_EQ(d.message,
            "function 'nested': parallel loop 'j' is nested inside another parallel loop (fuse "
            "them instead)");
}

// An assertion failing inside a task reaches the caller with its message.
TEST(CodegenParallel, TaskErrorsPropagate) {
  PoolSize restore;
  runtime::setNumThreads(2);
  Buffer a = makeBuffer("A", {intImm(8)});
  Stmt body = loop(
      "i", 8,
      [&](Var i) {
        return assertStmt(lt(bufferLoad(a, {i}), floatImm(100.0)), "A must stay below 100",
                          bufferStore(a, bufferLoad(a, {i}) * floatImm(2.0), {i}));
      },
      ForKind::kParallel);
  CompiledModule m = compileOne(makePrimFunc("guarded", {a}, body));
  NDArray x = randomTensor({8}, DataType::float32(), 5);
  m.call("guarded", {x});
  x.setFloat(7, 500.0);
  EXPECT_EQ(diagnosticOf([&] { m.call("guarded", {x}); }).message, "A must stay below 100");
}

int32_t recordTask(int32_t taskId, TesseraParallelEnv* env, void* cdata) {
  auto* seen = static_cast<std::atomic<int>*>(cdata);
  seen[taskId].fetch_add(1);
  seen[15].store(env->numTask);
  return 0;
}

TEST(ThreadPool, RunsEveryTaskOnceWithCallerAsTaskZero) {
  PoolSize restore;
  for (int threads : {1, 2, 4}) {
    runtime::setNumThreads(threads);
    std::atomic<int> seen[16] = {};
    EXPECT_EQ(TesseraBackendParallelLaunch(recordTask, seen, 0), 0);
    EXPECT_EQ(seen[15].load(), threads);
    for (int t = 0; t < threads; ++t) EXPECT_EQ(seen[t].load(), 1) << t;
    // More tasks than threads are clamped to the pool's concurrency.
    std::atomic<int> clamped[16] = {};
    EXPECT_EQ(TesseraBackendParallelLaunch(recordTask, clamped, 9), 0);
    EXPECT_EQ(clamped[15].load(), threads);
  }
}

struct BarrierData {
  std::atomic<int> phaseOne{0};
  std::atomic<int> wrong{0};
};

int32_t barrierTask(int32_t taskId, TesseraParallelEnv* env, void* cdata) {
  auto* data = static_cast<BarrierData*>(cdata);
  for (int round = 0; round < 50; ++round) {
    data->phaseOne.fetch_add(1);
    TesseraBackendParallelBarrier(taskId, env);
    if (data->phaseOne.load() != (round + 1) * env->numTask) data->wrong.fetch_add(1);
    TesseraBackendParallelBarrier(taskId, env);
  }
  return 0;
}

TEST(ThreadPool, BarrierSeparatesPhases) {
  PoolSize restore;
  runtime::setNumThreads(3);
  BarrierData data;
  EXPECT_EQ(TesseraBackendParallelLaunch(barrierTask, &data, 0), 0);
  EXPECT_EQ(data.wrong.load(), 0);
  EXPECT_EQ(data.phaseOne.load(), 150);
}

int32_t nestedTask(int32_t taskId, TesseraParallelEnv* env, void* cdata) {
  std::atomic<int> inner[16] = {};
  // A launch from inside a task runs inline as a single task.
  TesseraBackendParallelLaunch(recordTask, inner, 0);
  if (inner[15].load() != 1 || inner[0].load() != 1)
    static_cast<std::atomic<int>*>(cdata)->fetch_add(1);
  return 0;
}

int32_t failingTask(int32_t taskId, TesseraParallelEnv* env, void* cdata) {
  if (taskId != env->numTask - 1) return 0;
  TesseraAPISetLastError("task failed on purpose");
  return -7;
}

TEST(ThreadPool, NestedLaunchRunsInlineAndErrorsReachTheCaller) {
  PoolSize restore;
  runtime::setNumThreads(2);
  std::atomic<int> bad{0};
  EXPECT_EQ(TesseraBackendParallelLaunch(nestedTask, &bad, 0), 0);
  EXPECT_EQ(bad.load(), 0);
  TesseraAPISetLastError("");
  EXPECT_EQ(TesseraBackendParallelLaunch(failingTask, nullptr, 0), -7);
  EXPECT_STREQ(TesseraGetLastError(), "task failed on purpose");
}

TEST(ThreadPool, WorkspaceIsAligned) {
  for (uint64_t bytes : {1u, 63u, 64u, 1000u, 1u << 20}) {
    void* p = TesseraBackendAllocWorkspace(1, 0, bytes, 2, 32);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u);
    std::memset(p, 1, bytes);
    EXPECT_EQ(TesseraBackendFreeWorkspace(1, 0, p), 0);
  }
}

}  // namespace
}  // namespace tessera::codegen::test
