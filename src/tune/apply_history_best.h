// ApplyHistoryBest: the tuning database as the compiler's schedule provider
// (lower/relay/schedule_provider.h). Each kernel whose workload has a valid record for the build's
// target gets the best record's trace; kernels without one keep their default schedules.
#pragma once

#include <memory>

#include "lower/relay/schedule_provider.h"
#include "tune/database.h"

namespace tessera::tune {

class ApplyHistoryBest : public lower::ScheduleProvider {
 public:
  explicit ApplyHistoryBest(std::shared_ptr<const Database> database)
      : database_(std::move(database)) {}
  std::optional<tir::Trace> scheduleFor(uint64_t key, const tir::PrimFunc& kernel,
                                        const target::Target& target) const override;

 private:
  std::shared_ptr<const Database> database_;
};

}  // namespace tessera::tune
