// What VTA's DMA and ALU passes read out of a pragma'd loop nest: the loops (unit loops dropped,
// as TE never emits them), the one statement at the bottom, and the affine form of an index over
// those loops.
#pragma once

#include <optional>
#include <vector>

#include "tir/arith/analyzer.h"
#include "tir/functor.h"
#include "tir/stmt.h"

namespace tessera::vta {

struct NestLoop {
  tir::Var var;
  int64_t extent;
};

struct PerfectNest {
  std::vector<NestLoop> loops;  ///< outermost first, extent > 1
  tir::VarMap unit;             ///< unit loop variables -> 0 (apply to the leaf's expressions)
  tir::Stmt leaf;               ///< the statement under the loops, lets substituted
};

/// Strips `s` down to its innermost statement through loops (constant extents from 0; otherwise
/// DiagnosticError with `code`), buffer declarations and lets.
PerfectNest perfectNest(const tir::Stmt& s, const char* code);

/// `e` as base + Σ coef_i · loop_i with constant coefficients, or nothing.
struct AffineIndex {
  tir::PrimExpr base;
  std::vector<int64_t> coef;
};
std::optional<AffineIndex> affineIndex(const tir::PrimExpr& e, const std::vector<NestLoop>& loops,
                                       tir::arith::Analyzer& analyzer);

}  // namespace tessera::vta
