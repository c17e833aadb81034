// Bit-exact conversions between float32 and the 16-bit float formats (IEEE half, bfloat16), with
// round-to-nearest-even, as hardware and PyTorch do them.
#pragma once

#include <cstdint>

namespace tessera {

/// IEEE 754 binary16 bits -> float32 value (exact).
float halfToFloat(uint16_t bits);
/// float32 -> nearest binary16 (ties to even; overflow to inf; NaN stays NaN).
uint16_t floatToHalf(float value);
/// bfloat16 bits -> float32 value (exact).
float bfloat16ToFloat(uint16_t bits);
/// float32 -> nearest bfloat16 (ties to even; NaN stays NaN).
uint16_t floatToBfloat16(float value);

}  // namespace tessera
