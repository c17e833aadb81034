// Broadcast binary TOPI computes (numpy rules, right-aligned): arithmetic, comparisons, logical
// and bitwise ops and shifts by relay op name, named T_<op> with indices ax0, ax1, ... and
// `where`. Semantics follow the relay reference kernels.
#pragma once

#include <functional>
#include <string>

#include "topi/topi_util.h"

namespace tessera::topi {

using BinaryFn = std::function<PrimExpr(const PrimExpr&, const PrimExpr&)>;

/// out = f(a[bcast], b[bcast]) named `name`, tag "broadcast".
Tensor broadcastBinary(const Tensor& a, const Tensor& b, const BinaryFn& f,
                       const std::string& name);
/// Whether binaryOp knows `op` ("add", "floor_mod", "less_equal", "right_shift", ...).
bool isBinaryOp(const std::string& op);
/// The element function of a relay binary op.
PrimExpr binaryExpr(const std::string& op, const PrimExpr& a, const PrimExpr& b);
/// The relay binary op `op` (`add` gives T_add, as topi.add does).
Tensor binaryOp(const std::string& op, const Tensor& a, const Tensor& b);
Tensor add(const Tensor& a, const Tensor& b);
Tensor multiply(const Tensor& a, const Tensor& b);
/// where(cond, x, y) with three-way broadcasting.
Tensor where(const Tensor& cond, const Tensor& x, const Tensor& y);

}  // namespace tessera::topi
