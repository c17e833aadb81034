// scheduleKernel: the implementation that produced a kernel schedules it, found by name.
#include "relay/strategy/schedule_kernel.h"

#include "relay/strategy/op_strategy.h"
#include "relay/strategy/strategy.h"
#include "tir/schedule/attempt.h"

namespace tessera::relay::strategy {

tir::PrimFunc scheduleKernel(const tir::PrimFunc& kernel, const target::Target& target,
                             AnchorReport* report, tir::Trace* trace) {
  registerStrategies();
  tir::Schedule sch(kernel, /*seed=*/0);
  AnchorReport anchor;
  if (const AttrValue* name = kernel->attrs.find(kImplementationAttr)) {
    anchor.implementation = name->asString();
    const OpImplementation* impl = StrategyRegistry::global().find(anchor.implementation);
    anchor.answer =
        impl && impl->schedule
            ? tir::attempt(sch, [&](tir::Schedule& s) { return impl->schedule(s, target); })
            : Applicability::no("no implementation of that name has a schedule");
  } else {
    anchor.answer =
        Applicability::no("no call of the kernel has an implementation with a schedule");
  }
  const bool anchored = !anchor.implementation.empty() && anchor.answer.applies;
  if (const auto* generic = StrategyRegistry::global().genericSchedule(target))
    (*generic)(sch, target, anchored);
  if (report) *report = anchor;
  if (trace) *trace = sch.trace();
  return sch.func();
}

}  // namespace tessera::relay::strategy
