// Timing loop and statistics of time_evaluator.
#include "runtime/time_evaluator.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <numeric>

#include "support/check.h"
#include "support/diagnostic.h"

namespace tessera {

namespace {

double secondsOf(const std::function<void()>& fn, int number) {
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < number; ++i) fn();
  const auto stop = std::chrono::steady_clock::now();
  return std::chrono::duration<double>(stop - start).count();
}

std::string formatSeconds(double s) {
  char buffer[32];
  if (s >= 1)
    std::snprintf(buffer, sizeof buffer, "%.3f s", s);
  else if (s >= 1e-3)
    std::snprintf(buffer, sizeof buffer, "%.3f ms", s * 1e3);
  else
    std::snprintf(buffer, sizeof buffer, "%.3f us", s * 1e6);
  return buffer;
}

}  // namespace

std::string TimingResult::str() const {
  return "mean " + formatSeconds(mean) + ", median " + formatSeconds(median) + ", min " +
         formatSeconds(min) + ", max " + formatSeconds(max) + " (" +
         std::to_string(results.size()) + " x " + std::to_string(number) + " runs)";
}

TimingResult summarizeTimings(std::vector<double> seconds, int number) {
  TS_CHECK(!seconds.empty()) << "no measurements";
  TimingResult r;
  r.results = seconds;
  r.number = number;
  std::sort(seconds.begin(), seconds.end());
  const size_t n = seconds.size();
  r.min = seconds.front();
  r.max = seconds.back();
  r.median = n % 2 ? seconds[n / 2] : (seconds[n / 2 - 1] + seconds[n / 2]) / 2;
  r.mean = std::accumulate(seconds.begin(), seconds.end(), 0.0) / static_cast<double>(n);
  double squares = 0;
  for (double s : seconds) squares += (s - r.mean) * (s - r.mean);
  r.stddev = std::sqrt(squares / static_cast<double>(n));
  return r;
}

TimingResult timeEvaluator(const std::function<void()>& fn, const TimeEvaluatorOptions& options) {
  if (options.number < 1 || options.repeat < 1 || options.warmup < 0 || options.minRepeatMs < 0)
    throwDiagnostic("time_evaluator",
                    "number and repeat must be at least 1, warmup and min_repeat_ms at least 0 "
                    "(got number " +
                        std::to_string(options.number) + ", repeat " +
                        std::to_string(options.repeat) + ", warmup " +
                        std::to_string(options.warmup) + ")");
  for (int i = 0; i < options.warmup; ++i) fn();
  int number = options.number;
  std::vector<double> perCall;
  auto measure = [&](int calls) {
    if (options.beforeMeasurement) options.beforeMeasurement();
    return secondsOf(fn, calls);
  };
  for (int r = 0; r < options.repeat; ++r) {
    double seconds = measure(number);
    // As TVM does: when too short, scale `number` up to what the last measurement suggests
    // (at least doubling, at most 1000x at once) and measure again; later repeats keep it.
    while (seconds * 1e3 < options.minRepeatMs && number < (1 << 30)) {
      const double wanted = options.minRepeatMs / std::max(seconds * 1e3, 1e-6) * number;
      const double scaled = std::clamp(wanted * 1.1, number * 2.0, number * 1000.0);
      number = static_cast<int>(std::min(scaled, static_cast<double>(1 << 30)));
      seconds = measure(number);
    }
    perCall.push_back(seconds / number);
  }
  // Measurements taken before `number` grew to its final value averaged fewer calls; they still
  // measure time per call, so they are kept.
  return summarizeTimings(std::move(perCall), number);
}

}  // namespace tessera
