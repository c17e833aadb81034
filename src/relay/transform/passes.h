// Factories of the graph-level passes, one per pass file (see pass_table.cc for names and levels),
// plus the plain functions behind them for callers that transform a single expression.
#pragma once

#include <functional>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "relay/transform/pass.h"
#include "runtime/ndarray.h"

namespace tessera::relay {

/// SimplifyInference (level 0): batch_norm / layer_norm expansion, dropout removal.
Pass simplifyInferencePass();
/// The SimplifyInference rewrite of one function (types it first if needed).
Function simplifyInference(const Function& fn);

/// FoldConstant (level 2): evaluates constant subexpressions with the interpreter.
Pass foldConstantPass();
/// The FoldConstant rewrite of one expression. Handed over (std::move) with no other holder of
/// its nodes, it frees each replaced constant's tensor as it goes (rewriteBottomUpOwned).
Expr foldConstant(Expr e);

/// CanonicalizeOps (level 3): nn.bias_add -> expand_dims + add.
Pass canonicalizeOpsPass();
/// The CanonicalizeOps rewrite of one function (types it first if needed).
Function canonicalizeOps(const Function& fn);

/// CanonicalizeCast (level 3): each elementwise consumer of an up-cast gets its own cast.
Pass canonicalizeCastPass();
/// The CanonicalizeCast rewrite of one function (types it first if needed).
Function canonicalizeCast(const Function& fn);

/// BackwardFoldScaleAxis (level 3): folds a per-channel multiply after conv2d/dense into weights.
Pass backwardFoldScaleAxisPass();
/// ForwardFoldScaleAxis (level 3): folds a per-channel multiply before conv2d/dense into weights.
Pass forwardFoldScaleAxisPass();
/// FoldScaleAxis (level 3): Sequential{BackwardFoldScaleAxis, ForwardFoldScaleAxis, FoldConstant}.
Pass foldScaleAxisPass();

/// DeadCodeElimination (level 1): drops unused pure `let` bindings (inline_once is not supported).
Pass deadCodeEliminationPass();
/// The DeadCodeElimination rewrite of one expression; `ignoreImpurity` treats every value as pure.
Expr eliminateDeadCode(const Expr& e, bool ignoreImpurity = false);

/// Selects calls EliminateCommonSubexpr must leave alone (TVM's fskip).
using SkipFn = std::function<bool(const Expr&)>;
/// EliminateCommonSubexpr (level 3) without a skip predicate.
Pass eliminateCommonSubexprPass();
/// EliminateCommonSubexpr (level 3) leaving the calls `skip` selects alone.
Pass eliminateCommonSubexprPass(SkipFn skip);
/// The EliminateCommonSubexpr rewrite of one expression.
Expr eliminateCommonSubexpr(const Expr& e, SkipFn skip = nullptr);

/// SimplifyExpr (level 0): reshape/transpose chains, no-op reshape/transpose/cast/pad.
Pass simplifyExprPass();
/// The SimplifyExpr rewrite of one typed expression; names each rule that fires on `trace`.
Expr simplifyExpr(const Expr& e, std::ostream* trace = nullptr);

/// `fn` with the parameters named in `params` replaced by constants and removed from its
/// parameter list; unknown names are ignored, a name shared by two parameters is an error.
Function bindParams(const Function& fn, const std::map<std::string, NDArray>& params);
/// bindParams applied to `main`; the result is type-checked.
IRModule bindParams(const IRModule& module, const std::map<std::string, NDArray>& params);
/// BindParams as a module pass (not in the pass table: it needs the values).
Pass bindParamsPass(std::map<std::string, NDArray> params);

/// @main with its calls of other global functions replaced by their bodies, alone in the result
/// (the module itself when @main calls none, or only functions partitioned for a device's code
/// generator: Composite or Compiler). A function on a call cycle (recursion: how a loop is written)
/// is kept and called, with its own other calls inlined; such a module runs on the VM
/// (driver/build_vm.h). build() runs it first, since it compiles @main alone. A function literal
/// that is the callee of exactly one call (relay.testing's lstm cells) is inlined there too.
IRModule inlineGlobalCalls(const IRModule& module);

/// FuseOps (level 0): post-dominator fusion into Primitive=1 functions; no fusion at opt level 0.
Pass fuseOpsPass();
/// The FuseOps rewrite of one function body; groups hold at most `maxDepth` ops.
Expr fuseOps(const Expr& body, int optLevel = 2, int maxDepth = 256);

/// MergeComposite (level 0) with an empty pattern table (see merge_composite.h for the table form).
Pass mergeCompositePass();

/// CombineParallelConv2D (level 4): >= minNumBranches compatible conv2d on one input -> one conv2d
/// over concatenated weights plus a strided_slice per branch (followers are not combined).
Pass combineParallelConv2dPass(int minNumBranches = 3);
/// The CombineParallelConv2D rewrite of one function (types it first if needed).
Function combineParallelConv2d(const Function& fn, int minNumBranches = 3);
/// CombineParallelDense (level 4, to_batch=True only): >= minNumBranches same-shaped nn.dense on
/// one input -> one nn.batch_matmul over stacked operands, split and squeezed per branch.
Pass combineParallelDensePass(int minNumBranches = 3);
/// The CombineParallelDense rewrite of one function (types it first if needed).
Function combineParallelDense(const Function& fn, int minNumBranches = 3);

/// Op name -> {data layout, kernel layout}; the kernel layout may be "default" (HWIO for NHWC,
/// OIHW for NCHW).
using DesiredLayouts = std::map<std::string, std::vector<std::string>>;
/// ConvertLayout (level 3): nn.conv2d to the desired layouts, propagated through elementwise,
/// broadcast and pool consumers, with layout_transform back where the original layout is needed.
Pass convertLayoutPass(DesiredLayouts desired);
/// The ConvertLayout rewrite of one function (types it first if needed).
Function convertLayout(const Function& fn, const DesiredLayouts& desired);

/// The "FTVMLegalize" hook: the rebuilt call, its rewritten arguments and their types; returns the
/// replacement, or null to keep the call.
using LegalizeFn = std::function<Expr(const CallNode&, const std::vector<Expr>& newArgs,
                                      const std::vector<Type>& argTypes)>;
/// The op attribute under which a LegalizeFn is registered.
inline constexpr const char* kLegalizeAttr = "FTVMLegalize";
/// Legalize (level 1): replaces each call whose op has an FTVMLegalize hook returning non-null.
Pass legalizePass();
/// The Legalize rewrite of one function (types it first if needed).
Function legalize(const Function& fn);

}  // namespace tessera::relay
