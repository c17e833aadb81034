// Partitioning: outlining each match of a pattern into a function called in its place (TVM's
// pattern.partition, which MergeComposite builds on).
#pragma once

#include <functional>

#include "ir/attr_value.h"
#include "relay/pattern/matcher.h"

namespace tessera::relay {

/// Decides whether a matched subgraph (the outlined function's body) may be partitioned.
using PartitionCheck = std::function<bool(const Expr& matchedRoot)>;

/// Replaces each non-overlapping match of `pattern` in `e` (searched from the outputs towards
/// the inputs, not inside nested functions) by a call of a new function. The function's
/// parameters are the expressions the pattern's leaves matched, in the pattern's post order,
/// named `FunctionVar_<match>_<i>` (constants matched by isConstant/isExpr stay inside); its
/// attributes are `PartitionedFromPattern` (the matched ops in post order, each followed by `_`)
/// then `attrs`. A match is skipped when a node inside it other than its root is used outside it.
Expr partition(const Pattern& pattern, const Expr& e, const DictAttrs& attrs = {},
               const PartitionCheck& check = nullptr);

}  // namespace tessera::relay
