// The C++ side of bench/python_overhead_bench.py: times GraphExecutor::run of a model directory
// written by relay.build(...).export_library (so both sides run the very same kernels), and
// set_input + run + get_output, as microseconds per call over `rounds` rounds of `runs` calls.
// Usage: python_overhead_bench DIR RUNS ROUNDS; prints one line per round:
//   run_us=<mean> set_run_get_us=<mean>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "driver/build.h"
#include "runtime/graph_executor/graph_executor.h"

namespace {

using Clock = std::chrono::steady_clock;

template <typename F>
double microsecondsPerCall(int runs, F&& f) {
  const Clock::time_point start = Clock::now();
  for (int i = 0; i < runs; ++i) f();
  const std::chrono::duration<double, std::micro> took = Clock::now() - start;
  return took.count() / runs;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace tessera;  // NOLINT: a benchmark's main
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s DIR RUNS ROUNDS\n", argv[0]);
    return 2;
  }
  const int runs = std::atoi(argv[2]), rounds = std::atoi(argv[3]);
  const driver::Built built = driver::loadBuilt(argv[1]);
  runtime::GraphExecutor executor(built.model());
  // A constant input (0.5): garbage could hold denormals, which would time differently.
  const runtime::TensorEntry& info = executor.inputInfo(0);
  NDArray input = NDArray::empty(info.shape, info.dtype);
  float* data = static_cast<float*>(input.data());
  for (int64_t i = 0; i < input.numel(); ++i) data[i] = 0.5f;
  executor.setInput(0, input);
  for (int i = 0; i < 100; ++i) executor.run();  // warm-up: caches, thread pool
  for (int r = 0; r < rounds; ++r) {
    const double run = microsecondsPerCall(runs, [&] { executor.run(); });
    const double full = microsecondsPerCall(runs, [&] {
      executor.setInput(0, input);
      executor.run();
      (void)executor.getOutput(0);
    });
    std::printf("run_us=%.3f set_run_get_us=%.3f\n", run, full);
  }
  return 0;
}
