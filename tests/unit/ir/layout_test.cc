#include "ir/layout.h"

#include <gtest/gtest.h>

namespace tessera {
namespace {

TEST(Layout, ParsesPackedLayouts) {
  auto l = Layout::parse("NCHW1n16c");
  ASSERT_TRUE(l);
  EXPECT_EQ(l->ndim(), 6);
  EXPECT_EQ(l->subFactor('C'), 16);
  EXPECT_EQ(l->subFactor('N'), 1);
  EXPECT_EQ(l->subFactor('H'), 0);
  EXPECT_EQ(l->indexOf('c'), 5);
}

TEST(Layout, RejectsMalformedLayouts) {
  std::string error;
  EXPECT_FALSE(Layout::parse("NCHW16", &error));
  EXPECT_FALSE(Layout::parse("NCHWc", &error));
  EXPECT_NE(error.find("needs a factor"), std::string::npos);
  EXPECT_FALSE(Layout::parse("NCCH", &error));
  EXPECT_FALSE(Layout::parse("NCHW0c", &error));
  EXPECT_FALSE(Layout::parse("NHW16c", &error));
  EXPECT_NE(error.find("no primal axis"), std::string::npos);
  EXPECT_FALSE(Layout::parse("N-CHW", &error));
}

TEST(Layout, ConvertsShapesBetweenLayouts) {
  auto nchw = *Layout::parse("NCHW");
  auto packed = *Layout::parse("NCHW1n16c");
  auto out = convertShape(makeShape({1, 3, 4, 4, 1, 16}), packed, nchw);
  ASSERT_TRUE(out);
  EXPECT_EQ(shapeToString(*out), "(1, 48, 4, 4)");
  auto back = convertShape(*out, nchw, packed);
  ASSERT_TRUE(back);
  EXPECT_EQ(shapeToString(*back), "(1, 3, 4, 4, 1, 16)");
  auto oihw = *Layout::parse("OIHW");
  auto blocked = *Layout::parse("OIHW16o16i");
  EXPECT_EQ(shapeToString(*convertShape(makeShape({3, 1, 3, 3, 16, 16}), blocked, oihw)),
            "(48, 16, 3, 3)");
  auto nhwc = *Layout::parse("NHWC");
  EXPECT_EQ(shapeToString(*convertShape(makeShape({1, 3, 8, 9}), nchw, nhwc)), "(1, 8, 9, 3)");
}

TEST(Layout, ReportsInconvertibleShapes) {
  std::string error;
  auto nchw = *Layout::parse("NCHW");
  auto packed = *Layout::parse("NCHW16c");
  EXPECT_FALSE(convertShape(makeShape({1, 3, 4, 4}), nchw, packed, &error));
  EXPECT_NE(error.find("not divisible by 16"), std::string::npos);
  EXPECT_FALSE(convertShape(makeShape({1, 3, 4}), nchw, packed, &error));
  EXPECT_FALSE(convertShape(makeShape({1, 3, 4, 4}), nchw, *Layout::parse("OIHW"), &error));
}

}  // namespace
}  // namespace tessera
