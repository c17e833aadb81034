// The pass-context flags that compile, run, tir, quantize and eval share, spelled as tvmc spells
// them: --opt-level, --pass-config KEY=VALUE, --disabled-pass NAME[,NAME], and the instruments
// --print-after NAME|all and --time-passes.
#pragma once

#include <string>

#include "cli.h"
#include "relay/transform/pass.h"

/// The flags' help, a literal so that each command's usage text can include it.
#define TESSERA_PASS_CONTEXT_USAGE                                                              \
  "  --opt-level N          the pass context's opt level (default 3)\n"                         \
  "  --pass-config KEY=VALUE  a pass context config value (repeatable), e.g.\n"                 \
  "                         tir.disable_vectorize=true, tir.UnrollLoop='{\"auto_max_step\": "   \
  "16}',\n"                                                                                     \
  "                         tir.add_lower_pass='[[3, \"Simplify\"]]'; `tessera passes` lists\n" \
  "                         the keys\n"                                                         \
  "  --disabled-pass NAME[,NAME]  never run these graph or TIR passes\n"

/// The instruments' help.
#define TESSERA_PASS_INSTRUMENTS_USAGE                                                 \
  "  --print-after NAME     print the program to stderr after the step or pass NAME\n" \
  "                         (repeatable; `all` for every one)\n"                       \
  "  --time-passes          report the time of every step and pass on stderr\n"

namespace tessera::cli {

/// What parsePassContext read.
struct PassContextFlags {
  relay::PassContext ctx;
  /// Whether --opt-level, --pass-config or --disabled-pass was given (a compiled directory
  /// refuses them).
  bool given = false;
};

/// Reads the flags into a context (opt level 3 unless --opt-level says otherwise); with
/// `instruments`, also --print-after and --time-passes. Malformed flags are UsageErrors; an
/// unknown config key, a bad value, or an unknown pass or step name is a DiagnosticError (code
/// "pass_config") naming it.
PassContextFlags parsePassContext(Args& args, bool instruments);

/// The graph optimization level of `--opt-level N` (0 to 4), `fallback` when absent.
int parseOptLevel(Args& args, int fallback = 3);

/// The timings of a context run with --time-passes, one line per step or pass, nested ones
/// indented, to stderr.
void printPassTimings(const relay::PassContext& ctx);

}  // namespace tessera::cli
