// x86 schedules of the kernels lowered from the graph. The anchor schedules tile the kernel of one
// op implementation (the packed dense or conv2d of topi/nn_packed.cc, ...) with the output
// channels as vector lanes and a register tile of accumulators; the op strategy
// (relay/strategy/x86/strategies.cc) names which one a kernel gets. Every kernel then gets the
// generic steps (inline elementwise stages, vectorized reductions, parallel outer loops).
// Schedules only ever transform: the result computes what the input computed, whatever the
// shapes. An anchor schedule that does not fit says why (Applicability) and is not applied.
#pragma once

#include "support/applicability.h"
#include "tir/function.h"
#include "tir/schedule/schedule.h"

namespace tessera::topi::x86 {

struct ScheduleOptions {
  int numCores = 1;            ///< parallel loops are made when this is above 1
  int vectorBytes = 64;        ///< width of a vector register (AVX-512: 64)
  int vectorRegisters = 32;    ///< vector registers (AVX-512: 32, AVX2: 16)
  int minParallelWork = 4096;  ///< loops with fewer iterations in total stay serial
};

/// The generic steps, after the kernel's anchor schedule when `anchored` (which inlined what it
/// wanted inlined): inlineElementwise (unless anchored), vectorizeReductions, vectorizeWindows,
/// reduceInConsumers,
/// parallelizeOuterLoops.
void scheduleGeneric(tir::Schedule& sch, const ScheduleOptions& options, bool anchored);

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
/// An integer reduction whose innermost loop is not whole vectors (a global pool's 7 x 7), read
/// elementwise by its one consumer, is computed inside the consumer's loops with its window as
/// one loop: a one-element accumulator LLVM keeps in a register and vectorizes.
void reduceInConsumers(tir::Schedule& sch, const ScheduleOptions& options);
/// Small windows (pools, reductions of at most 64 elements over leading axes): the innermost
/// spatial loop moves inside the reduction's loops and becomes vector lanes (padding's
/// conditions become masked loads).
void vectorizeWindows(tir::Schedule& sch, const ScheduleOptions& options);
/// Tiles the packed dense `T_dense_pack` into its output stage (after inlining the elementwise
/// stages), or into the block named `tileBlock` (without inlining anything) when one is given.
/// "Does not apply" when the kernel does not have the expected shape; run it through
/// tir::attempt so that the schedule is then left as it was.
Applicability scheduleDensePacked(tir::Schedule& sch, const ScheduleOptions& options,
                                  const std::string& tileBlock = "");
/// The Winograd conv2d (`T_winograd_input` ... `T_winograd_output`): both transforms with their
/// 4x4 / 2x2 loops unrolled, the 16 products as a batched dense (same contract).
Applicability scheduleConv2dWinograd(tir::Schedule& sch, const ScheduleOptions& options);
/// Tiles the packed conv2d `conv2d_nchw_pack` into its output stage (same contract).
Applicability scheduleConv2dPacked(tir::Schedule& sch, const ScheduleOptions& options);
/// The register tiles of the two schedules above, which the weight packing also asks for to
/// choose its block (relay/strategy/packed_weights.cc): output columns per tile of the packed
/// conv2d for `block` output channels on rows of `width` columns, and rows per tile of the packed
/// dense for `rows` rows of `block` lanes.
int64_t packedConvColumns(int64_t width, int64_t block, const ScheduleOptions& options);
int64_t packedDenseRows(int64_t rows, int64_t block, const ScheduleOptions& options);
/// The pointwise conv2d as a product over pixels, `conv2d_1x1`: tiles of channels x pixel
/// vectors (same contract).
Applicability scheduleConv2d1x1(tir::Schedule& sch, const ScheduleOptions& options);
/// The plain NCHW conv2d `conv2d_nchw` (depthwise, grouped, or channels that do not pack): one
/// output row at a time, window loops outside the row's columns (same contract).
Applicability scheduleConv2dDirect(tir::Schedule& sch, const ScheduleOptions& options);

/// The blocked conv2d `conv2d_NCHWc` (data NCHW[x]c, weight OIHW[x]i[y]o): tiles of owb output
/// pixels x one channel block (same contract).
Applicability scheduleConv2dNCHWc(tir::Schedule& sch, const ScheduleOptions& options);
/// The blocked depthwise conv2d `depthwise_conv2d_NCHWc` (weight OIHW1i[x]o): the same tiles,
/// the input padded per channel block (same contract).
Applicability scheduleDepthwiseConv2dNCHWc(tir::Schedule& sch, const ScheduleOptions& options);

/// The int8 conv2d `conv2d_nchw_int8` (topi/nn_int8.h) on AVX-512 VNNI: tiles of 16 output
/// channels x up to 24 output columns, the 16 x 4 byte products tensorized into vpdpbusd (same
/// contract; the target must have avx512vnni).
Applicability scheduleConv2dInt8(tir::Schedule& sch, const ScheduleOptions& options);
/// The pointwise int8 conv2d `conv2d_1x1_int8` as a product over pixels: tiles of up to 24 output
/// channels x 16 pixels, pixels as the vector lanes (same).
Applicability scheduleConv2d1x1Int8(tir::Schedule& sch, const ScheduleOptions& options);
/// `conv2d_pixels_int8` (a stem-like conv2d over output pixels): as the pointwise one, the
/// kernel's taps steps of the reduction (same).
Applicability scheduleConv2dInt8OverPixels(tir::Schedule& sch, const ScheduleOptions& options);
/// The int8 dense `dense_int8` of (M, K) data (N-D data reshaped to its rows, the output's
/// leading loops fused): tiles of up to 8 rows x 16 columns (same).
Applicability scheduleDenseInt8(tir::Schedule& sch, const ScheduleOptions& options);
/// The int8 conv2d `conv2d_int8_amx` (topi/nn_int8_amx.h) on AMX: units of 32 output channels x
/// 32 pixels over the whole reduction, each one AMX tensor intrinsic (same contract; the target
/// must have amx-tile and amx-int8).
Applicability scheduleConv2dInt8Amx(tir::Schedule& sch, const ScheduleOptions& options);
/// The int8 batch_matmul `batch_matmul_int8` (topi/batch_matmul_int8.h): per batch, tiles of up to
/// 8 rows x 32 columns, tensorized into vpdpbusd (same).
Applicability scheduleBatchMatmulInt8(tir::Schedule& sch, const ScheduleOptions& options);
/// The int8 depthwise conv2d `depthwise_conv2d_int8` (topi/depthwise_conv2d_int8.h): per
/// channel, whole output rows of int32 vectors, the taps unrolled (same).
Applicability scheduleDepthwiseConv2dInt8(tir::Schedule& sch, const ScheduleOptions& options);
/// Its window form `depthwise_conv2d_int8_window` on AVX-512 VNNI and VBMI: per channel, blocks of
/// 4 output rows x 16 columns, each tap group of a kernel row one vpdpbusd on a permuted input row
/// (same).
Applicability scheduleDepthwiseConv2dInt8Window(tir::Schedule& sch, const ScheduleOptions& options);

}  // namespace tessera::topi::x86
