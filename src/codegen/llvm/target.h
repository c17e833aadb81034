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
/// The features of a host whose processor has `cpuFeatures` ("+a,-b,..."), as this process may
/// use them: every `amx-*` feature turned off unless `amxGranted` (the answer to the AMX
/// permission request, runtime/amx_permission.h). The host target's features are these, so the
/// int8 strategies take the VNNI or AVX2 rows where the kernel refuses AMX (or TESSERA_AMX_DENY
/// is set); an explicit `-mattr=+amx-tile,+amx-int8` still compiles AMX code, which then refuses
/// to run here.
std::string usableHostFeatures(const std::string& cpuFeatures, bool amxGranted);
/// Whether code for `target` runs in this process (same architecture and OS as the host).
bool isHostCompatible(const target::Target& target);

}  // namespace tessera::codegen
