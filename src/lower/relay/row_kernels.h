// Row kernels: a primitive function whose only `?` dims are leading axes that it maps row to row
// (a dynamic batch through conv2d, dense, pooling, flatten, elementwise ops) is compiled for one
// row, with static shapes, and the VM calls it once per row on views of its batched arguments
// (call_kernel_rows). Its kernel keeps every static-shape schedule, weight packing and
// alter-layout choice; functions that mix rows are compiled for symbolic extents instead.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "relay/expr.h"

namespace tessera::lower {

/// A primitive function specialised to one row.
struct RowSplit {
  relay::Function perRow;          ///< the function with each leading `?` replaced by 1
  std::vector<bool> slicedParams;  ///< per parameter: passed as its rows (else whole)
};

/// The row split of `fn`, or nullopt (with the reason in `why`) when a `?` dim is not a leading
/// axis, an op works along the leading axis (an `axis` attribute naming it, a reduction over
/// every axis), or a value's leading axis stops being the rows (a reshape or concatenation
/// across them).
std::optional<RowSplit> splitByRows(const relay::Function& fn, std::string* why = nullptr);

}  // namespace tessera::lower
