#include "lower/relay/schedule_provider.h"

#include "lower/relay/kernel_set.h"
#include "tir/schedule/attempt.h"
#include "tir/structural_equal.h"

namespace tessera::lower {

uint64_t workloadKey(const tir::PrimFunc& kernel) {
  // The kernel's name is where it sits in one model, not what it computes.
  auto anonymous = std::make_shared<tir::PrimFuncNode>(*kernel);
  anonymous->name = "main";
  anonymous->attrs.erase("global_symbol");
  return tir::structuralHash(tir::PrimFunc(anonymous));
}

namespace {

// The graph calls the kernel with buffers of these shapes and types, in this order.
bool sameSignature(const tir::PrimFunc& a, const tir::PrimFunc& b) {
  if (a->params.size() != b->params.size()) return false;
  for (size_t i = 0; i < a->params.size(); ++i) {
    const tir::Buffer x = a->bufferOf(a->params[i]);
    const tir::Buffer y = b->bufferOf(b->params[i]);
    if (!x || !y) {
      if (x || y) return false;
      continue;
    }
    if (x->dtype != y->dtype || x->shape.size() != y->shape.size()) return false;
    for (size_t d = 0; d < x->shape.size(); ++d)
      if (!tir::structuralEqual(x->shape[d], y->shape[d], /*mapFreeVars=*/true)) return false;
  }
  return true;
}

}  // namespace

TracedSchedule applyTunedTrace(const tir::PrimFunc& kernel, const tir::Trace& trace) {
  tir::Schedule sch(kernel, /*seed=*/0);
  const Applicability answer = tir::attempt(sch, [&](tir::Schedule& s) {
    tir::applyTrace(s, trace);
    if (!sameSignature(kernel, s.func()))
      return Applicability::no("the scheduled function has other parameters");
    return Applicability::yes();
  });
  if (!answer.applies) return {std::nullopt, answer};
  return {withKernelName(sch.func(), kernel->name), answer};
}

}  // namespace tessera::lower
