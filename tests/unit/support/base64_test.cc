#include "support/base64.h"

#include <gtest/gtest.h>

namespace tessera {
namespace {

TEST(Base64, EncodesRfc4648Vectors) {
  auto enc = [](const std::string& s) {
    return base64Encode(reinterpret_cast<const uint8_t*>(s.data()), s.size());
  };
  EXPECT_EQ(enc(""), "");
  EXPECT_EQ(enc("f"), "Zg==");
  EXPECT_EQ(enc("fo"), "Zm8=");
  EXPECT_EQ(enc("foo"), "Zm9v");
  EXPECT_EQ(enc("foobar"), "Zm9vYmFy");
}

TEST(Base64, RoundTripsAllByteValues) {
  std::vector<uint8_t> bytes(256);
  for (int i = 0; i < 256; ++i) bytes[i] = static_cast<uint8_t>(i);
  auto decoded = base64Decode(base64Encode(bytes.data(), bytes.size()));
  ASSERT_TRUE(decoded.has_value());
  EXPECT_EQ(*decoded, bytes);
}

TEST(Base64, RejectsMalformedText) {
  EXPECT_FALSE(base64Decode("abc").has_value());   // bad length
  EXPECT_FALSE(base64Decode("ab!d").has_value());  // bad character
  EXPECT_FALSE(base64Decode("a=bc").has_value());  // padding in the middle
  EXPECT_FALSE(base64Decode("Zg==Zg==").has_value());
}

}  // namespace
}  // namespace tessera
