// Target strings and the host's defaults.
#include "codegen/llvm/target.h"

#include <algorithm>
#include <sstream>
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

[[noreturn]] void targetError(const std::string& text, const std::string& message) {
  throwDiagnostic("target", message, {}, "target '" + text + "'");
}

}  // namespace

Target Target::host() {
  Target t;
  t.triple = llvm::sys::getProcessTriple();
  t.cpu = llvm::sys::getHostCPUName().str();
  t.features = hostFeatures();
  return t;
}

bool Target::isHostCompatible() const {
  llvm::Triple mine(triple);
  llvm::Triple hostTriple(llvm::sys::getProcessTriple());
  return mine.getArch() == hostTriple.getArch() && mine.getOS() == hostTriple.getOS();
}

Target Target::parse(const std::string& text) {
  std::istringstream in(text);
  std::string kind;
  in >> kind;
  if (kind != "llvm") targetError(text, "expected target kind 'llvm' but found '" + kind + "'");
  Target t;
  bool cpuSet = false;
  bool attrSet = false;
  std::string option;
  while (in >> option) {
    std::string body = option;
    while (!body.empty() && body[0] == '-') body.erase(0, 1);
    size_t eq = body.find('=');
    if (eq == std::string::npos || eq + 1 == body.size()) {
      targetError(text, "expected '-key=value' but found '" + option + "'");
    }
    std::string key = body.substr(0, eq);
    std::string value = body.substr(eq + 1);
    if (key == "mtriple") {
      t.triple = value;
    } else if (key == "mcpu") {
      t.cpu = value;
      cpuSet = true;
    } else if (key == "mattr") {
      t.features = value;
      attrSet = true;
    } else if (key == "num-cores") {
      char* end = nullptr;
      long n = std::strtol(value.c_str(), &end, 10);
      if (*end != '\0' || n < 1)
        targetError(text, "num-cores must be a positive integer, found '" + value + "'");
      t.numCores = static_cast<int>(n);
    } else {
      targetError(text,
                  "unknown option '" + key + "' (expected mtriple, mcpu, mattr or num-cores)");
    }
  }
  if (t.triple.empty()) t.triple = llvm::sys::getProcessTriple();
  // The host's CPU and features are only a sensible default when compiling for the host.
  if (!cpuSet) t.cpu = t.isHostCompatible() ? llvm::sys::getHostCPUName().str() : "generic";
  if (!attrSet && !cpuSet && t.isHostCompatible()) t.features = hostFeatures();
  return t;
}

std::string Target::str() const {
  std::string out = "llvm";
  if (!triple.empty()) out += " -mtriple=" + triple;
  if (!cpu.empty()) out += " -mcpu=" + cpu;
  if (!features.empty()) out += " -mattr=" + features;
  if (numCores > 0) out += " -num-cores=" + std::to_string(numCores);
  return out;
}

int Target::vectorBytes() const {
  const std::string padded = "," + features + ",";
  if (padded.find(",+avx512f,") != std::string::npos) return 64;
  if (padded.find(",+avx2,") != std::string::npos || padded.find(",+avx,") != std::string::npos)
    return 32;
  return 16;
}

}  // namespace tessera::codegen
