// The table of named passes: one row per pass (summary, factory). A pass's name and opt level
// are written once, in the PassInfo its factory gives it. The CLI's `--passes A,B` and
// Sequential's `required` lists look passes up here.
#pragma once

#include <string>
#include <vector>

#include "relay/transform/pass.h"

namespace tessera::relay {

struct PassTableRow {
  const char* summary;
  Pass (*factory)();
  /// The pass's name (its PassInfo's).
  std::string name() const { return factory()->info().name; }
  /// The pass's opt level (its PassInfo's).
  int optLevel() const { return factory()->info().optLevel; }
};

/// Every registered pass, in the order the docs list them.
const std::vector<PassTableRow>& passTable();
/// A pass by name; throws DiagnosticError ("unknown_pass") listing the known names otherwise.
Pass passByName(const std::string& name);

}  // namespace tessera::relay
