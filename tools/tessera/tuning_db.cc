#include "tuning_db.h"

#include <algorithm>
#include <iostream>
#include <regex>

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

namespace {

/// A target's -mcpu and -num-cores, the parts in which machines and builds usually differ.
std::string shortTarget(const std::string& target) {
  static const std::regex kParts(R"((-mcpu=\S+)|(-num-cores=\d+))");
  std::string out;
  for (auto it = std::sregex_iterator(target.begin(), target.end(), kParts);
       it != std::sregex_iterator(); ++it)
    out += (out.empty() ? "" : " ") + it->str();
  return out.empty() ? target : out;
}

/// Records measured for other targets only are never applied; say so, since a database tuned
/// with `--threads 1` and a build on the runtime's default thread count differ only there.
void noteOtherTargets(const std::string& dir, const target::Target& target) {
  const std::vector<std::string> targets = tune::Database(dir).recordTargets();
  const std::string mine = tune::recordTarget(target);
  if (targets.empty() || std::find(targets.begin(), targets.end(), mine) != targets.end()) return;
  std::cerr << "note: the records in " << dir << " were measured for another target (";
  for (size_t i = 0; i < targets.size(); ++i)
    std::cerr << (i ? "; " : "") << shortTarget(targets[i]);
  std::cerr << ") than this build's (" << shortTarget(mine)
            << "): give --target with the tuning run's -num-cores, or set TESSERA_NUM_THREADS "
               "to its --threads\n";
}

}  // namespace

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
  if (tuned < built.strategies.size()) noteOtherTargets(dir, built.target);
}

}  // namespace tessera::cli
