// Shared helpers of the VTA tests: random data, lane packing for any lane width, plain reference
// kernels (conv2d, matmul) in the packed layouts, instruction-kind counts, and test configs.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "vta/rt/runtime.h"

namespace tessera::vta::test {

/// Uniform random integers in [lo, hi] from a fixed-seed generator (deterministic tests).
std::vector<int32_t> randomInts(size_t n, int32_t lo, int32_t hi, uint32_t seed);
/// Value range of an input/weight lane of `bits` (int8: [-128, 127]).
int32_t laneMin(int bits);
int32_t laneMax(int bits);

/// Packs lane values into bytes with `bits` per lane, little-endian, as VTA entries are laid out
/// (spec §4.1); values are truncated to `bits`.
std::vector<uint8_t> packLanes(std::span<const int32_t> lanes, int bits);
/// Inverse of packLanes with sign extension.
std::vector<int32_t> unpackLanes(std::span<const uint8_t> bytes, int bits, size_t count);

/// Allocates a device buffer holding `lanes` packed at `bits` per lane.
DeviceBuffer upload(CommandQueue& q, std::span<const int32_t> lanes, int bits);
/// Reads `count` lanes of `bits` from a device buffer.
std::vector<int32_t> download(CommandQueue& q, DeviceBuffer buffer, int bits, size_t count);

/// Two's-complement truncation of `v` to `bits` (what STORE does to every lane).
int32_t truncate(int64_t v, int bits);

/// NCHW data -> (N/b, C/c, H, W, b, c); OIHW kernel -> (O/c, I/c, kh, kw, c, c).
std::vector<int32_t> packData(std::span<const int32_t> nchw, int n, int c, int h, int w, int b,
                              int ci);
std::vector<int32_t> packKernel(std::span<const int32_t> oihw, int o, int i, int k, int co, int ci);

/// The seed-004 reference: int32 NCHW conv (stride 1), >> shift, clip [0, clipMax], returned in
/// the packed output layout (N/b, O/c, H', W', b, c).
std::vector<int32_t> referenceConv2d(std::span<const int32_t> data, std::span<const int32_t> kernel,
                                     int n, int c, int h, int w, int o, int k, int pad, int shift,
                                     int clipMax, int batchBlock, int blockOut);

/// Packed GEMM reference: a (o, n, b, bi) · w (m, n, bo, bi) -> int32 (wrapping) sums in the
/// layout (o, m, b, bo), as the VTA GEMM intrinsic defines them.
std::vector<int32_t> referenceMatmul(std::span<const int32_t> a, std::span<const int32_t> w, int o,
                                     int n, int m, int b, int bi, int bo);
/// Elementwise (v >> shift) clipped to [0, clipMax].
std::vector<int32_t> shiftClip(std::vector<int32_t> v, int shift, int clipMax);
/// Elementwise truncation to `bits`.
std::vector<int32_t> truncateAll(std::vector<int32_t> v, int bits);

/// Counts of each instruction kind in a stream (spec §5.8 breakdown).
struct InsnCounts {
  int loadInp = 0, loadWgt = 0, loadUop = 0, loadAcc = 0, gemm = 0, gemmReset = 0, alu = 0,
      store = 0, loadNop = 0, computeNop = 0, storeNop = 0, finish = 0;
  int total() const {
    return loadInp + loadWgt + loadUop + loadAcc + gemm + alu + store + loadNop + computeNop +
           storeNop + finish;
  }
  bool operator==(const InsnCounts&) const = default;
};
InsnCounts countInstructions(std::span<const Instruction> stream);
std::string describe(const InsnCounts& c);

/// Stats from the seven counters in spec order.
Stats makeStats(uint64_t inp, uint64_t wgt, uint64_t acc, uint64_t uop, uint64_t out, uint64_t gemm,
                uint64_t alu);

/// Non-default configurations exercised by the "same programs elsewhere" tests.
Config configBatch2();   ///< BATCH 2, BLOCK 16
Config configBlock32();  ///< BATCH 1, BLOCK 32
Config configBlock8();   ///< BATCH 1, BLOCK 8, smaller SRAMs
Config configInt4();     ///< 4-bit inputs and weights (packed lanes), BLOCK 16

}  // namespace tessera::vta::test
