// The table of named passes: one row per pass (name, summary, opt level, factory). The CLI's
// `--passes A,B` and Sequential's `required` lists look passes up here.
#pragma once

#include <string>
#include <vector>

#include "relay/transform/pass.h"

namespace tessera::relay {

struct PassTableRow {
  const char* name;
  const char* summary;
  int optLevel;
  Pass (*factory)();
};

/// Every registered pass, in the order the docs list them.
const std::vector<PassTableRow>& passTable();
/// A pass by name; throws DiagnosticError ("unknown_pass") listing the known names otherwise.
Pass passByName(const std::string& name);

}  // namespace tessera::relay
