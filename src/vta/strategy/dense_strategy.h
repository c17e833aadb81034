// VTA's strategy for a fused graph function holding a packed nn.dense (TVM's dense_packed, picked
// when the data is 4-D): data (N/b, K/ci, b, ci) x weight (O/co, K/ci, co, ci), int8 x int8 ->
// int32, followed by the element-wise integer tail graph packing leaves (per-channel bias, relu,
// immediate adds, shifts, clips, casts) becomes dense_packed with that epilogue, scheduled with
// the default knobs and lowered with VTA's passes. An operation VTA cannot run is an error at
// its place, as for conv2d (conv2d_strategy.h).
#pragma once

#include "relay/expr.h"
#include "support/span.h"
#include "tir/function.h"
#include "vta/rt/config.h"
#include "vta/strategy/epilogue_reader.h"
#include "vta/topi/dense_packed.h"

namespace tessera::vta {

struct VtaDenseKernel : GemmOperands {
  DensePackedShape shape;  ///< the layer and its epilogue
  Span span;               ///< the nn.dense call, where schedule and lowering errors point
};

/// Reads `fn`. DiagnosticError (code "vta_strategy") naming the op and its span when the body is
/// not such a chain or the dense is not int8 x int8 -> int32 in VTA's blocks.
VtaDenseKernel readDenseKernel(const relay::Function& fn, const Config& config);

/// The kernel scheduled with defaultDensePackedKnobs and lowered for VTA: a PrimFunc over
/// (data, weight, operands..., result) for runOnVta. Schedule and lowering errors ("vta_schedule",
/// "vta_lower", ...) are located at the nn.dense call.
tir::PrimFunc compileDenseKernel(const VtaDenseKernel& kernel, const Config& config);

/// Whether `fn` holds an nn.dense in the packed form (4-D weight): everything in such a function
/// must run on VTA (vta/strategy/graph_kernel.h).
bool isVtaDenseFunction(const relay::Function& fn);

}  // namespace tessera::vta
