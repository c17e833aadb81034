// Depthwise conv2d (NCHW, groups == channels, channel multiplier 1) of int8/uint8 data with an
// int8 weight, int32 out, shaped for vectors of 16 int32 lanes along the output width: the
// input is padded (and, at stride S, split into S column phases, so that every tap of a strided
// row reads contiguous columns). Values are sign- (or zero-) extended to int32 and multiplied and
// summed in int32: exactly the plain compute's result.
#pragma once

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

}  // namespace tessera::topi
