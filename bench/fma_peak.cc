// Single-core FP32 FMA peak of this machine: independent AVX2 fused multiply-adds (twelve
// accumulators, more than latency x throughput of Zen 3's two FMA pipes needs), timed over a
// fixed count; prints GFLOP/s of each repeat and their median. The reference for "fraction of
// peak" in bench/results/*-tuning*.md. Usage: fma_peak [REPEATS]; pin it with taskset for one core.
#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

constexpr int kAccumulators = 12;
constexpr int kLanes = 8;

__attribute__((target("avx2,fma"), noinline)) float fmaLoop(long iterations) {
  __m256 acc[kAccumulators];
  for (int i = 0; i < kAccumulators; ++i) acc[i] = _mm256_set1_ps(static_cast<float>(i));
  const __m256 a = _mm256_set1_ps(0.999999f);
  const __m256 b = _mm256_set1_ps(1e-7f);
  for (long n = 0; n < iterations; ++n)
#pragma GCC unroll 16  // keeps every accumulator in a register
    for (int i = 0; i < kAccumulators; ++i) acc[i] = _mm256_fmadd_ps(acc[i], a, b);
  __m256 sum = acc[0];
  for (int i = 1; i < kAccumulators; ++i) sum = _mm256_add_ps(sum, acc[i]);
  float out[kLanes];
  _mm256_storeu_ps(out, sum);
  return out[0];
}

}  // namespace

int main(int argc, char** argv) {
  const int repeats = argc > 1 ? std::max(1, std::atoi(argv[1])) : 7;
  constexpr long kIterations = 100'000'000;
  std::vector<double> gflops;
  float sink = 0;
  for (int r = 0; r < repeats; ++r) {
    const auto start = std::chrono::steady_clock::now();
    sink += fmaLoop(kIterations);
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    gflops.push_back(2.0 * kLanes * kAccumulators * static_cast<double>(kIterations) / secs / 1e9);
    std::printf("repeat %d: %.1f GFLOP/s\n", r, gflops.back());
  }
  std::sort(gflops.begin(), gflops.end());
  std::printf("median: %.1f GFLOP/s, best: %.1f GFLOP/s (checksum %g)\n",
              gflops[gflops.size() / 2], gflops.back(), static_cast<double>(sink));
  return 0;
}
