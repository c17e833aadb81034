// Elementwise TOPI computes: unary math by relay op name, cast, clip, activations. Output
// indices are named i0, i1, ... Semantics follow the relay reference kernels (src/relay/op).
#pragma once

#include <functional>
#include <string>

#include "topi/topi_util.h"

namespace tessera::topi {

/// out[i] = f(x[i]) named `name`, tag "elemwise".
Tensor elementwise(const Tensor& x, const std::function<PrimExpr(const PrimExpr&)>& f,
                   const std::string& name);

/// Whether unaryOp knows `op` (a relay unary op name such as "exp", "isnan", "bitwise_not").
bool isUnaryOp(const std::string& op);
/// The relay unary op `op` on x (DiagnosticError for an unknown name or unsupported dtype).
Tensor unaryOp(const std::string& op, const Tensor& x);
/// The element function of a unary op (used by fused elementwise chains).
PrimExpr unaryExpr(const std::string& op, const PrimExpr& x);

Tensor cast(const Tensor& x, DataType dtype);
/// min(max(x, lo), hi) with the bounds converted to x's dtype.
Tensor clip(const Tensor& x, double lo, double hi);
Tensor relu(const Tensor& x);
Tensor leakyRelu(const Tensor& x, double alpha);
/// Fills a shape with a scalar tensor's value (relay full) or a constant.
Tensor full(const std::vector<PrimExpr>& shape, DataType dtype, const Tensor& fillValue);
Tensor fullConst(const std::vector<PrimExpr>& shape, DataType dtype, double value,
                 const std::string& name);
/// x * multiplier * 2^(shift - 31), rounded half up, as relay fixed_point_multiply.
Tensor fixedPointMultiply(const Tensor& x, int64_t multiplier, int64_t shift);

}  // namespace tessera::topi
