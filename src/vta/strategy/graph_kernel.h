// Which fused graph functions VTA runs in a heterogeneous build, and their kernels: a function
// holding a packed convolution or a packed dense layer is VTA's (conv2d_strategy.h,
// dense_strategy.h: every limit is an error at its op); an
// element-wise chain of packed integer tensors that the ALU computes is VTA's too
// (alu_strategy.h); every other function is the CPU's.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "relay/expr.h"
#include "runtime/ndarray.h"
#include "tir/function.h"
#include "vta/rt/config.h"

namespace tessera::vta {

/// A fused function compiled for VTA: the host program for the CPU code generator
/// (lowerVtaHostIntrin applied, named as asked), and where each tensor parameter before the
/// result comes from.
struct VtaGraphKernel {
  tir::PrimFunc func;
  /// Per PrimFunc parameter before the result: the fused function's parameter index, or -1 for a
  /// constant (the next of `constants`).
  std::vector<int> params;
  std::vector<NDArray> constants;
  std::string implementation;  ///< "conv2d_packed.vta", "dense_packed.vta" or "alu_packed.vta"
};

/// `fn` compiled for VTA and named `name`, or nullopt when it is the CPU's. DiagnosticError
/// (codes "vta_strategy", "vta_schedule", "vta_dma", "vta_alu", "vta_lower") naming the op or
/// buffer and the limit when a function that must run on VTA cannot.
std::optional<VtaGraphKernel> vtaGraphKernel(const relay::Function& fn, const Config& config,
                                             const std::string& name);

}  // namespace tessera::vta
