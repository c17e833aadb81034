// nn.conv2d_transpose: the attributes (TVM 0.16's Conv2DTransposeAttrs: field names, defaults and
// printing order) and the builder, which normalises padding, strides, dilation and
// output_padding as TVM's Python API does. NCHW data and IOHW weights (TVM's defaults).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/attrs.h"
#include "relay/expr.h"

namespace tessera::relay::nn {

/// Transposed 2-D convolution (the gradient of conv2d with respect to its data). The weight is
/// (C_in, C_out / groups, kh, kw); each output extent is
/// (in - 1) * stride - pad_before - pad_after + (k - 1) * dilation + 1 + output_padding.
struct Conv2DTransposeAttrs {
  static constexpr const char* kTypeKey = "relay.attrs.Conv2DTransposeAttrs";
  std::optional<int64_t> channels = {};
  std::optional<std::vector<int64_t>> kernelSize = {};
  std::vector<int64_t> strides = {1, 1};
  std::vector<int64_t> outputPadding = {0, 0};
  std::vector<int64_t> padding = {0, 0};
  std::vector<int64_t> dilation = {1, 1};
  int64_t groups = 1;
  std::string dataLayout = "NCHW";
  std::string kernelLayout = "IOHW";
  std::string outLayout = {};  ///< empty: same as dataLayout
  DataType outDtype = {};      ///< void: the data's dtype
  template <typename V>
  static void fields(V& v) {
    v("channels", &Conv2DTransposeAttrs::channels);
    v("kernel_size", &Conv2DTransposeAttrs::kernelSize);
    v("strides", &Conv2DTransposeAttrs::strides);
    v("output_padding", &Conv2DTransposeAttrs::outputPadding);
    v("padding", &Conv2DTransposeAttrs::padding);
    v("dilation", &Conv2DTransposeAttrs::dilation);
    v("groups", &Conv2DTransposeAttrs::groups);
    v("data_layout", &Conv2DTransposeAttrs::dataLayout);
    v("kernel_layout", &Conv2DTransposeAttrs::kernelLayout);
    v("out_layout", &Conv2DTransposeAttrs::outLayout);
    v("out_dtype", &Conv2DTransposeAttrs::outDtype);
  }
};

/// nn.conv2d_transpose; padding becomes (top, left, bottom, right), scalars become pairs.
Expr conv2dTranspose(Expr data, Expr weight, Conv2DTransposeAttrs attrs = {});

/// The geometry every implementation shares, from the attributes and the static NCHW data and
/// IOHW weight shapes: output extents, and the padding that turns the transposed convolution into
/// a stride-1 convolution of the stride-dilated input with the flipped kernel (`before` may be
/// negative: that many rows or columns of the dilated input are cropped instead).
struct ConvTransposeGeometry {
  int64_t batch, inChannels, height, width;
  int64_t groups, inPerGroup, outPerGroup, outChannels;
  int64_t kh, kw;
  int64_t outHeight, outWidth;
  std::array<int64_t, 2> strides, dilation;
  std::array<int64_t, 4> padding;  ///< top, left, bottom, right of the attributes
  std::array<int64_t, 2> before;   ///< (k - 1) * dilation - pad_before, per spatial axis
  std::array<int64_t, 2> after;    ///< (k - 1) * dilation - pad_after + output_padding
};
ConvTransposeGeometry convTransposeGeometry(const Conv2DTransposeAttrs& a,
                                            const std::vector<int64_t>& data,
                                            const std::vector<int64_t>& weight);

}  // namespace tessera::relay::nn

namespace tessera::relay {
using nn::Conv2DTransposeAttrs;
}  // namespace tessera::relay
