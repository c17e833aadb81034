// VTA's strategy for a fused graph function (issue 25 item 1): a packed nn.conv2d
// (NCHW{b}n{c}c data, OIHW{c}o{c}i weights, int8 x int8 -> int32) followed by the element-wise
// integer operations graph packing leaves after it — a per-channel bias, relu, immediate adds,
// shifts, clips, casts — becomes conv2d_packed with that epilogue, scheduled with the default
// knobs and lowered with VTA's passes. An operation VTA cannot run is an error at its place.
#pragma once

#include <vector>

#include "relay/expr.h"
#include "runtime/ndarray.h"
#include "tir/function.h"
#include "vta/rt/config.h"
#include "vta/topi/conv2d_packed.h"

namespace tessera::vta {

struct VtaConv2dKernel {
  Conv2dPackedShape shape;  ///< the layer and its epilogue
  /// For each kAddChannel operand in order: the function parameter that feeds it, or -1 when it
  /// is a constant (then in `constants`).
  std::vector<int> operandParams;
  std::vector<NDArray> constants;
  int dataParam = 0, weightParam = 1;  ///< -1 for a constant weight (then `weight`)
  NDArray weight;
};

/// Reads `fn`. DiagnosticError (code "vta_strategy") naming the op and its span when the body is
/// not such a chain.
VtaConv2dKernel readConv2dKernel(const relay::Function& fn, const Config& config);

/// The kernel scheduled with defaultConv2dPackedKnobs and lowered for VTA: a PrimFunc over
/// (data, weight, operands..., result) for runOnVta.
tir::PrimFunc compileConv2dKernel(const VtaConv2dKernel& kernel, const Config& config);

/// A fused graph function VTA runs, compiled for a heterogeneous build: the host program for the
/// CPU code generator (lowerVtaHostIntrin applied, named `name`), and where each of its tensor
/// parameters before the result comes from.
struct VtaGraphKernel {
  tir::PrimFunc func;
  /// Per PrimFunc parameter before the result: the fused function's parameter index, or -1 for a
  /// constant (the next of `constants`).
  std::vector<int> params;
  std::vector<NDArray> constants;
};

/// Whether `fn` holds a convolution in VTA's packed layouts (NCHW{b}n{ci}c data): such a function
/// is VTA's, every other one the CPU's.
bool isVtaFunction(const relay::Function& fn, const Config& config);

/// `fn` compiled for VTA (readConv2dKernel, compileConv2dKernel, lowerVtaHostIntrin), its
/// PrimFunc named `name`. DiagnosticError (codes "vta_strategy", "vta_schedule", "vta_dma",
/// "vta_lower") naming the op or buffer and the limit when VTA cannot run it.
VtaGraphKernel compileVtaGraphKernel(const relay::Function& fn, const Config& config,
                                     const std::string& name);

}  // namespace tessera::vta
