// VTA's TensorIR lowering passes (spec vta.md §6), one file each, and the build configuration
// that puts them into the lowering pipeline at TVM's phases (`vta.build_config`).
#pragma once

#include <string>

#include "tir/function.h"
#include "tir/transform/pass.h"
#include "vta/rt/config.h"

namespace tessera::vta {

/// InjectDMAIntrin (§6.2): `pragma_dma_copy` nests become VTALoadBuffer2D / VTAStoreBuffer2D
/// calls in their queue's `coproc_scope` (inject_dma_intrin.cc). DiagnosticError (code
/// "vta_dma") naming the problem for copies VTA cannot do.
tir::PrimFunc injectDmaIntrin(const tir::PrimFunc& func, const Config& config);

/// MergeAccStages (§6.1): SRAM stages computed element by element from one same-sized stage of
/// the same scope share its storage, so ALU operations run in place (merge_acc_stages.cc).
tir::PrimFunc mergeAccStages(const tir::PrimFunc& func);

/// AnnotateALUCoProcScope (§6.4): each `pragma_alu` nest goes into the compute queue's scope and
/// an ALU micro-op scope.
tir::PrimFunc annotateAluCoProcScope(const tir::PrimFunc& func);

/// InjectALUIntrin (§6.4): ALU micro-op scopes become micro-op loops around one ALU micro-op
/// (inject_alu_intrin.cc). DiagnosticError (code "vta_alu") for what the ALU cannot do.
tir::PrimFunc injectAluIntrin(const tir::PrimFunc& func, const Config& config);

/// LiftAttrScope(key) (§6.5): moves `key` attributes outward through loops and merges equal
/// ones over sequences (lift_attr_scope.cc).
tir::PrimFunc liftAttrScope(const tir::PrimFunc& func, const std::string& key);

/// InjectCoProcSync (§6.6): dependency tokens between the load, compute and store queues
/// (`vta.coproc_dep_push` / `vta.coproc_dep_pop`) and the final `vta.coproc_sync()`
/// (inject_coproc_sync.cc).
tir::PrimFunc injectCoProcSync(const tir::PrimFunc& func);

/// LowerDeviceStorageAccessInfo (§6.8): `tir.tvm_access_ptr` of an SRAM buffer becomes its
/// entry index (element offset / scalars per entry of the scope), and SRAM allocations, which
/// have no host address, are dropped. DiagnosticError (code "vta_lower") for an offset that is
/// not a whole entry.
tir::PrimFunc lowerDeviceStorageAccessInfo(const tir::PrimFunc& func, const Config& config);

/// FoldUopLoop (§6.9): in each GEMM micro-op scope, up to two outermost loops whose micro-op
/// addresses are affine in the loop variable become `VTAUopLoopBegin(extent, dst, src, wgt)` /
/// `VTAUopLoopEnd()` hardware loops (fold_uop_loop.cc).
tir::PrimFunc foldUopLoop(const tir::PrimFunc& func);

/// LowerVtaHostIntrin: the `vta.*` intrinsics of a lowered program become calls of the VTA
/// runtime's C functions (VTATLSCommandHandle, VTADepPush, VTADepPop, VTASynchronize,
/// VTAUopPush), and the function is marked as taking device buffers (`tessera.device_type` =
/// kDLExtDev), ready for the CPU code generator (lower_host_intrin.cc). DiagnosticError (code
/// "vta_host") for a `vta.*` intrinsic it does not know.
tir::PrimFunc lowerVtaHostIntrin(const tir::PrimFunc& func);

/// TVM's `vta.build_config()`: adds the VTA passes to `ctx`'s `tir.add_lower_pass` at their
/// phases and switches off the TIR common-subexpression pass (micro-op bodies must capture only
/// the thread index, §5.4).
void addVtaLowerPasses(tir::transform::PassContext& ctx, const Config& config);

}  // namespace tessera::vta
