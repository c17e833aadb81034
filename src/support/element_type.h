// Kernels that only move elements (transposes, re-blocking, packing) do not care what the
// elements are, only how large: withElementType runs one instantiation per element size.
#pragma once

#include <cstdint>

#include "support/check.h"

namespace tessera {

/// Calls `f(T{})` with T the unsigned integer type of `bytes` bytes (1, 2, 4 or 8); an internal
/// error for any other size.
template <typename F>
void withElementType(int64_t bytes, F&& f) {
  switch (bytes) {
    case 1:
      return f(uint8_t{});
    case 2:
      return f(uint16_t{});
    case 4:
      return f(uint32_t{});
    case 8:
      return f(uint64_t{});
    default:
      TS_CHECK(false) << "no element copy for " << bytes << "-byte elements";
  }
}

}  // namespace tessera
