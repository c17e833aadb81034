// The single-core FP32 FMA peak loop (AVX2): independent fused multiply-adds on twelve
// accumulators, more than latency x throughput of Zen 3's two FMA pipes needs. Shared by
// fma_peak and tuning_spaces_bench, which interleaves it with a tuned kernel.
#pragma once

#include <immintrin.h>

#include <chrono>

namespace tessera::bench {

inline constexpr int kFmaAccumulators = 12;
inline constexpr int kFmaLanes = 8;

/// Runs `iterations` rounds of kFmaAccumulators vector FMAs; returns a value to keep.
__attribute__((target("avx2,fma"), noinline)) inline float fmaLoop(long iterations) {
  __m256 acc[kFmaAccumulators];
  for (int i = 0; i < kFmaAccumulators; ++i) acc[i] = _mm256_set1_ps(static_cast<float>(i));
  const __m256 a = _mm256_set1_ps(0.999999f);
  const __m256 b = _mm256_set1_ps(1e-7f);
  for (long n = 0; n < iterations; ++n)
#pragma GCC unroll 16  // keeps every accumulator in a register
    for (int i = 0; i < kFmaAccumulators; ++i) acc[i] = _mm256_fmadd_ps(acc[i], a, b);
  __m256 sum = acc[0];
  for (int i = 1; i < kFmaAccumulators; ++i) sum = _mm256_add_ps(sum, acc[i]);
  float out[kFmaLanes];
  _mm256_storeu_ps(out, sum);
  return out[0];
}

/// GFLOP/s of one timed fmaLoop(iterations); `sink` keeps the result alive.
inline double fmaGflops(long iterations, float& sink) {
  const auto start = std::chrono::steady_clock::now();
  sink += fmaLoop(iterations);
  const double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return 2.0 * kFmaLanes * kFmaAccumulators * static_cast<double>(iterations) / secs / 1e9;
}

}  // namespace tessera::bench
