// The tuned 128^3 matmul against the single-core FMA peak, measured side by side: for each
// tuning database given (made by `tune_matmul DIR --rules`), the best record of the seed's plain
// matmul is replayed (compile_tir) and built, then timed in this process alternately with the
// FMA peak loop (fma_peak.h), ROUNDS times; each round's kernel GFLOP/s is divided by that
// round's peak, so load from other processes weighs on both alike. Prints the medians.
// Usage: TESSERA_NUM_THREADS=1 taskset -c 1 tuning_spaces_bench [--rounds N] DB_DIR...
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "codegen/llvm/target.h"
#include "fma_peak.h"
#include "seed_matmul.h"
#include "tune/database.h"
#include "tune/flops.h"
#include "tune/measure.h"

using namespace tessera;

namespace {

// GFLOP/s of `calls` calls of the built kernel.
double kernelGflops(const tune::BuildResult& built, const tune::MeasureInput& input, int calls,
                    int64_t flops) {
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < calls; ++i) built.module->call(built.entry, input.args);
  const double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return static_cast<double>(flops) * calls / secs / 1e9;
}

}  // namespace

int main(int argc, char** argv) {
  int rounds = 15;
  std::vector<std::string> dirs;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--rounds" && i + 1 < argc)
      rounds = std::max(1, std::atoi(argv[++i]));
    else
      dirs.push_back(arg);
  }
  if (dirs.empty()) {
    std::fprintf(stderr, "usage: tuning_spaces_bench [--rounds N] DB_DIR...\n");
    return 2;
  }
  const tir::PrimFunc mm = bench::matmul128();
  const int64_t flops = tune::estimateFlops(mm);
  target::Target target = codegen::hostTarget();
  target.numCores = 1;
  const tune::MeasureInput input = tune::makeMeasureInput(mm, target, 1, 1);
  float sink = 0;
  for (const std::string& dir : dirs) {
    const tune::Database db(dir);
    std::optional<tir::PrimFunc> best = tune::compileTir(db, mm, target);
    if (!best) {
      std::fprintf(stderr, "%s: no valid record of the 128^3 matmul\n", dir.c_str());
      return 1;
    }
    const tune::BuildResult built = tune::buildCandidate(*best, target);
    if (!built.module) {
      std::fprintf(stderr, "%s: %s\n", dir.c_str(), built.error.c_str());
      return 1;
    }
    kernelGflops(built, input, 200, flops);  // warm-up
    std::vector<double> kernel, peak, ratio;
    for (int r = 0; r < rounds; ++r) {
      peak.push_back(bench::fmaGflops(5'000'000, sink));  // about 50 ms
      kernel.push_back(kernelGflops(built, input, 1000, flops));
      ratio.push_back(kernel.back() / peak.back());
    }
    std::printf(
        "%s: kernel %.1f GFLOP/s (%.2f us), peak %.1f GFLOP/s, kernel/peak %.1f%% "
        "(medians of %d rounds)\n",
        dir.c_str(), bench::median(kernel), flops / bench::median(kernel) / 1e3,
        bench::median(peak), 100 * bench::median(ratio), rounds);
  }
  return sink == 12345.f ? 1 : 0;  // keeps the peak loops' results alive
}
