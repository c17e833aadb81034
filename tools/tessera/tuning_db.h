// `--db DIR` of `tessera compile` and `tessera run`: the tuning database as the build's schedule
// provider (tune::ApplyHistoryBest), and what became of it, on stderr.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "driver/build.h"
#include "lower/relay/schedule_provider.h"

namespace tessera::cli {

/// The provider for `--db DIR` (null without it). The database's load warnings (corrupt lines)
/// go to stderr; a directory without a database is created empty.
std::shared_ptr<const lower::ScheduleProvider> openTuningDatabase(
    const std::optional<std::string>& dir);

/// "tuning database DIR: N of M kernels tuned" and one warning per kernel whose tuned trace did
/// not apply (its default schedule was used), on stderr.
void reportTunedKernels(const std::string& dir, const driver::Built& built);

}  // namespace tessera::cli
