#include "tir/transform/pass.h"

#include <algorithm>
#include <map>
#include <mutex>

#include "support/diagnostic.h"
#include "tir/printer/printer.h"
#include "tir/transform/lower.h"

namespace tessera::tir {

std::string printForInstruments(const TirModule& module) {
  return toScript(module);
}

}  // namespace tessera::tir

namespace tessera::tir::transform {

namespace {

class PrimFuncPass final : public PassNode {
 public:
  PrimFuncPass(PassInfo info, PrimFuncTransform fn)
      : PassNode(std::move(info)), fn_(std::move(fn)) {}

 protected:
  TirModule transform(TirModule module, PassContext& ctx) const override {
    TirModule out;
    for (const PrimFunc& f : module.functions()) out.add(fn_(f, ctx));
    return out;
  }

 private:
  PrimFuncTransform fn_;
};

// Passes registered by users, by name. Guarded: passes may be registered from any thread.
std::mutex registryMutex;
std::map<std::string, Pass>& registered() {
  static std::map<std::string, Pass> passes;
  return passes;
}

Pass loweringPass(const std::string& name) {
  for (const Pass& pass : lowerPipelinePasses())
    if (pass->info().name == name) return pass;
  return nullptr;
}

}  // namespace

Pass makePrimFuncPass(PassInfo info, PrimFuncTransform fn) {
  return std::make_shared<PrimFuncPass>(std::move(info), std::move(fn));
}

void registerPass(const Pass& pass) {
  const std::string& name = pass->info().name;
  if (loweringPass(name))
    throwDiagnostic("pass_config", "'" + name + "' is the name of a lowering pass", {},
                    "tir pass " + name);
  std::lock_guard lock(registryMutex);
  auto [it, inserted] = registered().emplace(name, pass);
  if (!inserted && it->second != pass)
    throwDiagnostic("pass_config", "another TIR pass is already registered as '" + name + "'", {},
                    "tir pass " + name);
}

Pass passByName(const std::string& name) {
  if (Pass pass = loweringPass(name)) return pass;
  {
    std::lock_guard lock(registryMutex);
    auto it = registered().find(name);
    if (it != registered().end()) return it->second;
  }
  std::string known;
  for (const std::string& n : passNames()) known += (known.empty() ? "" : ", ") + n;
  throwDiagnostic("pass_config", "no TIR pass named '" + name + "'; known: " + known, {},
                  "pass config tir.add_lower_pass");
}

std::vector<std::string> passNames() {
  std::vector<std::string> names;
  for (const Pass& pass : lowerPipelinePasses())
    if (std::find(names.begin(), names.end(), pass->info().name) == names.end())
      names.push_back(pass->info().name);
  std::lock_guard lock(registryMutex);
  for (const auto& [name, pass] : registered()) names.push_back(name);
  return names;
}

void addLowerPass(PassContext& ctx, int phase, const Pass& pass) {
  registerPass(pass);
  std::vector<AttrValue> items;
  const AttrValue existing = ctx.configValue("tir.add_lower_pass");
  if (existing.kind() == AttrValue::Kind::kArray) items = existing.asArray();
  items.push_back(
      AttrValue::array({AttrValue::integer(phase), AttrValue::string(pass->info().name)}));
  ctx.setConfig("tir.add_lower_pass", AttrValue::array(std::move(items)));
}

}  // namespace tessera::tir::transform
