#include "tune/task_table.h"

#include <cstdio>

#include "tune/database.h"

namespace tessera::tune {

namespace {

std::string fixed4(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4f", v);
  return buf;
}

}  // namespace

std::string formatTaskTable(const std::vector<TaskRow>& rows) {
  std::vector<std::vector<std::string>> cells = {{"ID", "Name", "FLOP", "Weight", "Speed (GFLOPS)",
                                                  "Latency (us)", "Weighted Latency (us)", "Trials",
                                                  "Done"}};
  int totalTrials = 0;
  double totalLatency = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    const TaskRow& r = rows[i];
    const bool valid = r.bestSeconds > 0 && r.bestSeconds < kFailedRunSeconds;
    const double us = r.bestSeconds * 1e6;
    totalTrials += r.trials;
    if (valid) totalLatency += us * r.weight;
    cells.push_back({std::to_string(i), r.name, std::to_string(r.flops), std::to_string(r.weight),
                     valid ? fixed4(static_cast<double>(r.flops) / us / 1000) : "N/A",
                     valid ? fixed4(us) : "N/A", valid ? fixed4(us * r.weight) : "N/A",
                     std::to_string(r.trials), r.done ? "Y" : ""});
  }
  std::vector<size_t> width(cells[0].size(), 0);
  for (const auto& row : cells)
    for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  auto line = [&](const std::vector<std::string>& row) {
    std::string out = " ";
    for (size_t c = 0; c < row.size(); ++c) {
      if (c > 0) out += " | ";
      out += std::string(width[c] - row[c].size(), ' ') + row[c];
    }
    return out + " \n";
  };
  const std::string header = line(cells[0]);
  const std::string dashes = std::string(header.size() - 1, '-') + "\n";
  std::string out = header + dashes;
  for (size_t i = 1; i < cells.size(); ++i) out += line(cells[i]);
  out += dashes;
  out += "Total trials: " + std::to_string(totalTrials) + "\n";
  out += "Total latency (us): " + fixed4(totalLatency) + "\n";
  return out;
}

}  // namespace tessera::tune
