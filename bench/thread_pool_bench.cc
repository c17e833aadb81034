// Launch overhead of the thread pool (TesseraBackendParallelLaunch) with an empty task, the cost a
// parallel loop pays on top of its work. Spec §4.4 asks for microseconds: the MLP kernels of the
// seed run in ~5 us. Run: build/release/bench/thread_pool_bench.
#include <benchmark/benchmark.h>

#include "runtime/thread_pool.h"

namespace {

int32_t emptyTask(int32_t taskId, TesseraParallelEnv* env, void* cdata) {
  benchmark::DoNotOptimize(cdata);
  return 0;
}

int32_t barrierTask(int32_t taskId, TesseraParallelEnv* env, void* cdata) {
  TesseraBackendParallelBarrier(taskId, env);
  return 0;
}

void BM_ParallelLaunch(benchmark::State& state) {
  tessera::runtime::setNumThreads(static_cast<int>(state.range(0)));
  for (auto _ : state) TesseraBackendParallelLaunch(emptyTask, nullptr, 0);
}
BENCHMARK(BM_ParallelLaunch)->Arg(1)->Arg(2)->Arg(4)->UseRealTime();

void BM_ParallelLaunchWithBarrier(benchmark::State& state) {
  tessera::runtime::setNumThreads(static_cast<int>(state.range(0)));
  for (auto _ : state) TesseraBackendParallelLaunch(barrierTask, nullptr, 0);
}
BENCHMARK(BM_ParallelLaunchWithBarrier)->Arg(2)->UseRealTime();

void BM_Workspace(benchmark::State& state) {
  for (auto _ : state) {
    void* p = TesseraBackendAllocWorkspace(1, 0, 4096, 2, 32);
    benchmark::DoNotOptimize(p);
    TesseraBackendFreeWorkspace(1, 0, p);
  }
}
BENCHMARK(BM_Workspace);

}  // namespace

BENCHMARK_MAIN();
