// lower(): the TensorIR lowering pipeline in the order of specs/tir_relax.md §4.1.
//
// Contract of the result (what codegen/ consumes):
//  * no Block or BlockRealize remains; the body is built from For (serial, parallel or unrolled;
//    never vectorized), SeqStmt, IfThenElse, LetStmt, AttrStmt (`pragma_*`, `thread_extent`),
//    AssertStmt, Evaluate, BufferStore, Allocate + DeclBuffer;
//  * every buffer access has exactly one index: parameters are accessed through flat views that
//    share the parameter buffer's `data` variable (`A_1 = T.Buffer((4096,), data=A.data)`), and an
//    allocation `Allocate(data, dtype, [n])` is followed (possibly deeper) by a DeclBuffer of its
//    flat view; flat views have no strides and no elem_offset;
//  * vector code uses Ramp indices (any stride) for vector loads/stores and Broadcast for scalars
//    used as vectors; a vector load's dtype has the ramp's lanes;
//  * `tir.if_then_else` is the only lazy expression; Select evaluates both sides and only appears
//    where that is safe;
//  * a loop or let variable may be bound by several sibling statements (copies made by loop
//    partitioning and explicit unrolling share their inner loop variables), never by two nested
//    ones, so a code generator may rebind a variable when it meets its next definition;
//  * the function's parameters and buffer_map are unchanged (multi-dimensional, for the ABI).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "tir/transform/transform.h"

namespace tessera::tir::transform {

/// A pass a user adds at the end of a phase (TVM's `tir.add_lower_pass`: `[phase, pass]`).
struct UserPass {
  int phase = 0;  ///< 0: before phase 1 starts, 1: after phase 1, 2: after phase 2, 3: at the end
  std::string name;
  std::function<PrimFunc(const PrimFunc&)> pass;
};

struct LowerOptions {
  bool disableVectorize = false;  ///< `tir.disable_vectorize`: vectorized loops become serial
  bool disableLoopPartition = false;
  bool disableStorageRewrite = false;
  bool disableCse = false;  ///< `tir.disable_cse_tir`
  UnrollOptions unroll;     ///< `tir.UnrollLoop`
  std::vector<UserPass> userPasses;
  /// Called after every pass (name as in §4.1, e.g. "LowerInitBlock") with its result.
  std::function<void(const std::string& pass, const PrimFunc& result)> printAfter;
};

/// Lowers a (scheduled) PrimFunc to the flat loop program described above.
PrimFunc lower(const PrimFunc& func, const LowerOptions& options = {});

/// One step of lower(): a pass of the pipeline or a user pass.
struct LowerStep {
  std::string name;
  std::function<PrimFunc(const PrimFunc&)> run;
};
/// The steps lower() runs, in order, for `options` (which must outlive the steps): so that a
/// driver can run each step over all of a model's kernels and instrument it.
std::vector<LowerStep> lowerSteps(const LowerOptions& options);

/// The pipeline's pass names in order (for --print-after style tooling and documentation).
std::vector<std::string> lowerPassNames();

}  // namespace tessera::tir::transform
