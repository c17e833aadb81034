// Postprocessors (specs/tir_relax.md §6.4): run on a candidate after its trace replayed, each
// recorded in the trace after an EnterPostproc marker (so a database record replays to the same
// program), and each able to reject the candidate with a reason the search logs. Defaults for
// llvm, in order: DisallowDynamicLoop, RewriteParallelVectorizeUnroll, RewriteReductionBlock,
// then Tessera's VerifyLowering (the candidate must get through the TIR lowering passes; TVM
// finds that out in its builder, at the cost of a trial).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "support/applicability.h"
#include "tir/schedule/schedule.h"

namespace tessera::tune::postproc {

struct Postproc {
  std::string name;  ///< TVM's class name
  std::function<Applicability(tir::Schedule& sch)> apply;
};

/// Rejects a function with a loop of non-constant extent.
Postproc disallowDynamicLoop();
/// Turns the root's meta_schedule.parallel / vectorize / unroll_explicit annotations into fused
/// parallel loops, vectorized innermost loops and unroll pragmas.
Postproc rewriteParallelVectorizeUnroll();
/// decompose_reduction of every reduction block at its outermost non-spatial loop.
Postproc rewriteReductionBlock();
/// Rejects a candidate that the TIR lowering passes refuse.
Postproc verifyLowering();

/// The default postprocessors for llvm, in order.
std::vector<Postproc> defaultPostprocs();

/// Records EnterPostproc and runs `postprocs` in order; the first refusal is the answer
/// ("RewriteParallelVectorizeUnroll: ..."), and `sch` is then in an unspecified state.
Applicability applyPostprocs(tir::Schedule& sch, const std::vector<Postproc>& postprocs);

}  // namespace tessera::tune::postproc
