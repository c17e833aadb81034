// The x86 tensor intrinsics the schedules tensorize with (tir/schedule/primitive/tensor_intrin.h
// is the registry). Registered on first use, not by static constructors.
#pragma once

#include <string>

namespace tessera::topi::x86 {

/// 16 int32 accumulators, each += the 4 products of 4 uint8 data values (one group, shared by all
/// lanes) with the lane's 4 int8 weights: description C[j] += int32(A[k]) * int32(B[j, k]) over
/// j < 16, k < 4 (A (4,) uint8, B (16, 4) int8, C (16,) int32); implementation one AVX-512 VNNI
/// vpdpbusd. The name is what traces record.
inline const std::string kVnniDot16x4 = "x86.vnni_dot_16x4_u8s8i32";

/// Registers the intrinsics above (once; later calls do nothing).
void registerTensorIntrinsics();

}  // namespace tessera::topi::x86
