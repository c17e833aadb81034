// Properties of blocks that primitives use as preconditions (specs/tir_relax.md §2.5): iter-var
// kinds, reduction/complete blocks, affine bindings, and the variables an expression uses.
#pragma once

#include <unordered_set>
#include <vector>

#include "tir/schedule/schedule_state.h"

namespace tessera::tir {

class Schedule;
struct BlockRV;

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
/// The number of expression nodes, counted as a tree (a shared subexpression once per use), of
/// `consumer`'s stored value once `producer` (a single store) is inlined into it; the current size
/// when either body is not a single store. Inlining over symbolic extents keeps every index's
/// floordiv/floormod, so chains of reshapes grow the value multiplicatively: schedules use this to
/// keep a producer materialized instead.
int64_t inlinedValueSize(const BlockNode* producer, const BlockNode* consumer);
/// The largest value, in expression nodes, that the default schedules and the tuner's AutoInline
/// let inlining leave in a consumer (the kernels of ResNet, MobileNet and BERT stay under 100).
constexpr int64_t kMaxInlinedValueSize = 2048;
/// Whether inlining `producer` leaves every consumer's value within kMaxInlinedValueSize.
bool inliningStaysSmall(Schedule& sch, const BlockRV& producer);

}  // namespace tessera::tir
