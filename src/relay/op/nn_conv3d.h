// nn.conv3d and nn.adaptive_avg_pool3d, the two 3-D ops of TVM's relay.testing resnet_3d: the
// attributes (TVM 0.16's Conv3DAttrs and AdaptivePool3DAttrs: field names, defaults and printing
// order) and the builders, which normalise as TVM's Python API does. NCDHW data and OIDHW weights
// only (TVM's defaults; resnet_3d's NDHWC variant is not supported).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/attrs.h"
#include "relay/expr.h"

namespace tessera::relay::nn {

/// 3-D convolution. `padding` holds 1, 3 or 6 values (front, top, left, back, bottom, right); the
/// builder writes 6, as TVM's get_pad_tuple3d does.
struct Conv3DAttrs {
  static constexpr const char* kTypeKey = "relay.attrs.Conv3DAttrs";
  std::vector<int64_t> strides = {1, 1, 1};
  std::vector<int64_t> padding = {0, 0, 0};
  std::vector<int64_t> dilation = {1, 1, 1};
  int64_t groups = 1;
  std::optional<int64_t> channels = {};
  std::optional<std::vector<int64_t>> kernelSize = {};
  std::string dataLayout = "NCDHW";
  std::string kernelLayout = "OIDHW";
  std::string outLayout = {};  ///< empty: same as dataLayout
  DataType outDtype = {};      ///< void: the data's dtype
  template <typename V>
  static void fields(V& v) {
    v("strides", &Conv3DAttrs::strides);
    v("padding", &Conv3DAttrs::padding);
    v("dilation", &Conv3DAttrs::dilation);
    v("groups", &Conv3DAttrs::groups);
    v("channels", &Conv3DAttrs::channels);
    v("kernel_size", &Conv3DAttrs::kernelSize);
    v("data_layout", &Conv3DAttrs::dataLayout);
    v("kernel_layout", &Conv3DAttrs::kernelLayout);
    v("out_layout", &Conv3DAttrs::outLayout);
    v("out_dtype", &Conv3DAttrs::outDtype);
  }
};

/// nn.adaptive_avg_pool3d (relay.nn.global_avg_pool3d is this op with output_size [1, 1, 1]).
/// `output_size`: empty keeps D, H and W; one value is used for all three.
struct AdaptivePool3DAttrs {
  static constexpr const char* kTypeKey = "relay.attrs.AdaptivePool3DAttrs";
  std::vector<int64_t> outputSize = {};
  std::string layout = "NCDHW";
  std::string outLayout = {};
  template <typename V>
  static void fields(V& v) {
    v("output_size", &AdaptivePool3DAttrs::outputSize);
    v("layout", &AdaptivePool3DAttrs::layout);
    v("out_layout", &AdaptivePool3DAttrs::outLayout);
  }
};

/// nn.conv3d; padding becomes 6 values and scalar strides, dilation and kernel_size triples.
Expr conv3d(Expr data, Expr weight, Conv3DAttrs attrs = {});
/// nn.adaptive_avg_pool3d.
Expr adaptiveAvgPool3d(Expr data, AdaptivePool3DAttrs attrs = {});
/// relay.nn.global_avg_pool3d: nn.adaptive_avg_pool3d with output_size [1, 1, 1], as TVM builds it.
Expr globalAvgPool3d(Expr data);

/// (front, top, left, back, bottom, right) from the 1-, 3- or 6-value padding forms; nullopt for
/// other sizes.
std::optional<std::array<int64_t, 6>> expandPadding3d(const std::vector<int64_t>& padding);

/// The geometry of a conv3d with static NCDHW data and OIDHW weight shapes.
struct Conv3DGeometry {
  int64_t batch, inChannels, groups, inPerGroup, outChannels, outPerGroup;
  std::array<int64_t, 3> in, kernel, out, strides, dilation;
  std::array<int64_t, 6> padding;
};
Conv3DGeometry conv3dGeometry(const Conv3DAttrs& a, const std::vector<int64_t>& data,
                              const std::vector<int64_t>& weight);

}  // namespace tessera::relay::nn

namespace tessera::relay {
using nn::AdaptivePool3DAttrs;
using nn::Conv3DAttrs;
}  // namespace tessera::relay
