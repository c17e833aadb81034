// AlterOpLayout (TVM's alter_op_layout.cc): a target hook chooses, per call, the layouts its
// kernels want (x86: NCHW16c data and OIHW16i16o weights for conv2d), and the pass rewrites the
// graph to them, carrying the new layouts through the layout-agnostic consumers in between
// (relay/transform/layout_rewriter.h) so that a chain of altered convolutions is transformed once
// on entry and once on exit. Weights become layout_transform(constant), which FoldConstant folds.
//
// The hook is the op attribute "FTVMAlterOpLayout", one function per target key (TVM registers a
// generic function there and overrides it per target): the pass asks the hook of the first of
// the context target's keys that has one. Without a target in the PassContext the pass does
// nothing (a module optimised for no particular target keeps its layouts).
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "relay/op_registry.h"
#include "relay/transform/pass.h"
#include "target/target.h"

namespace tessera::relay {

/// What a hook asks of one call: its new attributes, the layout each argument must be in and the
/// layout the result comes out in, next to the layouts they have in the original graph.
struct LayoutAlteration {
  Attrs attrs;
  std::vector<std::string> argLayouts;    ///< per argument: the layout the altered call takes
  std::vector<std::string> argOriginals;  ///< per argument: its layout in the original graph
  std::string outLayout;                  ///< the layout the altered call produces
  std::string outOriginal;                ///< the result's layout in the original graph
};

/// A target's rule for one op: the alteration of a typed call (of the original graph), or
/// nullopt to leave it alone. `heldLayouts` has, per argument, the layout its rewritten value is
/// already held in ("" when it is in its original layout): a rule may prefer to keep a chain in
/// the layout its producers chose (TVM's InferCorrectLayout gets the same information).
/// `consumerLayout` looks the other way: the layout in which a consumer of the call's result
/// (reached through the layout-agnostic ops the rewriter carries layouts through) takes it when
/// that consumer is altered on its own, with its inputs in their original layouts ("" when no
/// consumer asks). A rule may produce that layout to save the transform on the way there.
using AlterOpLayoutFn = std::function<std::optional<LayoutAlteration>(
    const CallNode& call, const std::vector<std::string>& heldLayouts,
    const std::string& consumerLayout, const target::Target& target)>;
/// Target key -> rule.
using AlterOpLayoutRules = std::map<std::string, AlterOpLayoutFn>;
inline constexpr OpAttrMap<AlterOpLayoutRules> kAlterOpLayoutMap{"FTVMAlterOpLayout"};

/// Adds (or replaces) the rule of `op` for target key `targetKey`.
void registerAlterOpLayout(const std::string& op, const std::string& targetKey, AlterOpLayoutFn fn);

/// AlterOpLayout (level 3) for the PassContext's target; identity when the context has none.
Pass alterOpLayoutPass();
/// The AlterOpLayout rewrite of one function for `target` (types it first if needed).
Function alterOpLayout(const Function& fn, const target::Target& target);

}  // namespace tessera::relay
