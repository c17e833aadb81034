// The pass table: data, not static constructors. Add a row when adding a pass file.
#include "relay/transform/pass_table.h"

#include "relay/transform/alter_op_layout.h"
#include "relay/transform/passes.h"
#include "support/diagnostic.h"

namespace tessera::relay {

const std::vector<PassTableRow>& passTable() {
  static const std::vector<PassTableRow> table = {
      {"InferType", "infer and annotate the types of every expression", 0, inferTypePass},
      {"SimplifyInference", "expand batch_norm/layer_norm, remove dropout", 0,
       simplifyInferencePass},
      {"SimplifyExpr", "merge reshape/transpose chains, drop no-op reshape/transpose/cast/pad", 0,
       simplifyExprPass},
      {"FoldConstant", "evaluate constant subexpressions", 2, foldConstantPass},
      {"BackwardFoldScaleAxis", "fold a channel scale after conv2d/dense into the weights", 3,
       backwardFoldScaleAxisPass},
      {"ForwardFoldScaleAxis", "fold a channel scale before conv2d/dense into the weights", 3,
       forwardFoldScaleAxisPass},
      {"FoldScaleAxis", "backward and forward scale folding, then FoldConstant", 3,
       foldScaleAxisPass},
      {"DeadCodeElimination", "remove unused pure let bindings", 1, deadCodeEliminationPass},
      {"EliminateCommonSubexpr", "merge calls of the same op on the same arguments", 3,
       eliminateCommonSubexprPass},
      {"CanonicalizeCast", "give each elementwise consumer of an up-cast its own cast", 3,
       canonicalizeCastPass},
      {"CanonicalizeOps", "rewrite nn.bias_add into expand_dims + add", 3, canonicalizeOpsPass},
      {"FuseOps", "fuse op calls into Primitive functions by post-dominator analysis", 0,
       fuseOpsPass},
      {"MergeComposite", "outline pattern-table matches into composite functions", 0,
       mergeCompositePass},
      {"CombineParallelConv2D", "merge parallel conv2d on one input into one conv2d + slices", 4,
       [] { return combineParallelConv2dPass(); }},
      {"CombineParallelDense", "merge parallel same-shaped dense on one input into batch_matmul", 4,
       [] { return combineParallelDensePass(); }},
      {"ConvertLayout", "convert nn.conv2d to NHWC and propagate the layout to its consumers", 3,
       [] { return convertLayoutPass({{"nn.conv2d", {"NHWC", "default"}}}); }},
      {"Legalize", "let per-op FTVMLegalize hooks rewrite calls", 1, legalizePass},
      {"AlterOpLayout", "let the target's FTVMAlterOpLayout hooks choose kernel layouts", 3,
       alterOpLayoutPass},
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
