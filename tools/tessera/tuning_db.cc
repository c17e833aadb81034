#include "tuning_db.h"

#include <iostream>

#include "tune/apply_history_best.h"
#include "tune/database.h"

namespace tessera::cli {

std::shared_ptr<const lower::ScheduleProvider> openTuningDatabase(
    const std::optional<std::string>& dir) {
  if (!dir) return nullptr;
  auto database = std::make_shared<tune::Database>(*dir);
  for (const std::string& w : database->warnings()) std::cerr << "warning: " << w << "\n";
  return std::make_shared<tune::ApplyHistoryBest>(std::move(database));
}

void reportTunedKernels(const std::string& dir, const driver::Built& built) {
  size_t tuned = 0;
  for (const driver::KernelStrategy& k : built.strategies) {
    if (k.anchor.tuned == "applied") {
      ++tuned;
    } else if (!k.anchor.tuned.empty()) {
      std::cerr << "warning: " << k.kernel << ": the tuned schedule no longer applies ("
                << k.anchor.tuned << "); its default schedule is used\n";
    }
  }
  std::cerr << "tuning database " << dir << ": " << tuned << " of " << built.strategies.size()
            << " kernels tuned\n";
}

}  // namespace tessera::cli
