// Integer exponentiation shared by the reference kernels and the TIR evaluator, so that both
// define integer `power` the same way.
#pragma once

#include <cstdint>

namespace tessera {

/// base^exponent by squaring, wrapping modulo 2^64 like repeated multiplication.
inline uint64_t powerBySquaring(uint64_t base, uint64_t exponent) {
  uint64_t result = 1;
  for (; exponent != 0; exponent >>= 1) {
    if (exponent & 1) result *= base;
    base *= base;
  }
  return result;
}

/// Signed integer power: wraps like repeated multiplication; a negative exponent gives the integer
/// part of the real result (0 except for bases 1 and -1).
inline int64_t signedPower(int64_t base, int64_t exponent) {
  if (exponent < 0) {
    if (base == 1) return 1;
    if (base == -1) return exponent % 2 == 0 ? 1 : -1;
    return 0;
  }
  return static_cast<int64_t>(
      powerBySquaring(static_cast<uint64_t>(base), static_cast<uint64_t>(exponent)));
}

}  // namespace tessera
