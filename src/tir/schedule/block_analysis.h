// Properties of blocks that primitives use as preconditions (specs/tir_relax.md §2.5): iter-var
// kinds, reduction/complete blocks, affine bindings, and the variables an expression uses.
#pragma once

#include <unordered_set>
#include <vector>

#include "tir/schedule/schedule_state.h"

namespace tessera::tir {

/// The variables `e` mentions.
std::unordered_set<const VarNode*> varsOf(const PrimExpr& e);
/// Whether any binding of `realize` for an iter var of `type` mentions `v`.
bool bindsVarAs(const BlockRealizeNode* realize, const VarNode* v, IterVarType type);
/// Iter vars are only spatial and reduce.
bool hasOnlySpatialAndReduce(const BlockNode* block);
/// Every binding is a quasi-affine expression of loop variables: sums of constants times
/// variables, floordiv/floormod by positive constants.
bool hasAffineBindings(const BlockRealizeNode* realize);
/// No init, all iter vars spatial, and the block does not read a buffer it writes.
bool isCompleteBlock(const BlockNode* block);
/// Has init, only S/R iter vars, and no reduce iter var indexes a written region.
bool isReductionBlock(const BlockNode* block);
/// The realizes of every block under `root` that is not nested in another block below `root`.
std::vector<const BlockRealizeNode*> realizesUnder(const Stmt& root);
/// Whether `block` reads (resp. writes) `buffer`.
bool readsBuffer(const BlockNode* block, const BufferNode* buffer);
bool writesBuffer(const BlockNode* block, const BufferNode* buffer);

}  // namespace tessera::tir
