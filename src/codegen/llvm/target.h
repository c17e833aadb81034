// The host's side of a target: what an llvm target string leaves out (triple, CPU, features) is
// the host's, which only LLVM can tell. Kinds and parsing live in target/target.h.
#pragma once

#include "target/target.h"

namespace tessera::codegen {

/// `llvm` for the host: its triple, CPU and all of its features.
target::Target hostTarget();
/// `target` with the llvm options it leaves out filled in: the host's triple; the host's CPU and
/// features when compiling for the host's architecture, "generic" otherwise. DiagnosticError
/// (code "target") for a kind LLVM does not generate code for.
target::Target withHostDefaults(const target::Target& target);
/// Whether code for `target` runs in this process (same architecture and OS as the host).
bool isHostCompatible(const target::Target& target);

}  // namespace tessera::codegen
