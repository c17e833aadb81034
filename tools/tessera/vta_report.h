// `tessera run --vta-stats / --vta-trace` for a module with VTA kernels: the simulator's counters
// over the run, printed as the seeds print them, and the cycle model's timeline of the run's
// device programs in Chrome trace format.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "runtime/graph_executor/graph_executor.h"
#include "vta/rt/device.h"
#include "vta/rt/program_file.h"

namespace tessera::cli {

struct VtaReportOptions {
  bool stats = false;
  std::optional<std::string> tracePath;
  bool wanted() const { return stats || tracePath.has_value(); }
};

/// Watches the VTA device of `executor` during the runs between construction and finish().
/// DiagnosticError (code "vta_report") when the executor has no VTA device.
class VtaRunReport {
 public:
  VtaRunReport(runtime::GraphExecutor& executor, const VtaReportOptions& options);
  ~VtaRunReport();
  /// Writes the trace (when asked) and returns the statistics text ("" unless asked).
  std::string finish();

 private:
  VtaReportOptions options_;
  std::shared_ptr<vta::VtaDevice> device_;
  std::vector<vta::Program> runs_;
};

}  // namespace tessera::cli
