// The lowering passes that turn a scheduled TensorIR PrimFunc into a flat loop program
// (specs/tir_relax.md §4.2). Each pass is one function in its own .cc file; lower.h runs them in
// the §4.1 order. Every pass takes and returns a whole PrimFunc and never changes its parameters.
#pragma once

#include <cstdint>

#include "tir/function.h"

namespace tessera::tir::transform {

// --- phase 1: blocks to flat buffers -------------------------------------------------------------

/// Replaces each block's `init` by `if (r1 == min1 && ...) init` before the body.
PrimFunc lowerInitBlock(const PrimFunc& func);
/// Moves every `alloc_buffer` to the lowest common ancestor (block or loop) of its accesses; a loop
/// gets a new nameless opaque block directly inside it to hold the allocation.
PrimFunc planAndUpdateBufferAllocationLocation(const PrimFunc& func);
/// Substitutes every block iter var by its binding and drops the iter vars (blocks become opaque).
PrimFunc convertBlocksToOpaque(const PrimFunc& func);
/// Shrinks each block allocation to the bounding box of its accesses (honouring buffer_dim_align
/// by padding strides) and rebases the indices on the box origin.
PrimFunc compactBufferAllocation(const PrimFunc& func);
/// Replaces block-level match_buffer views by accesses to their source buffers.
PrimFunc lowerMatchBuffer(const PrimFunc& func);
/// Simplifies expressions with loop bounds known; removes provably true/false conditions.
PrimFunc simplify(const PrimFunc& func);
/// Removes blocks: predicates become `if`, allocations become Allocate + DeclBuffer, extent-1
/// loops disappear, pragma annotations become attribute statements, thread-bound loops become
/// `thread_extent` attributes.
PrimFunc lowerOpaqueBlock(const PrimFunc& func);
/// Rewrites every multi-dimensional access as a 1-D access on a flat view of the same data.
PrimFunc flattenBuffer(const PrimFunc& func);
/// Turns int64 index arithmetic into int32 (or `targetBits`) where every value provably fits.
PrimFunc narrowDataType(const PrimFunc& func, int targetBits = 32);

// --- phase 2: loop transformations ---------------------------------------------------------------

/// Splits constant-bound loops whose body has an `if` that is provably true on a sub-range into a
/// main loop without the condition and boundary loops with it.
PrimFunc loopPartition(const PrimFunc& func);
/// Rewrites `vectorized` loops of constant extent as Ramp/Broadcast vector code; a loop that cannot
/// be vectorized becomes serial. With `disable`, every vectorized loop becomes serial.
PrimFunc vectorizeLoop(const PrimFunc& func, bool disable = false);
/// Computes `fixed_point_multiply`'s int64 vector form, cast(int32, (x * m + r) >> s), exactly in
/// int32 where the bounds of x prove every intermediate value fits
/// (narrow_fixed_point_multiply.cc).
PrimFunc narrowFixedPointMultiply(const PrimFunc& func);
/// InjectVirtualThread: `virtual_thread` scopes (loops bound to vthread* or cthread) become
/// explicit per-thread copies of the work and of the buffers (inject_virtual_thread.cc).
PrimFunc injectVirtualThread(const PrimFunc& func);
/// Hoists allocations out of serial loops up to the closest parallel loop or the function body.
PrimFunc storageRewrite(const PrimFunc& func);
/// Moves `if` statements whose condition does not depend on a loop out of that loop.
PrimFunc hoistIfThenElse(const PrimFunc& func);

/// The `tir.UnrollLoop` configuration (TVM's defaults).
struct UnrollOptions {
  int64_t autoMaxStep = 0;     ///< unroll when extent * body steps <= this
  int autoMaxDepth = 8;        ///< deepest nest of loops unrolled automatically
  int64_t autoMaxExtent = 0;   ///< unroll when extent <= this
  bool explicitUnroll = true;  ///< copy the body (else only mark the loop `unrolled`)
};
PrimFunc unrollLoop(const PrimFunc& func, const UnrollOptions& options = {});

// --- phase 3: cleanup ----------------------------------------------------------------------------

/// Deletes statements without effect (empty loops, self-stores, empty branches and scopes).
PrimFunc removeNoOp(const PrimFunc& func);
/// Turns a `Select` whose branches read memory into the lazy `tir.if_then_else`.
PrimFunc rewriteUnsafeSelect(const PrimFunc& func);
/// Reads a chain of lazy selects between loads at constant offsets of one index (a concatenation)
/// through one selected pointer, so the loop needs no copy per branch.
PrimFunc selectLoadSource(const PrimFunc& func);
/// Binds repeated non-trivial subexpressions of one statement to `cse_var_N` let variables.
PrimFunc commonSubexprElim(const PrimFunc& func);

}  // namespace tessera::tir::transform
