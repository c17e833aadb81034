// The x86 tensor intrinsics the schedules tensorize with (tir/schedule/primitive/tensor_intrin.h
// is the registry). Registered on first use, not by static constructors.
#pragma once

#include <string>

#include "runtime/data_type.h"
#include "topi/nn_int8_amx.h"

namespace tessera::topi::x86 {

/// 16 int32 accumulators, each += the 4 products of 4 uint8 data values (one group, shared by all
/// lanes) with the lane's 4 int8 weights: description C[j] += int32(A[k]) * int32(B[j, k]) over
/// j < 16, k < 4 (A (4,) uint8, B (16, 4) int8, C (16,) int32); implementation one AVX-512 VNNI
/// vpdpbusd. The name is what traces record.
inline const std::string kVnniDot16x4 = "x86.vnni_dot_16x4_u8s8i32";

/// The same instruction with the roles of the operands' lanes swapped: 16 int32 accumulators (one
/// per pixel), each += its own 4 uint8 data values times 4 int8 weights shared by all lanes:
/// description C[j] += int32(A[j, k]) * int32(B[k]) (A (16, 4) uint8, B (4,) int8, C (16,) int32).
inline const std::string kVnniDot16x4SharedWeight = "x86.vnni_dot_16x4_u8s8i32_shared_weight";

/// The pair form (topi/nn_int8.h) on AVX2: 16 int32 accumulators, each += the 2 products of 2
/// int16 data values (shared by all lanes) with the lane's 2 int16 weights: description C[j] +=
/// int32(A[k]) * int32(B[j, k]) over j < 16, k < 2 (A (2,) int16, B (16, 2) int16, C (16,)
/// int32); implementation two vpmaddwd (8 lanes each) and two vpaddd.
inline const std::string kAvx2Dot16x2 = "x86.avx2_dot_16x2_i16i16i32";

/// The same with the weights shared by all lanes: C[j] += int32(A[j, k]) * int32(B[k]) (A (16, 2)
/// int16, B (2,) int16, C (16,) int32).
inline const std::string kAvx2Dot16x2SharedWeight = "x86.avx2_dot_16x2_i16i16i32_shared_weight";

/// VNNI's description on AVX2 without VNNI: per 8 lanes, vpmaddubsw (uint8 x int8 pairs into
/// int16, saturating), vpmaddwd with ones and vpaddd. Exact only where no pair sum leaves int16:
/// uint8 data below 128 (data proven in [0, 127]).
inline const std::string kAvx2Dot16x4 = "x86.avx2_dot_16x4_u7s8i32";
/// The same with the weights shared by all lanes (kVnniDot16x4SharedWeight's description).
inline const std::string kAvx2Dot16x4SharedWeight = "x86.avx2_dot_16x4_u7s8i32_shared_weight";

/// The window form of the int8 depthwise conv2d (topi/depthwise_conv2d_int8.h) on AVX-512 VNNI
/// and VBMI: 16 int32 accumulators, lane j += the 4 products of its own 4 uint8 data values, read
/// from one row at stride * j, with 4 int8 weights shared by all lanes: description C[j] +=
/// int32(A[stride * j + k]) * int32(B[k]) over j < 16, k < 4 (A (15 * stride + 4,) uint8, B (4,)
/// int8, C (16,) int32); implementation one masked 64-byte load of A, one vpermb with a constant
/// table giving each lane its 4 bytes, one vpdpbusd. Where several calls read the same row (the
/// rows of a register block share input rows) the load and the vpermb are common subexpressions.
/// Strides 1 and 2; registered with the others, returns the name.
std::string vnniWindowIntrinsic(int64_t stride);

/// Registers the intrinsics above (once; later calls do nothing).
void registerTensorIntrinsics();

/// The AMX tile unit of an int8 convolution of geometry `g` over `dataDtype` (int8 or uint8) data
/// (topi/x86/tensor_intrin_amx.cc): description C[b, lane, m] += amxConvProduct over b < 2, lane <
/// 16, m < 32 and the whole reduction (W (2, steps, 16, 64) int8, D (groups, 32 + reach, 4), C (2,
/// 16, 32) int32); implementation 2 x 2 accumulator tiles kept in AMX tile registers, with
/// TDPBSSD (TDPBSUD for uint8 data). Registered on first use; returns its name.
std::string amxConvIntrinsic(const AmxConvGeometry& g, DataType dataDtype);

}  // namespace tessera::topi::x86
