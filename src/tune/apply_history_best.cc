#include "tune/apply_history_best.h"

namespace tessera::tune {

std::optional<tir::Trace> ApplyHistoryBest::scheduleFor(uint64_t key, const tir::PrimFunc&,
                                                        const target::Target& target) const {
  const std::optional<TuningRecord> best = database_->best(key, recordTarget(target));
  if (!best) return std::nullopt;
  return best->trace;
}

}  // namespace tessera::tune
