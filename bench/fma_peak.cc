// Single-core FP32 FMA peak of this machine (fma_peak.h's loop), timed over a fixed count;
// prints GFLOP/s of each repeat and their median. The reference for "fraction of
// peak" in bench/results/*-tuning*.md. Usage: fma_peak [REPEATS]; pin it with taskset for one core.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "fma_peak.h"

int main(int argc, char** argv) {
  const int repeats = argc > 1 ? std::max(1, std::atoi(argv[1])) : 7;
  constexpr long kIterations = 100'000'000;
  std::vector<double> gflops;
  float sink = 0;
  for (int r = 0; r < repeats; ++r) {
    gflops.push_back(tessera::bench::fmaGflops(kIterations, sink));
    std::printf("repeat %d: %.1f GFLOP/s\n", r, gflops.back());
  }
  std::sort(gflops.begin(), gflops.end());
  std::printf("median: %.1f GFLOP/s, best: %.1f GFLOP/s (%s, checksum %g)\n",
              gflops[gflops.size() / 2], gflops.back(),
              tessera::bench::fmaLanes() == 16 ? "AVX-512" : "AVX2", static_cast<double>(sink));
  return 0;
}
