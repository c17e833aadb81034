// nn.batch_matmul of int8/uint8 x int8 -> int32 shaped for AVX-512 VNNI's vpdpbusd, as the
// products of topi/nn_int8.h: the right operand B is packed so that 4 consecutive reduction
// elements of 16 output columns are 64 contiguous bytes, the left operand A is repacked to uint8
// groups of 4 (int8 shifted by +128) and the output stage takes off 128 * sum_k B[k, j]. B is
// either a constant packed at compile time (the negated compensation stored in the packing, as
// packInt8Weight does, and added) or a run-time value (transformers' attention), packed inside
// the kernel with its compensation computed there. Any transpose_a / transpose_b, batch extents
// of 1 broadcast. The result is exactly the int32 sum of the plain compute (modulo 2^32).
#pragma once

#include "runtime/ndarray.h"
#include "topi/topi_util.h"

namespace tessera::topi {

/// Rows of A per register tile of the x86 schedule.
inline constexpr int64_t kInt8BatchRows = 8;

/// A constant B, (batch, K, N) or (batch, N, K) when `transposed`, int8 -> (batch, ceil(N/16),
/// ceil(K/4) + 1, 16, 4): batch b is packInt8Weight of B[b] as an (N, K) matrix, compensation row
/// included.
NDArray packInt8BatchWeight(const NDArray& b, bool transposed);

/// batch_matmul of A (batch, M, K) ((batch, K, M) with `transposeA`), int8 or uint8, and an
/// int8 B: a run-time (batch, K, N) ((batch, N, K) with `transposeB`) or a
/// packInt8BatchWeight-packed 5-D constant (`transposeB` then ignored, `columns` = N). Stages:
/// `a_u8` (batch, M', ceil(K/4), 4) uint8; for a run-time B `b_s8` (batch, ceil(N/16), ceil(K/4),
/// 16, 4) and, for int8 A, `b_compensation` (batch, ceil(N/16), 16) int32; the accumulators
/// `batch_matmul_int8` (batch, M', ceil(N/16), 16) and `T_batch_matmul_int8` (batch, M, N). M' is
/// M, or M rounded up to a multiple of kInt8BatchRows when M > 8 has no divisor from 4 to 8.
Tensor batchMatmulInt8(const Tensor& a, const Tensor& b, bool transposeA, bool transposeB,
                       int64_t columns = 0);

}  // namespace tessera::topi
