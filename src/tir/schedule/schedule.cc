// Schedule: construction, copying, the PRNG, selecting the function worked on, and reading RVs.
#include "tir/schedule/schedule.h"

#include "support/diagnostic.h"
#include "tir/schedule/schedule_state.h"

namespace tessera::tir {

void throwScheduleError(const std::string& primitive, const std::string& reason) {
  throwDiagnostic("schedule",
                  "An error occurred in the schedule primitive '" + primitive + "': " + reason, {},
                  primitive);
}

namespace {

// TVM's default: the entry function, else "main", else the only function.
std::string defaultFunction(const TirModule& mod) {
  for (const PrimFunc& f : mod.functions()) {
    const AttrValue* entry = f->attrs.find("tir.is_entry_func");
    if (entry && entry->asBool()) return f->name;
  }
  if (mod.find("main")) return "main";
  if (mod.functions().size() == 1) return mod.functions()[0]->name;
  return "";
}

uint64_t systemSeed() {
  std::random_device rd;
  return (static_cast<uint64_t>(rd()) << 32) ^ rd();
}

}  // namespace

Schedule::Schedule(PrimFunc func, int64_t seed) : impl_(std::make_unique<Impl>()) {
  if (func->name.empty()) {
    auto named = std::make_shared<PrimFuncNode>(*func);
    named->name = "main";
    func = named;
  }
  impl_->mod.add(func);
  impl_->funcName = defaultFunction(impl_->mod);
  this->seed(seed);
}

Schedule::Schedule(TirModule mod, int64_t seed) : impl_(std::make_unique<Impl>()) {
  impl_->mod = std::move(mod);
  impl_->funcName = defaultFunction(impl_->mod);
  this->seed(seed);
}

Schedule::~Schedule() = default;
Schedule::Schedule(Schedule&&) noexcept = default;
Schedule& Schedule::operator=(Schedule&&) noexcept = default;

Schedule Schedule::copy() const {
  // IR nodes are immutable, so copying the Impl (module, tables, trace, PRNG) is a deep copy.
  Schedule out(impl_->mod);
  *out.impl_ = *impl_;
  return out;
}

const TirModule& Schedule::mod() const {
  return impl_->mod;
}
PrimFunc Schedule::func() const {
  return impl_->func("func");
}
const Trace& Schedule::trace() const {
  return impl_->trace;
}

void Schedule::workOn(const std::string& funcName) {
  if (!impl_->mod.find(funcName)) {
    throwScheduleError("work-on", "the module has no function named '" + funcName + "'");
  }
  impl_->funcName = funcName;
}

void Schedule::seed(int64_t seed) {
  impl_->rng.seed(seed < 0 ? systemSeed() : static_cast<uint64_t>(seed));
}

int64_t Schedule::forkSeed() {
  // A non-negative child seed, so a forked schedule never asks the system for one.
  return static_cast<int64_t>(impl_->rng() >> 1);
}

const BlockNode* Schedule::get(const BlockRV& rv) const {
  return impl_->block("get", rv);
}
const ForNode* Schedule::get(const LoopRV& rv) const {
  return impl_->loop("get", rv);
}
int64_t Schedule::get(const ExprRV& rv) const {
  return impl_->exprValue("get", rv);
}

void Schedule::removeRV(const BlockRV& rv) {
  if (!impl_->blockRVs.erase(rv.id))
    throwScheduleError("remove-rv", "the block random variable is not defined");
}

void Schedule::removeRV(const LoopRV& rv) {
  if (!impl_->loopRVs.erase(rv.id))
    throwScheduleError("remove-rv", "the loop random variable is not defined");
}

}  // namespace tessera::tir
