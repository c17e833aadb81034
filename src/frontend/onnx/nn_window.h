// The sliding window of ONNX's Conv, ConvTranspose, MaxPool and AveragePool, shared by
// convert_nn.cc (1-D and 2-D) and convert_nn3d.cc (3-D windows built from the 2-D Relay ops).
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

/// The 3-D convolution of (N, C, D, H, W) `data` by (O, C / groups, kD, kH, kW) `weight`, without
/// bias: a sum over the depth taps of nn.conv2d with the output depths folded into the batch.
relay::Expr conv3dOf(NodeContext& n, relay::Expr data, relay::Expr weight, const Window& w,
                     int64_t groups);

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
