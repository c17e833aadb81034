// A compilation target: its kind and options, parsed from TVM-style strings such as
// `llvm -mcpu=znver4 -num-cores=2`, `vta -config=vta_config.json` or `ext_dev -device=vta`.
// Options a string leaves out stay empty here; codegen/llvm fills in the host's (withHostDefaults).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "target/target_kind.h"
#include "vta/rt/config.h"

namespace tessera::target {

struct Target {
  TargetKind kind = TargetKind::kLlvm;
  /// Strategy keys, most specific first (llvm: cpu; vta: vta, cpu).
  std::vector<std::string> keys;

  // --- llvm ---
  std::string triple;    ///< e.g. "x86_64-pc-linux-gnu"; empty: the host's
  std::string cpu;       ///< e.g. "znver4"; empty: the host's
  std::string features;  ///< LLVM feature string, e.g. "+avx2,+fma"; empty: the CPU's
  int numCores = 0;      ///< informs schedules' parallel extents; 0: unset

  // --- vta, and ext_dev -device=vta ---
  std::string device;      ///< ext_dev's device ("vta"); "vta" for kind vta too
  std::string configPath;  ///< the -config file, empty for the standard configuration
  /// The hardware configuration (VTA only): loaded from configPath and validated when parsed.
  std::shared_ptr<const vta::Config> vtaConfig;

  /// Parses a target string. DiagnosticError (code "target") for an unknown kind or option, a
  /// malformed value, a VTA config that does not load, or a -model that does not match it.
  /// Accepts `-key=value` and `--key=value`.
  static Target parse(const std::string& text);
  /// `llvm` with every option left to the host.
  static Target llvm();

  /// Whether kernels for this target run on the VTA accelerator.
  bool isVta() const { return device == "vta"; }
  /// The kind's name as written in target strings.
  std::string kindName() const;
  /// Bytes in a vector register per the features (+avx512f: 64, +avx/+avx2: 32, else 16);
  /// schedules size register tiles with it.
  int vectorBytes() const;
  /// Vector registers per the features (+avx512f: 32, else 16); register tiles that fit in
  /// AVX-512's 32 spill with AVX2's 16.
  int vectorRegisters() const;
  /// Whether the feature list enables `feature` (without its sign: "avx512vnni").
  bool hasFeature(const std::string& feature) const;
  /// The canonical string: the kind, then the options that are set, in a fixed order; parsing it
  /// gives an equal target.
  std::string str() const;

  bool operator==(const Target& other) const { return str() == other.str(); }
};

}  // namespace tessera::target
