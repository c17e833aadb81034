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

#include <string>
#include <vector>

#include "tir/transform/pass.h"
#include "tir/transform/transform.h"

namespace tessera::tir::transform {

/// Every row of the lowering pipeline in order, each a PrimFunc pass with its PassInfo (its name
/// is written only there), whatever a context says.
const std::vector<Pass>& lowerPipelinePasses();

/// The passes lower() runs under `ctx`, in order: the rows its config leaves on
/// (`tir.disable_loop_partition`, `tir.disable_storage_rewrite`, `tir.disable_cse_tir`), and the
/// passes of `tir.add_lower_pass` at the end of their phase (0: before phase 1). The rows read
/// the rest of the config when they run (`tir.disable_vectorize`, `tir.UnrollLoop`).
/// DiagnosticError (code "pass_config") when `ctx` disables a pass the contract above needs, or
/// `tir.add_lower_pass` names an unknown pass.
std::vector<Pass> lowerPasses(const PassContext& ctx);

/// Lowers every (scheduled) function of `module` to the flat loop program described above: each
/// pass of lowerPasses(ctx) that ctx enables runs over all of them, instrumented by ctx
/// (--print-after NAME, --time-passes).
TirModule lower(TirModule module, PassContext& ctx);
/// Lowers one function under `ctx` (the current context by default).
PrimFunc lower(const PrimFunc& func, PassContext& ctx = PassContext::current());

/// The pipeline's pass names in order (for --print-after style tooling and documentation).
std::vector<std::string> lowerPassNames();

}  // namespace tessera::tir::transform
