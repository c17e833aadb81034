// Target kinds: what a target string may start with, the options each kind accepts and the
// strategy keys it answers to. One table, so a new kind is one row.
#pragma once

#include <span>
#include <string>
#include <vector>

namespace tessera::target {

enum class TargetKind : uint8_t {
  kLlvm,    ///< CPU code through LLVM (`llvm -mcpu=znver4`)
  kVta,     ///< the VTA accelerator (`vta -config=vta_config.json`)
  kExtDev,  ///< TVM's external device (`ext_dev -device=vta`): VTA when device is vta
};

/// One option a kind accepts: `-name=value`.
struct TargetOption {
  const char* name;
  const char* summary;
};

/// The description of one kind.
struct TargetKindInfo {
  TargetKind kind;
  const char* name;                      ///< as written in target strings
  std::vector<std::string> defaultKeys;  ///< strategy keys, most specific first
  std::vector<TargetOption> options;
  const char* summary;
};

/// Every kind, in the order `tessera --help` lists them.
std::span<const TargetKindInfo> targetKinds();
/// The kind named `name`, or nullptr.
const TargetKindInfo* findTargetKind(const std::string& name);
/// The row of `kind` (every enumerator has one).
const TargetKindInfo& kindInfo(TargetKind kind);

}  // namespace tessera::target
