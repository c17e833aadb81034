// The host's triple, CPU and features, as LLVM sees them.
#include "codegen/llvm/target.h"

#include <algorithm>
#include <vector>

#include <llvm/ADT/StringMap.h>
#include <llvm/TargetParser/Host.h>
#include <llvm/TargetParser/Triple.h>

#include "support/diagnostic.h"

namespace tessera::codegen {

namespace {

std::string hostFeatures() {
  // Sorted so that the same host always gives the same string (deterministic output).
  std::vector<std::string> features;
  for (const auto& entry : llvm::sys::getHostCPUFeatures()) {
    features.push_back((entry.second ? "+" : "-") + entry.first().str());
  }
  std::sort(features.begin(), features.end());
  std::string out;
  for (const std::string& f : features) out += (out.empty() ? "" : ",") + f;
  return out;
}

}  // namespace

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
  if (t.features.empty() && !cpuSet && isHostCompatible(t)) t.features = hostFeatures();
  return t;
}

}  // namespace tessera::codegen
