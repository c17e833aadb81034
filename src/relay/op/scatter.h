// scatter_elements: TVM's relay.scatter_elements (ONNX ScatterElements). Its output has the data's
// shape, but its writes go to positions read from a tensor when the program runs, which TE's pure
// computes cannot express in linear time; it runs as a VM builtin (OpDef::vmBuiltin) and on the
// reference interpreter. Semantics and constraint labels: docs/spec/ops/dynamic.md.
#pragma once

#include <cstdint>
#include <string>

#include "relay/expr.h"

namespace tessera::relay {

/// scatter_elements: the axis the indices address, and how an update combines with the value
/// already there (TVM's ScatterElementsAttrs; "mean" is not supported).
struct ScatterElementsAttrs {
  static constexpr const char* kTypeKey = "relay.attrs.ScatterElementsAttrs";
  int64_t axis = 0;
  std::string reduction = "update";  ///< update, add, mul, min or max
  template <typename V>
  static void fields(V& v) {
    v("axis", &ScatterElementsAttrs::axis);
    v("reduction", &ScatterElementsAttrs::reduction);
  }
};

/// `data` with element p of `updates` combined into the position of element p of `indices`,
/// whose coordinate along `axis` is replaced by the index (negative indices count from the end).
/// Updates are applied in row-major order, so with "update" the last one to a position wins.
Expr scatterElements(Expr data, Expr indices, Expr updates, int64_t axis = 0,
                     std::string reduction = "update");

}  // namespace tessera::relay
