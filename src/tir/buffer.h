// Buffer: a typed, shaped view of memory that TensorIR reads and writes. Identity is the node;
// `data` is the handle variable the memory is bound to (several buffers may share one `data`,
// e.g. a flattened view of a multi-dimensional buffer).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "tir/expr.h"

namespace tessera::tir {

class BufferNode {
 public:
  std::string name;
  Var data;  ///< handle variable (dtype handle)
  DataType dtype;
  std::vector<PrimExpr> shape;
  std::vector<PrimExpr> strides;  ///< empty: compact row-major
  PrimExpr elemOffset;            ///< elements; null means 0
  std::string scope = "global";   ///< "global", "local", "shared", "local.inp_buffer", ...
  int dataAlignment = 64;         ///< bytes
  int offsetFactor = 1;

  int ndim() const { return static_cast<int>(shape.size()); }
};

/// A new buffer with a fresh data variable named `name`.
Buffer makeBuffer(std::string name, std::vector<PrimExpr> shape, DataType dtype = DataType::float32(),
                  std::string scope = "global");
/// A copy of `buffer` with another shape (same data variable), e.g. a flattened view.
Buffer withShape(const Buffer& buffer, std::vector<PrimExpr> shape);

/// A rectangular region of a buffer: one Range per dimension.
struct BufferRegion {
  Buffer buffer;
  std::vector<Range> region;
};
/// The region covering all of `buffer`.
BufferRegion fullRegion(const Buffer& buffer);

/// A buffer declared inside a block as a view of a region of another (used by tensorize).
struct MatchBufferRegion {
  Buffer buffer;
  BufferRegion source;
};

}  // namespace tessera::tir
