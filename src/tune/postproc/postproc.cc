// The postprocessor table and its driver; plus the two checks that are a few lines each.
#include "tune/postproc/postproc.h"

#include "support/diagnostic.h"
#include "tir/functor.h"
#include "tir/schedule/schedule_state.h"
#include "tir/transform/lower.h"

namespace tessera::tune::postproc {

Postproc disallowDynamicLoop() {
  return {.name = "DisallowDynamicLoop", .apply = [](tir::Schedule& sch) {
            std::string dynamic;
            tir::preOrderVisit(sch.func()->body, [&](const tir::Stmt& st) {
              if (const auto* f = st->as<tir::ForNode>(); f && !tir::asConstInt(f->extent))
                dynamic = f->loopVar->name;
              return dynamic.empty();
            });
            if (dynamic.empty()) return Applicability::yes();
            return Applicability::no("loop '" + dynamic + "' has a dynamic extent");
          }};
}

Postproc verifyLowering() {
  return {.name = "VerifyLowering", .apply = [](tir::Schedule& sch) {
            try {
              tir::transform::lower(sch.func());
            } catch (const DiagnosticError& e) {
              return Applicability::no("does not lower: " + e.diagnostic().message);
            }
            return Applicability::yes();
          }};
}

std::vector<Postproc> defaultPostprocs() {
  return {disallowDynamicLoop(), rewriteParallelVectorizeUnroll(), rewriteReductionBlock(),
          verifyLowering()};
}

Applicability applyPostprocs(tir::Schedule& sch, const std::vector<Postproc>& postprocs) {
  sch.impl().record({.kind = "EnterPostproc"});
  for (const Postproc& p : postprocs) {
    Applicability answer;
    try {
      answer = p.apply(sch);
    } catch (const DiagnosticError& e) {
      // A primitive the postprocessor used refused: the candidate does not fit it.
      answer = Applicability::no(e.diagnostic().message);
    }
    if (!answer) return Applicability::no(p.name + ": " + answer.reason);
  }
  return Applicability::yes();
}

}  // namespace tessera::tune::postproc
