// The host's triple, CPU and features, as LLVM sees them.
#include "codegen/llvm/target.h"

#include <algorithm>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include <llvm/ADT/StringMap.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/TargetParser/Host.h>
#include <llvm/TargetParser/Triple.h>

#include "codegen/llvm/llvm_backend.h"
#include "runtime/amx_permission.h"
#include "support/diagnostic.h"

namespace tessera::codegen {

namespace {

// "+a,-b,..." sorted, so that the same processor always gives the same string (deterministic
// output).
std::string joinSorted(std::vector<std::string> features) {
  std::sort(features.begin(), features.end());
  std::string out;
  for (const std::string& f : features) out += (out.empty() ? "" : ",") + f;
  return out;
}

std::string hostFeatures() {
  std::vector<std::string> features;
  for (const auto& entry : llvm::sys::getHostCPUFeatures()) {
    features.push_back((entry.second ? "+" : "-") + entry.first().str());
  }
  return joinSorted(std::move(features));
}

// The instruction-set features LLVM enables for the processor `cpu` of the host's architecture,
// as the host's are spelled (LLVM's processor tables also hold tuning flags, which -mcpu sets by
// itself and which strategies never read). DiagnosticError for a name LLVM does not know, which it
// would otherwise only warn about before compiling for its generic CPU.
std::string cpuFeatures(const std::string& triple, const std::string& cpu) {
  initializeLLVM();
  std::string error;
  const llvm::Target* llvmTarget = llvm::TargetRegistry::lookupTarget(triple, error);
  if (llvmTarget == nullptr)
    throwDiagnostic("target", "LLVM cannot generate code for '" + triple + "': " + error);
  std::unique_ptr<llvm::MCSubtargetInfo> info(llvmTarget->createMCSubtargetInfo(triple, "", ""));
  if (!info || !info->isCPUStringValid(cpu))
    throwDiagnostic("target", "unknown CPU '" + cpu + "' for " + triple +
                                  " (LLVM's names, e.g. haswell, skylake-avx512, znver4; "
                                  "`llc -mtriple=" +
                                  triple + " -mcpu=help` lists them)");
  info.reset(llvmTarget->createMCSubtargetInfo(triple, cpu, ""));
  std::vector<std::string> features;
  for (const auto& entry : llvm::sys::getHostCPUFeatures()) {
    const std::string name = entry.first().str();
    features.push_back((info->checkFeatures("+" + name) ? "+" : "-") + name);
  }
  return joinSorted(std::move(features));
}

// `base` ("+a,-b,...") with each feature of `changes` replacing its entry (or added), sorted.
std::string withChanges(const std::string& base, const std::string& changes) {
  std::map<std::string, char> features;
  auto add = [&](const std::string& list) {
    size_t start = 0;
    while (start < list.size()) {
      size_t comma = list.find(',', start);
      if (comma == std::string::npos) comma = list.size();
      const std::string f = list.substr(start, comma - start);
      if (f.size() > 1 && (f[0] == '+' || f[0] == '-')) features[f.substr(1)] = f[0];
      start = comma + 1;
    }
  };
  add(base);
  add(changes);
  std::string out;
  for (const auto& [name, sign] : features) out += (out.empty() ? "" : ",") + (sign + name);
  return out;
}

}  // namespace

std::string usableHostFeatures(const std::string& cpuFeatures, bool amxGranted) {
  if (amxGranted) return cpuFeatures;
  std::string out;
  for (size_t start = 0; start < cpuFeatures.size();) {
    size_t comma = cpuFeatures.find(',', start);
    if (comma == std::string::npos) comma = cpuFeatures.size();
    std::string f = cpuFeatures.substr(start, comma - start);
    if (f.size() > 1 && f[0] == '+' && f.compare(1, 4, "amx-") == 0) f[0] = '-';
    if (!f.empty()) out += (out.empty() ? "" : ",") + f;
    start = comma + 1;
  }
  return out;
}

target::Target hostTarget() {
  return withHostDefaults(target::Target::llvm());
}

bool isHostCompatible(const target::Target& target) {
  llvm::Triple mine(target.triple.empty() ? llvm::sys::getProcessTriple() : target.triple);
  llvm::Triple hostTriple(llvm::sys::getProcessTriple());
  return mine.getArch() == hostTriple.getArch() && mine.getOS() == hostTriple.getOS();
}

target::Target withHostDefaults(const target::Target& target) {
  if (target.kind != target::TargetKind::kLlvm)
    throwDiagnostic("target",
                    "target kind '" + target.kindName() +
                        "' has no LLVM code generator (kernels for it are not compiled by LLVM)",
                    {}, "target '" + target.str() + "'");
  target::Target t = target;
  const bool cpuSet = !t.cpu.empty();
  if (t.triple.empty()) t.triple = llvm::sys::getProcessTriple();
  // The host's CPU and features are only a sensible default when compiling for the host.
  if (!cpuSet) t.cpu = isHostCompatible(t) ? llvm::sys::getHostCPUName().str() : "generic";
  // Features change the CPU's defaults, as -mattr changes -mcpu's for LLVM: `-mattr=-amx-int8`
  // is the host without AMX, `-mcpu=skylake-avx512` alone is that processor with AVX-512, and the
  // strategies see what LLVM will generate code for. The host's AMX only counts when the process
  // may use its tiles (asked once; not at all on a processor without AMX); a named CPU's counts,
  // since its code is meant for that processor.
  if (!cpuSet && isHostCompatible(t)) {
    std::string host = hostFeatures();
    const bool hasAmx = ("," + host + ",").find(",+amx-tile,") != std::string::npos;
    if (hasAmx) host = usableHostFeatures(host, runtime::requestAmxTileData());
    t.features = withChanges(host, t.features);
  } else if (cpuSet && isHostCompatible(t)) {
    t.features = withChanges(cpuFeatures(t.triple, t.cpu), t.features);
  }
  return t;
}

}  // namespace tessera::codegen
