// The single-core FP32 FMA peak loop: independent fused multiply-adds on twelve accumulators,
// more than latency x throughput of two FMA pipes needs. It runs on the widest vectors the host
// has (AVX-512 where the CPU reports avx512f, else AVX2): an AVX2 loop on a Zen 5 or Intel
// AVX-512 core measures half of what the core can do, and every "fraction of peak" in
// bench/results/*-tuning*.md divides by this figure. Shared by fma_peak, cost_model_probe and
// tuning_spaces_bench, which interleave it with a tuned kernel.
#pragma once

#include <immintrin.h>

#include <chrono>

namespace tessera::bench {

inline constexpr int kFmaAccumulators = 12;

/// Runs `iterations` rounds of kFmaAccumulators 8-lane FMAs; returns a value to keep.
__attribute__((target("avx2,fma"), noinline)) inline float fmaLoopAvx2(long iterations) {
  __m256 acc[kFmaAccumulators];
  for (int i = 0; i < kFmaAccumulators; ++i) acc[i] = _mm256_set1_ps(static_cast<float>(i));
  const __m256 a = _mm256_set1_ps(0.999999f);
  const __m256 b = _mm256_set1_ps(1e-7f);
  for (long n = 0; n < iterations; ++n)
#pragma GCC unroll 16  // keeps every accumulator in a register
    for (int i = 0; i < kFmaAccumulators; ++i) acc[i] = _mm256_fmadd_ps(acc[i], a, b);
  __m256 sum = acc[0];
  for (int i = 1; i < kFmaAccumulators; ++i) sum = _mm256_add_ps(sum, acc[i]);
  float out[8];
  _mm256_storeu_ps(out, sum);
  return out[0];
}

/// The same loop on 16-lane AVX-512 vectors.
__attribute__((target("avx512f"), noinline)) inline float fmaLoopAvx512(long iterations) {
  __m512 acc[kFmaAccumulators];
  for (int i = 0; i < kFmaAccumulators; ++i) acc[i] = _mm512_set1_ps(static_cast<float>(i));
  const __m512 a = _mm512_set1_ps(0.999999f);
  const __m512 b = _mm512_set1_ps(1e-7f);
  for (long n = 0; n < iterations; ++n)
#pragma GCC unroll 16
    for (int i = 0; i < kFmaAccumulators; ++i) acc[i] = _mm512_fmadd_ps(acc[i], a, b);
  __m512 sum = acc[0];
  for (int i = 1; i < kFmaAccumulators; ++i) sum = _mm512_add_ps(sum, acc[i]);
  float out[16];
  _mm512_storeu_ps(out, sum);
  return out[0];
}

/// FP32 lanes of the vectors the peak loop uses on this host.
inline int fmaLanes() { return __builtin_cpu_supports("avx512f") ? 16 : 8; }

/// GFLOP/s of one timed peak loop of `iterations` rounds; `sink` keeps the result alive.
inline double fmaGflops(long iterations, float& sink) {
  const int lanes = fmaLanes();
  const auto start = std::chrono::steady_clock::now();
  sink += lanes == 16 ? fmaLoopAvx512(iterations) : fmaLoopAvx2(iterations);
  const double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return 2.0 * lanes * kFmaAccumulators * static_cast<double>(iterations) / secs / 1e9;
}

}  // namespace tessera::bench
