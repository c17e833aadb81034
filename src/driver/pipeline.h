// The whole graph-level compiler in order: the optimization pipeline `relay.build` runs before
// lowering.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "relay/module.h"
#include "relay/transform/pass.h"
#include "runtime/ndarray.h"

namespace tessera::driver {

/// The names of the passes of the default pipeline, in order (each gated by its opt level).
const std::vector<std::string>& optimizationPipelineNames();

/// relay.build's graph optimization as one Sequential: SimplifyInference, EliminateCommonSubexpr,
/// FoldConstant, FoldScaleAxis, SimplifyExpr, CanonicalizeCast, CanonicalizeOps, FoldConstant,
/// FuseOps. Which passes run depends on the context's opt level (relay.build uses 3 in the seeds).
relay::Pass optimizationPipeline();

/// Binds `params` into @main (BindParams), then runs the pipeline under `ctx`.
relay::IRModule optimize(const relay::IRModule& module, relay::PassContext& ctx,
                         const std::map<std::string, NDArray>& params = {});

}  // namespace tessera::driver
