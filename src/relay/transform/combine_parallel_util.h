// The driver shared by CombineParallelConv2D and CombineParallelDense (TVM's ParallelOpCombiner):
// group the calls of one op that read the same data, and combine one group per round.
#pragma once

#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "relay/expr.h"
#include "relay/visit.h"

namespace tessera::relay {

/// Whether a call can take part in a group at all (e.g. conv2d with groups == 1).
using CombineSupportedFn = std::function<bool(const CallNode&)>;
/// Whether two calls of a group can be combined (checked against the group's first branch).
using CombineCompatibleFn = std::function<bool(const CallNode&, const CallNode&)>;
/// Rewrites `body` so that the group's calls are computed by one combined op.
using CombineGroupFn =
    std::function<Expr(const Expr& body, const std::vector<const CallNode*>& group)>;

/// Applies `combine` to groups of at least `minNumBranches` (and at least 2) compatible `opName`
/// calls sharing argument 0, one group per round, until none is left; types `fn` first if needed.
Function combineParallelOps(const Function& fn, const std::string& opName, int minNumBranches,
                            const CombineSupportedFn& supported,
                            const CombineCompatibleFn& compatible, const CombineGroupFn& combine);

}  // namespace tessera::relay
