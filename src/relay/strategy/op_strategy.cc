// The strategy registry and the choice of an implementation for a call.
#include "relay/strategy/op_strategy.h"

#include <algorithm>
#include <mutex>

#include "support/check.h"

namespace tessera::relay::strategy {

void registerX86Strategies();     // x86/strategies.cc
void registerX86AlterOpLayout();  // x86/alter_layout.cc
void registerConv2dTransposeLegalize();  // conv2d_transpose_legalize.cc

std::string StrategyChoice::chosenName() const {
  return chosen ? chosen->name : op + ".generic";
}

StrategyRegistry& StrategyRegistry::global() {
  static StrategyRegistry registry;
  return registry;
}

void StrategyRegistry::add(const std::string& op, const std::string& key, OpImplementation impl) {
  TS_CHECK(!impl.name.empty()) << "an implementation of " << op << " needs a name";
  TS_CHECK(!find(impl.name)) << "implementation " << impl.name << " is registered twice";
  rows_.push_back(std::make_unique<Row>(Row{op, key, std::move(impl)}));
}

void StrategyRegistry::reset(const std::string& op, const std::string& key) {
  std::erase_if(rows_, [&](const std::unique_ptr<Row>& r) { return r->op == op && r->key == key; });
}

std::vector<const OpImplementation*> StrategyRegistry::implementations(
    const std::string& op, const std::string& key) const {
  std::vector<const OpImplementation*> out;
  for (const auto& row : rows_)
    if (row->op == op && row->key == key) out.push_back(&row->impl);
  std::stable_sort(out.begin(), out.end(),
                   [](const OpImplementation* a, const OpImplementation* b) {
                     return a->priority > b->priority;
                   });
  return out;
}

const OpImplementation* StrategyRegistry::find(const std::string& name) const {
  for (const auto& row : rows_)
    if (row->impl.name == name) return &row->impl;
  return nullptr;
}

void StrategyRegistry::setGenericSchedule(
    const std::string& key,
    std::function<void(tir::Schedule&, const target::Target&, bool)> steps) {
  generic_[key] = std::move(steps);
}

const std::function<void(tir::Schedule&, const target::Target&, bool)>*
StrategyRegistry::genericSchedule(const target::Target& target) const {
  for (const std::string& key : target.keys)
    if (auto it = generic_.find(key); it != generic_.end()) return &it->second;
  return nullptr;
}

void registerStrategies() {
  static std::once_flag once;
  std::call_once(once, [] {
    registerX86Strategies();
    registerX86AlterOpLayout();
    registerConv2dTransposeLegalize();
  });
}

StrategyChoice selectImplementation(const StrategyCall& call) {
  registerStrategies();
  const auto* op = call.call.op->as<OpNode>();
  TS_CHECK(op) << "selectImplementation needs a call of an op";
  StrategyChoice choice{op->name};
  // TVM dispatches on the first key with a strategy; a key whose implementations all decline
  // falls through to the next one, so an accelerator's rows may leave a call to the CPU's.
  for (const std::string& key : call.target.keys) {
    for (const OpImplementation* impl : StrategyRegistry::global().implementations(op->name, key)) {
      const Applicability answer = impl->condition ? impl->condition(call) : Applicability::yes();
      choice.considered.push_back({impl->name, impl->priority, answer});
      if (answer) {
        choice.chosen = impl;
        return choice;
      }
    }
  }
  return choice;
}

std::vector<std::string> explainChoice(const StrategyChoice& choice) {
  std::vector<std::string> lines;
  std::string head = choice.op + ": " + choice.chosenName();
  if (choice.chosen) head += " (priority " + std::to_string(choice.chosen->priority) + ")";
  lines.push_back(head);
  for (const ConsideredImplementation& c : choice.considered)
    if (!c.answer)
      lines.push_back("  skipped " + c.name + " (priority " + std::to_string(c.priority) +
                      "): " + c.answer.reason);
  return lines;
}

}  // namespace tessera::relay::strategy
