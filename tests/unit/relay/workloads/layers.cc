// relay.testing.layers (python/tvm/relay/testing/layers.py).
#include "layers.h"

namespace tessera::workloads::layers {

relay::Expr batchNormInfer(relay::Expr data, const std::string& name, relay::BatchNormAttrs attrs) {
  return relay::tupleGetItem(
      relay::nn::batchNorm(std::move(data), relay::var(name + "_gamma"), relay::var(name + "_beta"),
                           relay::var(name + "_moving_mean"), relay::var(name + "_moving_var"),
                           attrs),
      0);
}

relay::Expr conv2d(relay::Expr data, const std::string& name, relay::Conv2DAttrs attrs) {
  return relay::nn::conv2d(std::move(data), relay::var(name + "_weight"), std::move(attrs));
}

relay::Expr denseAddBias(relay::Expr data, int64_t units, const std::string& name) {
  relay::Expr out =
      relay::nn::dense(std::move(data), relay::var(name + "_weight"), {.units = units});
  return relay::nn::biasAdd(out, relay::var(name + "_bias"), {.axis = -1});
}

}  // namespace tessera::workloads::layers
