// The table of target kinds.
#include "target/target_kind.h"

#include "support/check.h"

namespace tessera::target {

std::span<const TargetKindInfo> targetKinds() {
  // The keys follow TVM: a kind's strategies are looked up by key, most specific first, so a VTA
  // build falls back on the CPU implementations for ops the accelerator does not run.
  static const std::vector<TargetKindInfo> kinds = {
      {.kind = TargetKind::kLlvm,
       .name = "llvm",
       .defaultKeys = {"cpu"},
       .options = {{"mtriple", "LLVM target triple (default: the host's)"},
                   {"mcpu", "CPU name, e.g. znver4 (default: the host's)"},
                   {"mattr", "LLVM features, e.g. +avx2,+fma (default: the CPU's)"},
                   {"num-cores", "cores the schedules plan parallel loops for"},
                   {"keys", "strategy keys, comma-separated"}},
       .summary = "x86-64 (or any LLVM) CPU code"},
      {.kind = TargetKind::kVta,
       .name = "vta",
       .defaultKeys = {"vta", "cpu"},
       .options = {{"config", "vta_config.json of the hardware (default: the standard 1x16 one)"},
                   {"model", "expected model name, e.g. sim_1x16_i8w8a32_15_15_18_17"},
                   {"keys", "strategy keys, comma-separated"}},
       .summary = "the VTA accelerator (simulated)"},
      {.kind = TargetKind::kExtDev,
       .name = "ext_dev",
       .defaultKeys = {},
       .options = {{"device", "the device: vta"},
                   {"config", "vta_config.json when the device is vta"},
                   {"model", "expected model name when the device is vta"},
                   {"keys", "strategy keys, comma-separated"}},
       .summary = "TVM's external-device spelling: `ext_dev -device=vta` is VTA"},
  };
  return kinds;
}

const TargetKindInfo* findTargetKind(const std::string& name) {
  for (const TargetKindInfo& info : targetKinds())
    if (name == info.name) return &info;
  return nullptr;
}

const TargetKindInfo& kindInfo(TargetKind kind) {
  for (const TargetKindInfo& info : targetKinds())
    if (info.kind == kind) return info;
  failCheck("kindInfo", "target kind without a row in targetKinds()");
}

}  // namespace tessera::target
