// Default x86 schedules: what `build()` applies to every kernel lowered from the graph before
// lowering it to loops. A kernel is recognised by its anchor block (the packed dense or conv2d of
// topi/nn_packed.cc) and tiled with the output channels as vector lanes and a register tile of
// accumulators; every other kernel gets the generic schedule (inline elementwise stages, run the
// outer loops in parallel). Schedules only ever transform: the result computes what the input
// computed, whatever the shapes (a tiling that does not fit falls back to the generic schedule).
#pragma once

#include "tir/function.h"
#include "tir/schedule/schedule.h"

namespace tessera::topi::x86 {

struct ScheduleOptions {
  int numCores = 1;            ///< parallel loops are made when this is above 1
  int vectorBytes = 64;        ///< width of a vector register (AVX-512: 64)
  int minParallelWork = 4096;  ///< loops with fewer iterations in total stay serial
};

/// The default schedule of a kernel (a PrimFunc from relay::strategy::lowerPrimitive).
tir::PrimFunc scheduleDefault(const tir::PrimFunc& func, const ScheduleOptions& options);

/// The parts, applied to a schedule in progress (exposed for tests and tuning).
/// Inlines every stage that is neither an output, a reduction nor `keep`-named into its
/// consumers; stages that cannot be inlined stay.
void inlineElementwise(tir::Schedule& sch, const std::vector<std::string>& keep);
/// Fuses the leading spatial loops of every root-level block and makes them parallel when the
/// block has enough work.
void parallelizeOuterLoops(tir::Schedule& sch, const ScheduleOptions& options);
/// Splits the innermost reduction loop of every unscheduled root-level block into vectors and
/// rfactors the lanes (partial results per lane, a vectorized loop), when it is whole vectors.
void vectorizeReductions(tir::Schedule& sch, const ScheduleOptions& options);
/// Tiles the packed dense `T_dense_pack` into its output stage (after inlining the elementwise
/// stages), or into the block named `tileBlock` (without inlining anything) when one is given.
/// DiagnosticError when the kernel does not have the expected shape (the schedule is then left
/// as it was).
void scheduleDensePacked(tir::Schedule& sch, const ScheduleOptions& options,
                         const std::string& tileBlock = "");
/// The Winograd conv2d (`T_winograd_input` ... `T_winograd_output`): both transforms with their
/// 4x4 / 2x2 loops unrolled, the 16 products as a batched dense (same contract).
void scheduleConv2dWinograd(tir::Schedule& sch, const ScheduleOptions& options);
/// Tiles the packed conv2d `conv2d_nchw_pack` into its output stage (same contract).
void scheduleConv2dPacked(tir::Schedule& sch, const ScheduleOptions& options);
/// The pointwise conv2d as a product over pixels, `conv2d_1x1`: tiles of channels x pixel
/// vectors (same contract).
void scheduleConv2d1x1(tir::Schedule& sch, const ScheduleOptions& options);
/// The plain NCHW conv2d `conv2d_nchw` (depthwise, grouped, or channels that do not pack): one
/// output row at a time, window loops outside the row's columns (same contract).
void scheduleConv2dDirect(tir::Schedule& sch, const ScheduleOptions& options);

}  // namespace tessera::topi::x86
