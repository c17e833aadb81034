// Internal interface between FuseOps' grouping (graph_partitioner.cc) and its outlining
// (fuse_ops_rewrite.cc); not part of the public API.
#pragma once

#include <vector>

#include "relay/expr.h"

namespace tessera::relay {

/// The fusion groups of one function body: for each graph node (post-DFS order), its group and
/// the index of the group's root node.
struct FusionGroups {
  std::vector<Expr> nodeRefs;
  std::vector<int> groupOf;
  std::vector<int> groupRoot;
};

/// Groups the op calls of `body` (no fusion at opt level 0; at most `maxDepth` ops per group).
FusionGroups partitionForFusion(const Expr& body, int optLevel, int maxDepth);

/// Rebuilds `body` with each group outlined as a Primitive function called at the group's root.
Expr outlineFusedGroups(const Expr& body, const std::vector<Expr>& nodeRefs,
                        const std::vector<int>& groupOf, const std::vector<int>& groupRoot);

}  // namespace tessera::relay
