#include "ir/transform.h"

#include <sys/resource.h>

#include <chrono>
#include <iostream>
#include <nlohmann/json.hpp>

#include "support/check.h"
#include "support/diagnostic.h"

namespace tessera::transform {

const std::vector<ConfigOption>& configOptions() {
  static const std::vector<ConfigOption> options = {
      {"relay.FuseOps.max_depth", ConfigKind::kInt,
       "the most ops FuseOps puts into one fused function (default 256)"},
      {"tir.disable_vectorize", ConfigKind::kBool,
       "vectorized loops are lowered as serial loops (VectorizeLoop)"},
      {"tir.disable_loop_partition", ConfigKind::kBool, "skip LoopPartition"},
      {"tir.disable_storage_rewrite", ConfigKind::kBool, "skip StorageRewrite"},
      {"tir.disable_cse_tir", ConfigKind::kBool, "skip CommonSubexprElimTIR"},
      {"tir.add_lower_pass", ConfigKind::kPassList,
       "[[phase, \"Pass\"], ...]: run the TIR pass at the end of phase 0-3 of the lowering "
       "(0: before phase 1); names a pass of tir::transform::passByName"},
      {"tir.UnrollLoop",
       ConfigKind::kDict,
       "UnrollLoop's options",
       {{"auto_max_step", ConfigKind::kInt},
        {"auto_max_depth", ConfigKind::kInt},
        {"auto_max_extent", ConfigKind::kInt},
        {"explicit_unroll", ConfigKind::kBool}}},
  };
  return options;
}

namespace {

[[noreturn]] void configError(const std::string& key, const std::string& message) {
  throwDiagnostic("pass_config", message, {}, "pass config " + key);
}

const ConfigOption& optionOf(const std::string& key) {
  std::string known;
  for (const ConfigOption& option : configOptions()) {
    if (key == option.key) return option;
    known += (known.empty() ? "" : ", ") + std::string(option.key);
  }
  configError(key, "unknown config key '" + key + "'; known keys: " + known);
}

const char* kindName(ConfigKind kind) {
  switch (kind) {
    case ConfigKind::kBool:
      return "a boolean (true or false)";
    case ConfigKind::kInt:
      return "an integer";
    case ConfigKind::kPassList:
      return "a list of [phase, \"PassName\"] pairs";
    case ConfigKind::kDict:
      return "a dictionary";
  }
  return "";
}

bool hasKind(const AttrValue& v, ConfigKind kind) {
  switch (kind) {
    case ConfigKind::kBool:
      return v.kind() == AttrValue::Kind::kBool;
    case ConfigKind::kInt:
      return v.kind() == AttrValue::Kind::kInt;
    case ConfigKind::kPassList:
    case ConfigKind::kDict:
      return v.kind() == AttrValue::Kind::kArray;
  }
  return false;
}

void checkPassList(const std::string& key, const AttrValue& value) {
  for (const AttrValue& item : value.asArray()) {
    const bool pair = item.kind() == AttrValue::Kind::kArray && item.asArray().size() == 2 &&
                      item.asArray()[0].kind() == AttrValue::Kind::kInt &&
                      item.asArray()[1].kind() == AttrValue::Kind::kString;
    if (!pair) configError(key, "expected [phase, \"PassName\"] pairs, found " + item.str());
    const int64_t phase = item.asArray()[0].asInt();
    if (phase < 0 || phase > 3)
      configError(key, "phase " + std::to_string(phase) + " of pass '" +
                           item.asArray()[1].asString() + "' is not 0, 1, 2 or 3");
  }
}

void checkDict(const ConfigOption& option, const AttrValue& value) {
  for (const AttrValue& item : value.asArray()) {
    const bool pair = item.kind() == AttrValue::Kind::kArray && item.asArray().size() == 2 &&
                      item.asArray()[0].kind() == AttrValue::Kind::kString;
    if (!pair) configError(option.key, "expected {\"field\": value, ...}, found " + item.str());
    const std::string& field = item.asArray()[0].asString();
    std::string known;
    bool found = false;
    for (const auto& [name, kind] : option.fields) {
      known += (known.empty() ? "" : ", ") + std::string(name);
      if (field != name) continue;
      found = true;
      if (!hasKind(item.asArray()[1], kind))
        configError(option.key, "field '" + field + "' expects " + kindName(kind) + ", found " +
                                    item.asArray()[1].str());
    }
    if (!found) configError(option.key, "unknown field '" + field + "'; known fields: " + known);
  }
}

AttrValue fromJson(const nlohmann::json& j) {
  if (j.is_boolean()) return AttrValue::boolean(j.get<bool>());
  if (j.is_number_integer()) return AttrValue::integer(j.get<int64_t>());
  if (j.is_number()) return AttrValue::floating(j.get<double>());
  if (j.is_string()) return AttrValue::string(j.get<std::string>());
  std::vector<AttrValue> items;
  if (j.is_array()) {
    for (const nlohmann::json& item : j) items.push_back(fromJson(item));
  } else if (j.is_object()) {
    // A dictionary is kept as [key, value] pairs, in the order written.
    for (const auto& [field, item] : j.items())
      items.push_back(AttrValue::array({AttrValue::string(field), fromJson(item)}));
  }
  return AttrValue::array(std::move(items));
}

AttrValue parseValue(const ConfigOption& option, const std::string& text) {
  switch (option.kind) {
    case ConfigKind::kBool:
      if (text == "true" || text == "1" || text == "True") return AttrValue::boolean(true);
      if (text == "false" || text == "0" || text == "False") return AttrValue::boolean(false);
      break;
    case ConfigKind::kInt:
      try {
        size_t used = 0;
        const int64_t v = std::stoll(text, &used);
        if (used == text.size()) return AttrValue::integer(v);
      } catch (const std::exception&) {
      }
      break;
    case ConfigKind::kPassList:
    case ConfigKind::kDict: {
      // nlohmann keeps object keys sorted; the order of fields does not matter here.
      const nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
      const bool shapeOk = option.kind == ConfigKind::kPassList ? j.is_array() : j.is_object();
      if (shapeOk) return fromJson(j);
      break;
    }
  }
  configError(option.key,
              std::string("expects ") + kindName(option.kind) + ", found '" + text + "'");
}

// The contexts entered on this thread, innermost last.
thread_local std::vector<PassContext*> contextStack;
// Depth of Sequential and step nesting, for indenting the timing report.
thread_local int passDepth = 0;

}  // namespace

AttrValue PassContext::configValue(const std::string& key, AttrValue fallback) const {
  auto it = config.find(key);
  return it == config.end() ? fallback : it->second;
}

bool PassContext::configFlag(const std::string& key, bool fallback) const {
  const AttrValue v = configValue(key);
  return v.kind() == AttrValue::Kind::kBool ? v.asBool() : fallback;
}

AttrValue PassContext::configField(const std::string& key, const std::string& field,
                                   AttrValue fallback) const {
  const AttrValue dict = configValue(key);
  if (dict.kind() != AttrValue::Kind::kArray) return fallback;
  for (const AttrValue& item : dict.asArray())
    if (item.asArray().size() == 2 && item.asArray()[0].asString() == field)
      return item.asArray()[1];
  return fallback;
}

void PassContext::setConfig(const std::string& key, const std::string& text) {
  setConfig(key, parseValue(optionOf(key), text));
}

void PassContext::setConfig(const std::string& key, const AttrValue& value) {
  const ConfigOption& option = optionOf(key);
  if (!hasKind(value, option.kind))
    configError(key, std::string("expects ") + kindName(option.kind) + ", found " + value.str());
  if (option.kind == ConfigKind::kPassList) checkPassList(key, value);
  if (option.kind == ConfigKind::kDict) checkDict(option, value);
  config[key] = value;
}

PassContext& PassContext::current() {
  thread_local PassContext defaultContext;
  return contextStack.empty() ? defaultContext : *contextStack.back();
}

void PassContext::enter(PassContext& ctx) {
  contextStack.push_back(&ctx);
}

void PassContext::exit() {
  TS_CHECK(!contextStack.empty()) << "PassContext::exit without a matching enter";
  contextStack.pop_back();
}

bool passEnabled(const PassInfo& info, const PassContext& ctx) {
  if (ctx.disabledPasses.count(info.name)) return false;
  return ctx.requiredPasses.count(info.name) || ctx.optLevel >= info.optLevel;
}

bool printsAfter(const PassContext& ctx, const std::string& name) {
  return ctx.printAfterAll || ctx.printAfter.count(name);
}

void runInstrumented(PassContext& ctx, const std::string& name, const std::function<void()>& body,
                     const std::function<std::string()>& print) {
  const auto start = std::chrono::steady_clock::now();
  const size_t timingIndex = ctx.timings.size();
  // Pushed before the body runs, so that nested steps are listed after (below) it.
  if (ctx.timePasses) ctx.timings.push_back(PassTiming{name, 0, passDepth});
  ++passDepth;
  try {
    body();
  } catch (...) {
    --passDepth;
    throw;
  }
  --passDepth;
  if (ctx.timePasses) {
    const std::chrono::duration<double, std::milli> elapsed =
        std::chrono::steady_clock::now() - start;
    ctx.timings[timingIndex].milliseconds = elapsed.count();
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    ctx.timings[timingIndex].peakMiB = usage.ru_maxrss / 1024;
  }
  if (printsAfter(ctx, name)) {
    std::ostream& os = ctx.printStream ? *ctx.printStream : std::cerr;
    os << "// after " << name << "\n" << print() << "\n";
  }
}

}  // namespace tessera::transform
