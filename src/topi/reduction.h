// Reduction TOPI computes over axes (relay sum/mean/max/min/prod/argmax/argmin): `axis` empty
// reduces everything, negative axes count from the end, `exclude` reduces the complement,
// `keepdims` keeps reduced axes as size 1. Output `<input>_red`, reduce axes k0, k1, ...
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "topi/topi_util.h"

namespace tessera::topi {

enum class ReduceKind : uint8_t { kSum, kMean, kMax, kMin, kProd, kArgMax, kArgMin };

struct ReduceSpec {
  std::optional<std::vector<int64_t>> axis = {};
  bool keepdims = false;
  bool exclude = false;
  bool selectLastIndex = false;  ///< argmax/argmin: ties go to the last index
};

/// The reduction `kind` of `x`; argmax/argmin return int32 indices (row-major position among the
/// reduced elements, as the reference reports it).
Tensor reduce(ReduceKind kind, const Tensor& x, const ReduceSpec& spec);

/// Which axes of a rank-`rank` tensor are reduced (DiagnosticError for bad or repeated axes).
std::vector<bool> reducedAxes(const ReduceSpec& spec, int rank, const std::string& op);

}  // namespace tessera::topi
