// Code generation targets: `llvm [-mtriple=T] [-mcpu=C] [-mattr=+a,-b] [-num-cores=N]`. Options
// left out default to the host (triple, CPU name and CPU features from llvm::sys).
#pragma once

#include <string>

namespace tessera::codegen {

struct Target {
  std::string triple;    ///< e.g. "x86_64-pc-linux-gnu"
  std::string cpu;       ///< e.g. "znver4"
  std::string features;  ///< LLVM feature string, e.g. "+avx2,+fma"
  int numCores = 0;      ///< informs schedules' parallel extents; 0: unset

  /// Parses a target string. Throws DiagnosticError (code "target") for another kind than `llvm`,
  /// an unknown option or a malformed value. Accepts `-opt=v` and `--opt=v`.
  static Target parse(const std::string& text);
  /// The host: its triple, CPU and all of its features.
  static Target host();
  /// Bytes in a vector register per the features (+avx512f: 64, +avx/+avx2: 32, else 16);
  /// schedules size register tiles with it.
  int vectorBytes() const;
  /// Whether code for this target runs in this process (same architecture as the host).
  bool isHostCompatible() const;
  /// "llvm -mtriple=... -mcpu=... -mattr=... -num-cores=N" (options that are set).
  std::string str() const;
};

}  // namespace tessera::codegen
