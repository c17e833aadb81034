// VTA's conv2d strategy (conv2d_strategy.h): the fused function is read from its result back to
// the convolution (epilogue_reader.h), then the convolution's attributes are checked.
#include "vta/strategy/conv2d_strategy.h"

#include "relay/op/nn.h"
#include "relay/visit.h"
#include "support/diagnostic.h"
#include "tir/transform/lower.h"
#include "vta/strategy/epilogue_reader.h"
#include "vta/tir/passes.h"

namespace tessera::vta {

using namespace relay;

VtaConv2dKernel readConv2dKernel(const Function& fn, const Config& c) {
  VtaConv2dKernel k;
  const EpilogueChain chain = readEpilogueChain(
      fn, "nn.conv2d",
      [](const std::vector<int64_t>& out) {
        return out.size() == 6 ? std::vector<int64_t>{out[1], 1, 1, out[4], out[5]}
                               : std::vector<int64_t>{-1};
      },
      "(O/co, 1, 1, b, co)");
  const Expr& e = chain.anchor;
  const auto* conv = e->as<CallNode>();
  const auto* attrs = attrsAs<nn::Conv2DAttrs>(conv->attrs.get());
  const std::string dataLayout =
      "NCHW" + std::to_string(c.batch()) + "n" + std::to_string(c.blockIn()) + "c";
  const std::string kernelLayout =
      "OIHW" + std::to_string(c.blockOut()) + "o" + std::to_string(c.blockIn()) + "i";
  if (!attrs || attrs->dataLayout != dataLayout || attrs->kernelLayout != kernelLayout)
    failAt(*conv, "a VTA convolution needs data_layout=\"" + dataLayout +
                      "\" and kernel_layout=\"" + kernelLayout + "\" (run graph packing first)");
  for (int64_t d : attrs->dilation)
    if (d != 1) failAt(*conv, "VTA convolutions need dilation 1, found " + std::to_string(d));
  if (attrs->groups != 1) failAt(*conv, "VTA has no grouped convolution");
  const std::vector<int64_t>& p = attrs->padding;
  if (p.size() != 4 || p[0] != p[1] || p[0] != p[2] || p[0] != p[3] ||
      attrs->strides[0] != attrs->strides[1])
    failAt(*conv, "VTA convolutions need equal padding on all sides and equal strides");
  const std::vector<int64_t> data = staticDimsAt(conv->args[0], *conv);
  const std::vector<int64_t> weight = staticDimsAt(conv->args[1], *conv);
  const TensorTypeNode* dt = tensorTypeOfExpr(conv->args[0]);
  const TensorTypeNode* wt = tensorTypeOfExpr(conv->args[1]);
  if (dt->dtype != DataType::int8() || wt->dtype != DataType::int8() ||
      tensorTypeOfExpr(e)->dtype != DataType::int32())
    failAt(*conv, "VTA convolutions are int8 x int8 -> int32");
  static_cast<GemmOperands&>(k) = gemmOperands(fn, chain, "convolution");
  k.shape.batch = data[0] * data[4];
  k.shape.inChannels = data[1] * data[5];
  k.shape.height = data[2];
  k.shape.width = data[3];
  k.shape.outChannels = weight[0] * weight[4];
  k.shape.kernel = weight[2];
  if (weight[2] != weight[3]) failAt(*conv, "VTA convolutions need square kernels");
  k.shape.pad = p[0];
  k.shape.stride = attrs->strides[0];
  k.shape.epilogue = chain.ops;
  return k;
}

tir::PrimFunc compileConv2dKernel(const VtaConv2dKernel& kernel, const Config& config) {
  tir::Schedule sch(conv2dPackedFunc(config, kernel.shape));
  scheduleConv2dPacked(sch, config, kernel.shape, defaultConv2dPackedKnobs(config, kernel.shape));
  tir::transform::PassContext ctx;
  addVtaLowerPasses(ctx, config);
  return tir::transform::lower(sch.func(), ctx);
}

bool isVtaConvFunction(const Function& fn, const Config& c) {
  const std::string dataLayout =
      "NCHW" + std::to_string(c.batch()) + "n" + std::to_string(c.blockIn()) + "c";
  bool found = false;
  postOrderVisit(fn->body, [&](const Expr& e) {
    const auto* call = e->as<CallNode>();
    if (!call || opNameOf(*call) != "nn.conv2d") return;
    const auto* attrs = attrsAs<nn::Conv2DAttrs>(call->attrs.get());
    if (attrs && attrs->dataLayout == dataLayout) found = true;
  });
  return found;
}

}  // namespace tessera::vta
