// relay.testing.layers: the wrappers that create a layer's parameters as untyped variables named
// after the layer (type inference then gives them their shapes, as TVM's does).
#pragma once

#include <string>

#include "relay/builder.h"

namespace tessera::workloads::layers {

/// Field 0 of nn.batch_norm over `<name>_gamma`, `_beta`, `_moving_mean` and `_moving_var`.
relay::Expr batchNormInfer(relay::Expr data, const std::string& name,
                           relay::BatchNormAttrs attrs = {});
/// nn.conv2d with weight `<name>_weight`.
relay::Expr conv2d(relay::Expr data, const std::string& name, relay::Conv2DAttrs attrs);
/// nn.dense with `<name>_weight` then nn.bias_add of `<name>_bias` on the last axis.
relay::Expr denseAddBias(relay::Expr data, int64_t units, const std::string& name);

}  // namespace tessera::workloads::layers
