// Read top to bottom, this file is the graph-level half of the compiler. The order follows TVM
// 0.16's relay.build (src/relay/backend/build_module.cc, spec relay.md §4.1), minus passes Tessera
// does not need yet; each step is looked up in the pass table so --print-after and --time-passes
// see its name.
#include "driver/pipeline.h"

#include "relay/transform/pass_table.h"
#include "relay/transform/passes.h"

namespace tessera::driver {

const std::vector<std::string>& optimizationPipelineNames() {
  static const std::vector<std::string> names = {
      "Legalize",                // target hooks (FTVMLegalize) rewrite ops first (level 1)
      "SimplifyInference",       // batch_norm -> multiply/add, dropout removed (level 0)
      "EliminateCommonSubexpr",  // before folding, so duplicated subgraphs fold once (level 3)
      "CombineParallelConv2D",   // sibling convs on one input become one (level 4: off at 3)
      "CombineParallelDense",    // sibling dense calls become one batch_matmul (level 4)
      "FoldConstant",            // evaluate constant subgraphs with the interpreter (level 2)
      "FoldScaleAxis",           // push per-channel scales into conv/dense weights (level 3)
      "SimplifyExpr",            // reshape/transpose chains, no-op casts and pads (level 0)
      "CanonicalizeCast",        // one cast per elementwise consumer, so fusion is not blocked (3)
      "CanonicalizeOps",         // bias_add -> expand_dims + add (level 3)
      "FoldConstant",            // fold what the canonicalisations exposed (level 2)
      "FuseOps",                 // group ops into Primitive functions (level 0; off at context 0)
  };
  return names;
}

relay::Pass optimizationPipeline() {
  std::vector<relay::Pass> passes;
  for (const std::string& name : optimizationPipelineNames())
    passes.push_back(relay::passByName(name));
  return relay::sequential(std::move(passes), "OptimizationPipeline");
}

relay::IRModule optimize(const relay::IRModule& module, relay::PassContext& ctx,
                         const std::map<std::string, NDArray>& params) {
  relay::IRModule m = module;
  if (!params.empty()) m = (*relay::bindParamsPass(params))(m, ctx);
  return (*optimizationPipeline())(m, ctx);
}

}  // namespace tessera::driver
