// VTA's 2-D DMA pattern (spec vta.md §6.2): a DRAM region described by per-dimension extents and
// element strides, reduced to the (x_size, y_size, x_stride) in entries that one LOAD or STORE
// instruction moves: y rows of x consecutive entries, rows x_stride entries apart.
#pragma once

#include <cstdint>
#include <vector>

#include "tir/arith/analyzer.h"
#include "tir/expr.h"

namespace tessera::vta {

struct DmaDim {
  tir::PrimExpr extent;  ///< may depend on outer loops (a padded load's rows)
  int64_t stride;        ///< in scalars
};

struct Pattern2D {
  tir::PrimExpr x, y, stride;  ///< in entries
};

/// The pattern of `dims` (outermost first) with entries of `block` scalars. With `allowFold`,
/// contiguous innermost dimensions form the entry and runs of dimensions that are contiguous with
/// each other merge first (extents must then be constants). DiagnosticError (code "vta_dma") when
/// the region has no such pattern.
Pattern2D pattern2D(const std::vector<DmaDim>& dims, int64_t block, bool allowFold,
                    tir::arith::Analyzer& analyzer);

}  // namespace tessera::vta
