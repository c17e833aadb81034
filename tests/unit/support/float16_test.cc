#include "support/float16.h"

#include <gtest/gtest.h>

#include <cmath>

namespace tessera {
namespace {

TEST(Float16, ConvertsKnownValues) {
  EXPECT_EQ(floatToHalf(1.0f), 0x3c00);
  EXPECT_EQ(floatToHalf(-2.0f), 0xc000);
  EXPECT_EQ(floatToHalf(65504.0f), 0x7bff);                // largest finite half
  EXPECT_EQ(floatToHalf(65520.0f), 0x7c00);                // rounds to infinity
  EXPECT_EQ(floatToHalf(5.960464477539063e-08f), 0x0001);  // smallest subnormal
  EXPECT_EQ(floatToHalf(0.0f), 0x0000);
  EXPECT_EQ(halfToFloat(0x3555), 0.333251953125f);
  EXPECT_TRUE(std::isnan(halfToFloat(floatToHalf(NAN))));
}

TEST(Float16, RoundsToNearestEven) {
  // 1 + 2^-11 is exactly between 1 and the next half (1 + 2^-10): ties go to the even mantissa (1).
  EXPECT_EQ(floatToHalf(1.0f + std::ldexp(1.0f, -11)), 0x3c00);
  // 1 + 3 * 2^-11 is between 1+2^-10 (odd) and 1+2^-9 (even): goes up.
  EXPECT_EQ(floatToHalf(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02);
}

TEST(Float16, EveryHalfRoundTripsThroughFloat) {
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    const float f = halfToFloat(static_cast<uint16_t>(bits));
    if (std::isnan(f)) continue;
    ASSERT_EQ(floatToHalf(f), bits) << "bits " << bits;
  }
}

TEST(Bfloat16, ConvertsAndRounds) {
  EXPECT_EQ(floatToBfloat16(1.0f), 0x3f80);
  EXPECT_EQ(bfloat16ToFloat(0x3f80), 1.0f);
  EXPECT_EQ(floatToBfloat16(1.0f + std::ldexp(1.0f, -8)), 0x3f80);      // tie -> even
  EXPECT_EQ(floatToBfloat16(1.0f + 3 * std::ldexp(1.0f, -8)), 0x3f82);  // tie -> even (up)
  EXPECT_TRUE(std::isnan(bfloat16ToFloat(floatToBfloat16(NAN))));
}

}  // namespace
}  // namespace tessera
