#include "pass_options.h"

#include <algorithm>
#include <iostream>
#include <sstream>

#include "driver/pipeline.h"
#include "support/diagnostic.h"

namespace tessera::cli {

namespace {

std::string joined(const std::vector<std::string>& names) {
  std::string list;
  for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
  return list;
}

bool contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace

int parseOptLevel(Args& args, int fallback) {
  const std::optional<std::string> level = args.value("--opt-level");
  if (!level) return fallback;
  if (level->size() != 1 || (*level)[0] < '0' || (*level)[0] > '4')
    throw UsageError{"--opt-level expects 0 to 4"};
  return (*level)[0] - '0';
}

PassContextFlags parsePassContext(Args& args, bool instruments) {
  PassContextFlags flags;
  relay::PassContext& ctx = flags.ctx;
  const std::optional<std::string> level = args.value("--opt-level");
  if (level) {
    Args one({"--opt-level", *level});
    ctx.optLevel = parseOptLevel(one);
  } else {
    ctx.optLevel = 3;
  }
  const std::vector<std::string> configs = args.values("--pass-config");
  const std::vector<std::string> disabled = args.values("--disabled-pass");
  flags.given = level || !configs.empty() || !disabled.empty();
  for (const std::string& spec : configs) {
    const size_t eq = spec.find('=');
    if (eq == std::string::npos || eq == 0)
      throw UsageError{"--pass-config expects KEY=VALUE but got '" + spec + "'"};
    ctx.setConfig(spec.substr(0, eq), spec.substr(eq + 1));
  }
  const std::vector<std::string> passes = driver::knownPassNames();
  for (const std::string& list : disabled) {
    std::stringstream ss(list);
    std::string name;
    while (std::getline(ss, name, ',')) {
      if (name.empty()) continue;
      if (!contains(passes, name))
        throwDiagnostic("pass_config",
                        "no pass named '" + name + "' (known: " + joined(passes) + ")", {},
                        "--disabled-pass " + name);
      ctx.disabledPasses.insert(name);
    }
  }
  if (!instruments) return flags;
  const std::vector<std::string> printable = driver::printableStepNames();
  for (const std::string& name : args.values("--print-after")) {
    if (name == "all") {
      ctx.printAfterAll = true;
      continue;
    }
    if (!contains(printable, name))
      throw UsageError{"--print-after: no step or pass named '" + name +
                       "' (known: " + joined(printable) + ", all)"};
    ctx.printAfter.insert(name);
  }
  ctx.timePasses = args.flag("--time-passes");
  return flags;
}

void printPassTimings(const relay::PassContext& ctx) {
  for (const relay::PassTiming& t : ctx.timings)
    std::cerr << std::string(2 * t.depth, ' ') << t.name << ": " << t.milliseconds << " ms (peak "
              << t.peakMiB << " MiB)\n";
}

}  // namespace tessera::cli
