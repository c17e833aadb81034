// Helpers shared by the TOPI computes: static extents, index arithmetic that does not emit
// `x + 0` or `x * 1` (create_prim_func prints what the compute built), axis normalisation and
// numpy broadcasting of indices.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "te/reduce.h"
#include "te/tensor.h"

namespace tessera::topi {

using te::Tensor;
using tir::IterVar;
using tir::PrimExpr;
using tir::Var;

/// The constant extent of `dim`; DiagnosticError naming `op` when it is symbolic.
int64_t constDim(const PrimExpr& dim, const std::string& op);
/// Every extent of `t` as constants (see constDim).
std::vector<int64_t> constShape(const Tensor& t, const std::string& op);
/// An int32 shape from constants.
std::vector<PrimExpr> shapeOf(const std::vector<int64_t>& dims);

/// a + b without a node when b is 0.
PrimExpr addIdx(const PrimExpr& a, int64_t b);
/// a * b without a node when b is 1.
PrimExpr mulIdx(const PrimExpr& a, int64_t b);
/// a + b where either may be the constant 0.
PrimExpr addIdx(const PrimExpr& a, const PrimExpr& b);

/// `axis` in [-rank, rank) normalised to [0, rank); DiagnosticError naming `op` otherwise.
int normalizeAxis(int64_t axis, int rank, const std::string& op);

/// Numpy broadcast of two shapes (right-aligned; size-1 dims stretch).
std::vector<PrimExpr> broadcastShape(const std::vector<PrimExpr>& a, const std::vector<PrimExpr>& b,
                                     const std::string& op);
/// The indices of `t` for an output index `out` of a broadcast result of `outShape` (a size-1 dim
/// of `t` reads 0 where the output's extent is not 1).
std::vector<PrimExpr> broadcastIndex(const Tensor& t, const std::vector<PrimExpr>& outShape,
                                     const std::vector<Var>& out);

/// `name` with one data-parallel index name per dim: ax0, ax1, ...
std::vector<std::string> axisNames(size_t rank, const std::string& prefix = "ax");

/// A constant of `t`'s dtype.
PrimExpr constOf(DataType t, double value);

}  // namespace tessera::topi
