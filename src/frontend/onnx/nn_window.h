// The sliding window of ONNX's Conv, ConvTranspose, MaxPool and AveragePool, shared by
// convert_nn.cc (1-D and 2-D), convert_nn3d.cc (3-D windows built from the 2-D Relay ops) and
// convert_qconv.cc (the integer convolutions).
// Internal to src/frontend/onnx/.
#pragma once

#include <cstdint>
#include <vector>

#include "frontend/onnx/context.h"
#include "relay/expr.h"

namespace tessera::frontend::onnx {

/// A window over the spatial axes, in ONNX's conventions (pads: all begins, then all ends); the
/// pads are resolved (auto_pad applied) and non-negative.
struct Window {
  std::vector<int64_t> kernel, strides, dilations, pads;
};

/// The window and group count of a Conv-like node (Conv, ConvInteger, QLinearConv) over its data
/// and weight inputs: kernel_shape, pads, auto_pad, strides, dilations and group, checked against
/// the inputs' static shapes.
struct ConvGeometry {
  Window window;
  int64_t groups = 1;
};
ConvGeometry convGeometryOf(NodeContext& n, size_t data, size_t weight);

/// The 1-D, 2-D or 3-D convolution of `data` by `weight` (`channels` output channels) over `w`,
/// without bias; `outDtype` is nn.conv2d's out_dtype (void: the data's).
relay::Expr convolveNd(NodeContext& n, relay::Expr data, relay::Expr weight, Window w,
                       int64_t groups, int64_t channels, DataType outDtype = {});

/// The 3-D convolution of (N, C, D, H, W) `data` by (O, C / groups, kD, kH, kW) `weight`, without
/// bias: a sum over the depth taps of nn.conv2d with the output depths folded into the batch.
relay::Expr conv3dOf(NodeContext& n, relay::Expr data, relay::Expr weight, const Window& w,
                     int64_t groups, DataType outDtype = {});

/// How a pool combines its window.
struct PoolMode {
  bool isMax = false;
  bool ceilMode = false;
  bool countIncludePad = false;  ///< average pooling only
};

/// The 2-D (NCHW) pool of `data` over a window of two spatial axes.
relay::Expr pool2dOf(relay::Expr data, const Window& w, PoolMode mode);

/// The 3-D pool of (N, C, D, H, W) `data`: a 2-D pool over (H, W), then one over D.
relay::Expr pool3dOf(NodeContext& n, relay::Expr data, const Window& w, PoolMode mode);

}  // namespace tessera::frontend::onnx
