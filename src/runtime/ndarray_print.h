// NumPy-style text of a tensor's values (what `print(array)` shows), for the CLI and diagnostics.
#pragma once

#include <cstdint>
#include <string>

#include "runtime/ndarray.h"

namespace tessera {

/// NumPy's print options that the formatter honours (numpy.set_printoptions defaults).
struct ArrayPrintOptions {
  /// Tensors with more elements than this are summarised.
  int64_t threshold = 1000;
  /// Items kept at each end of a summarised axis (an axis is cut when longer than twice this).
  int64_t edgeItems = 3;
};

/// The values of `a` as NumPy prints them: brackets nested as the shape, one innermost row per
/// line (blank lines between higher-rank blocks), elements right-aligned to a common width,
/// `...` for the middle of long axes when the tensor has more than `threshold` elements. A rank-0
/// tensor prints as its single value. Unlike NumPy, rows are not wrapped at 75 columns, and floats
/// print with `%.6g`.
std::string formatValues(const NDArray& a, const ArrayPrintOptions& options = {});

}  // namespace tessera
