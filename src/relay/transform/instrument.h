// The instruments of a PassContext (timing, printing after a named step) for any named step of
// the compiler, not only relay passes: the driver's pipeline runs its lowering, scheduling, TIR
// and code-generation steps through it, so --time-passes and --print-after see every stage.
#pragma once

#include <functional>
#include <string>

#include "relay/transform/pass.h"

namespace tessera::relay {

/// Runs `body` as the step `name` under `ctx`'s instruments: its wall time goes to ctx.timings
/// (steps and passes run inside it are listed below it, one level deeper), and when `ctx` prints
/// after `name` (or after all), `print()` goes to its print stream under "// after NAME".
void runInstrumented(PassContext& ctx, const std::string& name, const std::function<void()>& body,
                     const std::function<std::string()>& print);

/// Whether `ctx` prints after the step `name`.
bool printsAfter(const PassContext& ctx, const std::string& name);

}  // namespace tessera::relay
