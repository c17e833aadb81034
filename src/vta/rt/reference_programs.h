// The reference VTA workloads of spec §7 written directly against the runtime API, as the lowered
// TVM programs call it: the seed-004 convolution, the two matrix-multiply tutorials and the
// instruction unit tests. Each records its program on a command queue and synchronizes; tensors
// are device buffers in the packed layouts of spec §8.1. All are parameterised by the queue's
// configuration, so the same programs run under non-default BATCH/BLOCK/width settings.
#pragma once

#include <cstdint>

#include "vta/rt/runtime.h"

namespace tessera::vta::reference {

/// Shape and tiling of the packed conv2d of spec §7.1 (stride 1, square kernel).
struct Conv2dWorkload {
  int batch = 1;          ///< N (a multiple of BATCH)
  int inChannels = 256;   ///< C (a multiple of BLOCK_IN)
  int outChannels = 256;  ///< O (a multiple of BLOCK_OUT · ocBlocks · threads)
  int height = 14;        ///< H (a multiple of hBlock)
  int width = 14;         ///< W
  int kernel = 3;         ///< kh = kw
  int pad = 1;            ///< zero padding on every side
  int hBlock = 7;         ///< output rows per tile
  int ocBlocks = 8;       ///< output-channel blocks per thread tile
  int threads = 2;        ///< virtual threads (each owns ocBlocks blocks of every tile)
  int shift = 8;          ///< right shift after the convolution
  int clipMax = 127;      ///< clip upper bound (lower bound 0)

  /// The seed-004 workload (ResNet-18 layer 9) for `cfg`: oc_block = 128 / BLOCK_OUT, shift
  /// INP_WIDTH, clip (1 << (INP_WIDTH - 1)) - 1, batch BATCH.
  static Conv2dWorkload seed004(const Config& cfg);
  /// Output rows / columns (stride 1).
  int outHeight() const { return height + 2 * pad - kernel + 1; }
  int outWidth() const { return width + 2 * pad - kernel + 1; }
};

/// Bytes of the packed data (N/B, C/BI, H, W, B, BI), kernel (O/BO, C/BI, k, k, BO, BI) and
/// output (N/B, O/BO, H', W', B, BO) tensors of `w` under `cfg`.
uint64_t conv2dDataBytes(const Config& cfg, const Conv2dWorkload& w);
uint64_t conv2dKernelBytes(const Config& cfg, const Conv2dWorkload& w);
uint64_t conv2dOutputBytes(const Config& cfg, const Conv2dWorkload& w);

/// The seed-004 lowered program (the last vta.lower listing of the seed), generalised to `w`:
/// per row tile, reset GEMMs, per input-channel block a padded input load, a weight load and a
/// GEMM per thread, then SHR/MAX/MIN on the ALU and single-entry stores.
void conv2d(CommandQueue& q, const Conv2dWorkload& w, DeviceBuffer data, DeviceBuffer kernel,
            DeviceBuffer res);

/// The matrix-multiply tutorial (spec §7.2): A (1, 16, B, BI) · B (16, 16, BO, BI)ᵀ → C
/// (1, 16, B, BO), int8 result by truncation. 56 instructions with the default configuration.
void matmulTutorial(CommandQueue& q, DeviceBuffer a, DeviceBuffer b, DeviceBuffer c);

/// The blocked matrix multiply (spec §7.3): (BATCH × 1024) · (1024 × 1024) in 256-wide blocks,
/// then >> INP_WIDTH and clip to [0, 2^(INP_WIDTH-1) - 1].
void blockedMatmul(CommandQueue& q, DeviceBuffer data, DeviceBuffer weight, DeviceBuffer res);

// ---- the instruction unit tests of spec §7.4 (acc-scope tensors are int32 in DRAM) ----

/// save_load_out: x (6, 6, B, BO) int32 loaded to ACC and stored narrowed to int8.
void saveLoadOut(CommandQueue& q, DeviceBuffer x, DeviceBuffer y);
/// padded_load: x (3, 5, B, BO) int32 loaded with zero padding (rows before/after, columns
/// before/after) and stored as int8 of shape (3 + yBefore + yAfter, 5 + xBefore + xAfter, B, BO).
void paddedLoad(CommandQueue& q, DeviceBuffer x, DeviceBuffer y, int yBefore, int xBefore,
                int yAfter, int xAfter);
/// gemm: x (4, 1, B, BI) · w (4, 1, BO, BI) → y (4, 4, B, BO), >> 8, clip [0, 127]; with
/// `smt` the batch axis is split over two virtual threads (weights are loaded by both).
void gemm(CommandQueue& q, DeviceBuffer x, DeviceBuffer w, DeviceBuffer y, bool smt);
/// alu: a (8, 8, B, BO) int32 op (imm | b) → int8. Left shifts are SHR with a negative imm.
void aluImm(CommandQueue& q, AluOpcode op, int32_t imm, DeviceBuffer a, DeviceBuffer res);
void aluTensor(CommandQueue& q, AluOpcode op, DeviceBuffer a, DeviceBuffer b, DeviceBuffer res);
/// relu: a (8, 10, B, BO) int32, MAX 0 then MIN 127, → int8.
void relu(CommandQueue& q, DeviceBuffer a, DeviceBuffer res);
/// shift_and_scale: a (2, 8, B, BO) int32, (a + immShift) >> immScale → int8. An add of 0 is
/// dropped by the compiler, as in the measured TVM run.
void shiftAndScale(CommandQueue& q, DeviceBuffer a, DeviceBuffer res, int32_t immShift,
                   int32_t immScale);

}  // namespace tessera::vta::reference
