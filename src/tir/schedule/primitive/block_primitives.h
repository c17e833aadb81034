// The block primitives as free functions over a PrimFunc (specs/tir_relax.md §3.4-§3.6, §3.9,
// §3.10): each checks its preconditions, throws a schedule error naming the primitive when one
// fails, and otherwise returns the transformed function. Blocks are named by BlockNode::id and
// loops by their loop variable; the inputs are never changed. Schedule methods
// (in the same files) resolve RVs, call these, commit the result and record the instruction.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tir/function.h"

namespace tessera::tir {

/// A transformed function plus the block a primitive created (its BlockNode::id).
struct PrimFuncWithBlock {
  PrimFunc func;
  uint64_t blockId = 0;
};

// --- compute_at.cc ---
/// Moves producer block `blockId` under `loop`, regenerating loops `ax0, ax1, ...` that cover the
/// region its consumers under `loop` read in one iteration. `index`: -1 last valid position,
/// -2 first valid position, n >= 0 that child position.
PrimFunc computeAt(const PrimFunc& f, uint64_t blockId, const VarNode* loop, bool preserveUnitLoops,
                   int index);
/// Moves consumer block `blockId` under `loop`, covering what its producers under `loop` write.
PrimFunc reverseComputeAt(const PrimFunc& f, uint64_t blockId, const VarNode* loop,
                          bool preserveUnitLoops, int index);

// --- compute_inline.cc ---
/// Replaces every load of the block's output by the value it stores; removes the block.
PrimFunc computeInline(const PrimFunc& f, uint64_t blockId);
/// Folds a consumer block into its single producer, which then stores the consumer's result.
PrimFunc reverseComputeInline(const PrimFunc& f, uint64_t blockId);

// --- cache_read_write.cc ---
/// Adds a copy block `<buf>_<scope>` of the block's `readIndex`-th read buffer; the consumers
/// (all readers when empty) read the copy.
PrimFuncWithBlock cacheRead(const PrimFunc& f, uint64_t blockId, int readIndex,
                            const std::string& scope, const std::vector<uint64_t>& consumers);
/// Makes the block write `<buf>_<scope>` and adds a block copying it back to the buffer.
PrimFuncWithBlock cacheWrite(const PrimFunc& f, uint64_t blockId, int writeIndex,
                             const std::string& scope, const std::vector<uint64_t>& consumers);
/// Changes the storage scope of the block's `bufferIndex`-th written buffer (an allocation).
PrimFunc setScope(const PrimFunc& f, uint64_t blockId, int bufferIndex, const std::string& scope);
/// Records `stride[axis] % factor == offset` in the block's `buffer_dim_align` annotation.
PrimFunc storageAlign(const PrimFunc& f, uint64_t blockId, int bufferIndex, int axis, int factor,
                      int offset);

// --- rfactor.cc ---
/// Factorises the reduction under `loop` into an rf-block over `<buf>_rf` and a write-back block.
/// Returns the rf-block.
PrimFuncWithBlock rfactor(const PrimFunc& f, const VarNode* loop, int factorAxis);

// --- blockize.cc, tensorize.cc ---
/// Wraps the subtree under `loop` in a new block `<inner>_o`. Returns the new block.
PrimFuncWithBlock blockize(const PrimFunc& f, const VarNode* loop, bool preserveUnitIters);
/// Replaces the body of block `blockId` (which must match the intrinsic's description) by the
/// intrinsic's implementation.
PrimFunc tensorize(const PrimFunc& f, uint64_t blockId, const std::string& intrinName);

// --- sample_compute_location.cc ---
/// The candidate compute locations of a block in increasing order: -2 (inline) when the block
/// can be inlined, -1 (root), then indices into `loops` (the first consumer's loops).
struct ComputeLocations {
  std::vector<int64_t> candidates;
  std::vector<Var> loops;  ///< loop variable of each index >= 0
};
ComputeLocations collectComputeLocations(const PrimFunc& f, uint64_t blockId);

}  // namespace tessera::tir
