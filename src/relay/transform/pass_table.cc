// The pass table: data, not static constructors. Add a row when adding a pass file.
#include "relay/transform/pass_table.h"

#include "relay/transform/passes.h"
#include "support/diagnostic.h"

namespace tessera::relay {

const std::vector<PassTableRow>& passTable() {
  static const std::vector<PassTableRow> table = {
      {"InferType", "infer and annotate the types of every expression", 0, inferTypePass},
  };
  return table;
}

Pass passByName(const std::string& name) {
  std::string known;
  for (const PassTableRow& row : passTable()) {
    if (name == row.name) return row.factory();
    known += (known.empty() ? "" : ", ") + std::string(row.name);
  }
  throwDiagnostic("unknown_pass", "no pass named '" + name + "'; known passes: " + known);
}

}  // namespace tessera::relay
