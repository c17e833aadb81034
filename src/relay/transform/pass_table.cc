// The pass table: data, not static constructors. Add a row when adding a pass file.
#include "relay/transform/pass_table.h"

#include "relay/transform/alter_op_layout.h"
#include "relay/transform/passes.h"
#include "support/diagnostic.h"

namespace tessera::relay {

const std::vector<PassTableRow>& passTable() {
  static const std::vector<PassTableRow> table = {
      {"infer and annotate the types of every expression", inferTypePass},
      {"expand batch_norm/layer_norm, remove dropout", simplifyInferencePass},
      {"merge reshape/transpose chains, drop no-op reshape/transpose/cast/pad", simplifyExprPass},
      {"evaluate constant subexpressions", foldConstantPass},
      {"fold a channel scale after conv2d/dense into the weights", backwardFoldScaleAxisPass},
      {"fold a channel scale before conv2d/dense into the weights", forwardFoldScaleAxisPass},
      {"backward and forward scale folding, then FoldConstant", foldScaleAxisPass},
      {"remove unused pure let bindings", deadCodeEliminationPass},
      {"merge calls of the same op on the same arguments", eliminateCommonSubexprPass},
      {"give each elementwise consumer of an up-cast its own cast", canonicalizeCastPass},
      {"rewrite nn.bias_add into expand_dims + add", canonicalizeOpsPass},
      {"fuse op calls into Primitive functions by post-dominator analysis", fuseOpsPass},
      {"outline pattern-table matches into composite functions", mergeCompositePass},
      {"merge parallel conv2d on one input into one conv2d + slices",
       [] { return combineParallelConv2dPass(); }},
      {"merge parallel same-shaped dense on one input into batch_matmul",
       [] { return combineParallelDensePass(); }},
      {"convert nn.conv2d to NHWC and propagate the layout to its consumers",
       [] { return convertLayoutPass({{"nn.conv2d", {"NHWC", "default"}}}); }},
      {"let per-op FTVMLegalize hooks rewrite calls", legalizePass},
      {"let the target's FTVMAlterOpLayout hooks choose kernel layouts", alterOpLayoutPass},
  };
  return table;
}

Pass passByName(const std::string& name) {
  std::string known;
  for (const PassTableRow& row : passTable()) {
    Pass pass = row.factory();
    if (name == pass->info().name) return pass;
    known += (known.empty() ? "" : ", ") + pass->info().name;
  }
  throwDiagnostic("unknown_pass", "no pass named '" + name + "'; known passes: " + known);
}

}  // namespace tessera::relay
