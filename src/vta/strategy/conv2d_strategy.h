// VTA's strategy for a fused graph function (issue 25 item 1): a packed nn.conv2d
// (NCHW{b}n{c}c data, OIHW{c}o{c}i weights, int8 x int8 -> int32) followed by the element-wise
// integer operations graph packing leaves after it — a per-channel bias, relu, immediate adds,
// shifts, clips, casts — becomes conv2d_packed with that epilogue, scheduled with the default
// knobs and lowered with VTA's passes. An operation VTA cannot run is an error at its place.
#pragma once

#include <vector>

#include "relay/expr.h"
#include "tir/function.h"
#include "vta/rt/config.h"
#include "vta/strategy/epilogue_reader.h"
#include "vta/topi/conv2d_packed.h"

namespace tessera::vta {

struct VtaConv2dKernel : GemmOperands {
  Conv2dPackedShape shape;  ///< the layer and its epilogue
};

/// Reads `fn`. DiagnosticError (code "vta_strategy") naming the op and its span when the body is
/// not such a chain.
VtaConv2dKernel readConv2dKernel(const relay::Function& fn, const Config& config);

/// The kernel scheduled with defaultConv2dPackedKnobs and lowered for VTA: a PrimFunc over
/// (data, weight, operands..., result) for runOnVta.
tir::PrimFunc compileConv2dKernel(const VtaConv2dKernel& kernel, const Config& config);

/// Whether `fn` holds a convolution in VTA's packed layouts (NCHW{b}n{ci}c data): everything in
/// such a function must run on VTA (vta/strategy/graph_kernel.h).
bool isVtaConvFunction(const relay::Function& fn, const Config& config);

}  // namespace tessera::vta
