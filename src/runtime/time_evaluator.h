// time_evaluator: TVM's way of timing a function. One measurement runs the function `number`
// times and records the mean time per call; `repeat` measurements are taken. When a measurement
// is shorter than `minRepeatMs`, `number` grows and the measurement is taken again, so short
// functions are timed over a meaningful interval.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace tessera {

struct TimeEvaluatorOptions {
  int number = 1;          ///< calls per measurement (at least 1)
  int repeat = 1;          ///< measurements (at least 1)
  double minRepeatMs = 0;  ///< grow `number` until one measurement lasts at least this long
  int warmup = 1;          ///< untimed calls before the first measurement
  /// Runs untimed before every measurement (TVM's f_preproc, e.g. a cache flush); may be empty.
  std::function<void()> beforeMeasurement;
};

/// Seconds per call of each measurement, with summary statistics.
struct TimingResult {
  std::vector<double> results;  ///< one mean time per call for each measurement, in seconds
  int number = 0;               ///< calls per measurement that were finally used
  double mean = 0;
  double median = 0;
  double min = 0;
  double max = 0;
  double stddev = 0;

  /// "mean 1.234 ms, median 1.200 ms, min 1.100 ms, max 1.500 ms (3 x 10 runs)".
  std::string str() const;
};

/// Times `fn`. Throws DiagnosticError (code "time_evaluator") for number, repeat or warmup below
/// their minimum or a negative minRepeatMs; exceptions of `fn` propagate.
TimingResult timeEvaluator(const std::function<void()>& fn,
                           const TimeEvaluatorOptions& options = {});

/// Summary statistics of raw per-call seconds (at least one value).
TimingResult summarizeTimings(std::vector<double> seconds, int number);

}  // namespace tessera
