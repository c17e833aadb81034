// attempt(): the one place where a refused primitive becomes a "does not apply" answer.
#include "tir/schedule/attempt.h"

#include "support/diagnostic.h"

namespace tessera::tir {

Applicability attempt(Schedule& sch, const std::function<Applicability(Schedule&)>& steps) {
  Schedule trial = sch.copy();
  Applicability answer;
  try {
    answer = steps(trial);
  } catch (const DiagnosticError& e) {
    // A primitive checks its own preconditions and reports them as a diagnostic; to a rule
    // that tries it, that is a reason not to apply.
    return Applicability::no(e.diagnostic().code + ": " + e.diagnostic().message);
  }
  if (answer) sch = std::move(trial);
  return answer;
}

}  // namespace tessera::tir
