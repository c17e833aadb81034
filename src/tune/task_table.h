// The task scheduler's log table (MetaSchedule's, specs/tir_relax.md §6.11):
//  ID | Name |    FLOP | Weight | Speed (GFLOPS) | Latency (us) | Weighted Latency (us) | Trials |
//  Done
// Cells right-aligned to the widest entry of their column (header included), separated by
// " | ", one space before and after each line; dashed lines as wide as the header; N/A for a task
// without a valid measurement; totals over the tasks with one.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tessera::tune {

struct TaskRow {
  std::string name;
  int64_t flops = 0;
  int weight = 1;
  double bestSeconds = 0;  ///< best median run time; <= 0 or >= kFailedRunSeconds: none yet
  int trials = 0;
  bool done = false;
};

std::string formatTaskTable(const std::vector<TaskRow>& rows);

}  // namespace tessera::tune
