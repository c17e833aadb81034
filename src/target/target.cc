// Target strings: parsing against the kind table, and the canonical form.
#include "target/target.h"

#include <cstdlib>
#include <sstream>

#include "support/diagnostic.h"

namespace tessera::target {

namespace {

[[noreturn]] void targetError(const std::string& text, const std::string& message) {
  throwDiagnostic("target", message, {}, "target '" + text + "'");
}

std::vector<std::string> splitCommas(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

std::string optionNames(const TargetKindInfo& info) {
  std::string out;
  for (size_t i = 0; i < info.options.size(); ++i)
    out += (i == 0                         ? ""
            : i + 1 == info.options.size() ? " or "
                                           : ", ") +
           std::string(info.options[i].name);
  return out;
}

std::string kindNames() {
  std::string out;
  for (const TargetKindInfo& info : targetKinds())
    out += (out.empty() ? "'" : ", '") + std::string(info.name) + "'";
  return out;
}

int parseNumCores(const std::string& text, const std::string& value) {
  char* end = nullptr;
  const long n = std::strtol(value.c_str(), &end, 10);
  if (*end != '\0' || n < 1 || n > 4096)
    targetError(text, "num-cores must be a positive integer, found '" + value + "'");
  return static_cast<int>(n);
}

// The VTA configuration named by -config (or the standard one), checked against -model.
void loadVta(Target& t, const std::string& text, const std::string& model) {
  vta::Config config;
  try {
    config = t.configPath.empty() ? vta::Config::defaults() : vta::loadConfig(t.configPath);
  } catch (const DiagnosticError& e) {
    targetError(text, "cannot use VTA config '" + t.configPath + "': " + e.diagnostic().message);
  }
  if (!model.empty() && model != config.model())
    targetError(text, "model '" + model + "' does not match the VTA config, whose model is '" +
                          config.model() + "'");
  t.vtaConfig = std::make_shared<const vta::Config>(config);
}

}  // namespace

Target Target::llvm() {
  Target t;
  t.keys = kindInfo(TargetKind::kLlvm).defaultKeys;
  return t;
}

Target Target::parse(const std::string& text) {
  std::istringstream in(text);
  std::string kindText;
  in >> kindText;
  const TargetKindInfo* info = findTargetKind(kindText);
  if (!info)
    targetError(text, (kindText.empty() ? std::string("empty target")
                                        : "unknown target kind '" + kindText + "'") +
                          " (expected " + kindNames() + ")");
  Target t;
  t.kind = info->kind;
  t.keys = info->defaultKeys;
  std::string model;
  std::string option;
  while (in >> option) {
    std::string body = option;
    while (!body.empty() && body[0] == '-') body.erase(0, 1);
    const size_t eq = body.find('=');
    if (body.size() == option.size() || eq == std::string::npos || eq == 0 || eq + 1 == body.size())
      targetError(text, "expected '-key=value' but found '" + option + "'");
    const std::string key = body.substr(0, eq);
    const std::string value = body.substr(eq + 1);
    bool known = false;
    for (const TargetOption& o : info->options) known = known || key == o.name;
    if (!known)
      targetError(text, "unknown option '" + key + "' for target kind '" + info->name +
                            "' (expected " + optionNames(*info) + ")");
    if (key == "mtriple") t.triple = value;
    if (key == "mcpu") t.cpu = value;
    if (key == "mattr") t.features = value;
    if (key == "num-cores") t.numCores = parseNumCores(text, value);
    if (key == "keys") t.keys = splitCommas(value);
    if (key == "device") t.device = value;
    if (key == "config") t.configPath = value;
    if (key == "model") model = value;
  }
  if (t.kind == TargetKind::kVta) t.device = "vta";
  if (t.kind == TargetKind::kExtDev) {
    if (t.device != "vta")
      targetError(text, t.device.empty() ? "ext_dev needs -device=vta"
                                         : "unknown device '" + t.device + "' (expected 'vta')");
    // TVM spells VTA `ext_dev -keys=vta,cpu -device=vta`: the same keys by default.
    if (t.keys.empty()) t.keys = kindInfo(TargetKind::kVta).defaultKeys;
  }
  if (t.isVta()) loadVta(t, text, model);
  return t;
}

std::string Target::kindName() const {
  return kindInfo(kind).name;
}

std::string Target::str() const {
  std::string out = kindName();
  if (keys != kindInfo(kind).defaultKeys) {
    std::string joined;
    for (const std::string& k : keys) joined += (joined.empty() ? "" : ",") + k;
    out += " -keys=" + joined;
  }
  if (kind == TargetKind::kExtDev) out += " -device=" + device;
  if (!triple.empty()) out += " -mtriple=" + triple;
  if (!cpu.empty()) out += " -mcpu=" + cpu;
  if (!features.empty()) out += " -mattr=" + features;
  if (numCores > 0) out += " -num-cores=" + std::to_string(numCores);
  if (!configPath.empty()) out += " -config=" + configPath;
  if (vtaConfig) out += " -model=" + vtaConfig->model();
  return out;
}

bool Target::hasFeature(const std::string& feature) const {
  return ("," + features + ",").find(",+" + feature + ",") != std::string::npos;
}

int Target::vectorBytes() const {
  if (hasFeature("avx512f")) return 64;
  if (hasFeature("avx2") || hasFeature("avx")) return 32;
  return 16;
}

int Target::vectorRegisters() const {
  return hasFeature("avx512f") ? 32 : 16;
}

}  // namespace tessera::target
