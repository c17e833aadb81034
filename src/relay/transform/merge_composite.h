// MergeComposite: outlines the matches of a table of named patterns into composite functions
// (TVM's relay.transform.MergeComposite), plus the lifting of composites to global functions that
// seed 000's graph-pack tool applies before printing.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "relay/pattern/partition.h"
#include "relay/transform/pass.h"

namespace tessera::relay {

/// (composite name, pattern), applied in order: earlier rows claim nodes first.
using PatternTable = std::vector<std::pair<std::string, Pattern>>;

/// Partitions `fn`'s body with each row of `table` in turn; the functions carry
/// `PartitionedFromPattern` and `Composite=<name>`.
Function mergeComposite(const Function& fn, const PatternTable& table);
/// MergeComposite (level 0) with a pattern table: every non-composite function of the module.
Pass mergeCompositePass(PatternTable table);
/// Replaces each composite function called from `main` (in post order) by a global function
/// `@<Composite>__<counter>`, as the seed's VTA tooling prints them. The module must be typed.
IRModule liftCompositeFunctions(const IRModule& module);

}  // namespace tessera::relay
