// Depthwise conv2d (NCHW, groups == channels, channel multiplier 1) of int8/uint8 data with an
// int8 weight, int32 out, shaped for vectors of 16 int32 lanes along the output width: the
// input is padded (and, at stride S, split into S column phases, so that every tap of a strided
// row reads contiguous columns). Values are sign- (or zero-) extended to int32 and multiplied and
// summed in int32: exactly the plain compute's result.
#pragma once

#include <optional>

#include "topi/nn.h"

namespace tessera::topi {

/// Whether depthwiseConv2dNchwInt8 computes a conv2d (NCHW/OIHW shapes): groups == input
/// channels == output channels, weight (C, 1, KH, KW), unit dilation, a non-empty output.
bool depthwiseConv2dInt8Applies(const std::vector<int64_t>& dataShape,
                                const std::vector<int64_t>& weightShape, const Conv2DParams& p);

/// The depthwise conv2d: `pad_temp` (N, C, (OH-1)*SH + KH, SW, ceil(((OW-1)*SW + KW) / SW))
/// of the data's dtype, column x of the padded input at [..., x % SW, x / SW];
/// `depthwise_conv2d_int8` (N, C, OH, OW) int32; `T_depthwise_conv2d_int8` (N, C, OH, OW).
Tensor depthwiseConv2dNchwInt8(const Tensor& data, const Tensor& weight, const Conv2DParams& p);

// The window form, for AVX-512 VNNI's byte dot products (vpdpbusd) over a kernel row's taps: 16
// output columns per vector, each lane's 4 taps (a kernel row rounded up to groups of 4, the
// extra weights 0) read as one group of 4 bytes from the padded row, so that one vector of the
// row, permuted, feeds 16 lanes (topi/x86/tensor_intrin.h, kVnniWindow*). The data must be
// unsigned for vpdpbusd: uint8 as it is, int8 proven to lie in [0, 127] as uint8, other int8
// shifted by +128 with 128 * sum(w) of each channel subtracted (`shiftData`). Exact: the same
// int32 sums as the plain compute.

/// Output rows the window form's accumulators are computed for together (the row count rounded
/// up to it): the schedule's register block, whose rows share their input rows.
inline constexpr int64_t kWindowRows = 4;
/// Output columns per vector.
inline constexpr int64_t kWindowLanes = 16;
/// Whether depthwiseConv2dNchwInt8Window computes the conv2d: depthwiseConv2dInt8Applies and a
/// horizontal stride of 1 or 2.
bool depthwiseConv2dInt8WindowApplies(const std::vector<int64_t>& dataShape,
                                      const std::vector<int64_t>& weightShape,
                                      const Conv2DParams& p);
/// The window form: `pad_temp` (N, C, HP, WP) uint8 (the padded input, shifted by +128 when
/// `shiftData`, whose padding is then 128; HP and WP cover whole blocks of rows and vectors);
/// `weight_window` (C, KH, KW4) int8 (each kernel row padded with zeros to a multiple of 4);
/// `compensation` (C,) int32 (only when `shiftData`); `depthwise_conv2d_int8_window` (N, C,
/// ceil(OH/4)*4, ceil(OW/16)*16) int32; `T_depthwise_conv2d_int8` (N, C, OH, OW).
/// `bias`, an int32 addend per channel (isChannelAddend), starts the accumulators (as
/// conv2dNchw1x1Int8's).
Tensor depthwiseConv2dNchwInt8Window(const Tensor& data, const Tensor& weight,
                                     const Conv2DParams& p, bool shiftData,
                                     const std::optional<Tensor>& bias = {});

}  // namespace tessera::topi
