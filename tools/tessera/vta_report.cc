// VtaRunReport (vta_report.h).
#include "vta_report.h"

#include "support/diagnostic.h"
#include "vta/rt/timing.h"
#include "vta/rt/trace.h"

namespace tessera::cli {

VtaRunReport::VtaRunReport(runtime::GraphExecutor& executor, const VtaReportOptions& options)
    : options_(options), device_(std::dynamic_pointer_cast<vta::VtaDevice>(executor.device("vta"))) {
  if (!device_)
    throwDiagnostic("vta_report",
                    "--vta-stats and --vta-trace need a module with VTA kernels (compile it with "
                    "--target vta)");
  device_->queue().clearStats();
  if (options_.tracePath) device_->queue().captureRuns(&runs_);
}

VtaRunReport::~VtaRunReport() {
  if (device_) device_->queue().captureRuns(nullptr);
}

std::string VtaRunReport::finish() {
  device_->queue().captureRuns(nullptr);
  if (options_.tracePath) {
    // The run's device programs in order, as one timeline: each ends with FINISH, which only the
    // last keeps (the dependency tokens of each program balance within it).
    std::vector<vta::Instruction> all;
    for (const vta::Program& p : runs_) {
      std::vector<vta::Instruction> insns = vta::decodeInstructions(p);
      if (!insns.empty() && insns.back().opcode == vta::Opcode::kFinish) insns.pop_back();
      all.insert(all.end(), insns.begin(), insns.end());
    }
    if (!runs_.empty()) {
      all.push_back(vta::decodeInstructions(runs_.back()).back());
      const vta::Config& cfg = device_->queue().config();
      vta::writeChromeTrace(*options_.tracePath, cfg, all, vta::estimateTiming(cfg, all));
    }
  }
  if (!options_.stats) return "";
  return "Execution statistics:\n" + device_->queue().stats().format();
}

}  // namespace tessera::cli
