#include "support/float16.h"

#include <bit>
#include <cmath>

namespace tessera {

float halfToFloat(uint16_t bits) {
  const uint32_t sign = (bits >> 15) & 1u;
  const uint32_t exponent = (bits >> 10) & 0x1fu;
  const uint32_t mantissa = bits & 0x3ffu;
  float magnitude;
  if (exponent == 0) {
    magnitude = std::ldexp(static_cast<float>(mantissa), -24);  // zero or subnormal
  } else if (exponent == 31) {
    magnitude = mantissa == 0 ? INFINITY : NAN;
  } else {
    magnitude = std::ldexp(static_cast<float>(mantissa | 0x400u), static_cast<int>(exponent) - 25);
  }
  return sign ? -magnitude : magnitude;
}

uint16_t floatToHalf(float value) {
  const uint32_t x = std::bit_cast<uint32_t>(value);
  const uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  const uint32_t absBits = x & 0x7fffffffu;
  if (absBits > 0x7f800000u) return sign | 0x7e00u;   // NaN
  if (absBits >= 0x477ff000u) return sign | 0x7c00u;  // rounds to >= 65520: infinity
  if (absBits < 0x38800000u) {
    // Subnormal half (or zero): value = m * 2^-24 with m rounded to nearest even.
    const float scaled = std::ldexp(std::bit_cast<float>(absBits), 24);
    const auto m = static_cast<uint16_t>(std::nearbyint(scaled));  // default mode: ties to even
    return sign | m;
  }
  // Normal: rebias the exponent and round the 13 dropped mantissa bits to nearest even.
  uint32_t halfBits = ((absBits >> 13) - ((127u - 15u) << 10));
  const uint32_t dropped = absBits & 0x1fffu;
  if (dropped > 0x1000u || (dropped == 0x1000u && (halfBits & 1u))) ++halfBits;
  return sign | static_cast<uint16_t>(halfBits);
}

float bfloat16ToFloat(uint16_t bits) {
  return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16);
}

uint16_t floatToBfloat16(float value) {
  const uint32_t x = std::bit_cast<uint32_t>(value);
  if ((x & 0x7fffffffu) > 0x7f800000u)
    return static_cast<uint16_t>((x >> 16) | 0x40u);  // quiet NaN
  const uint32_t roundingBias = 0x7fffu + ((x >> 16) & 1u);
  return static_cast<uint16_t>((x + roundingBias) >> 16);
}

}  // namespace tessera
