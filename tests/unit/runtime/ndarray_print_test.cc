// formatValues: the exact text NumPy's repr shows between `array(` and `)`, for every rank,
// summarised tensors and each element kind.
#include "runtime/ndarray_print.h"

#include <gtest/gtest.h>

#include <cmath>

namespace tessera {
namespace {

// 0, 1, 2, ... in `dtype` (NumPy's arange(n).reshape(shape)).
NDArray arange(std::vector<int64_t> shape, DataType dtype = DataType::int64()) {
  NDArray a = NDArray::empty(std::move(shape), dtype);
  for (int64_t i = 0; i < a.numel(); ++i) a.setInt(i, i);
  return a;
}

TEST(FormatValues, ScalarIsItsValue) {
  EXPECT_EQ(formatValues(NDArray::scalarInt(-7, DataType::int32())), "-7");
  EXPECT_EQ(formatValues(NDArray::scalar(0.25, DataType::float32())), "0.25");
}

TEST(FormatValues, OneDimensionIsOneRow) {
  EXPECT_EQ(formatValues(arange({3})), "[0, 1, 2]");
  EXPECT_EQ(formatValues(arange({1})), "[0]");
}

TEST(FormatValues, TwoDimensionsPutEachRowOnItsLine) {
  EXPECT_EQ(formatValues(arange({2, 3})), "[[0, 1, 2],\n [3, 4, 5]]");
  EXPECT_EQ(formatValues(arange({3, 1})), "[[0],\n [1],\n [2]]");
}

TEST(FormatValues, ThreeDimensionsSeparateBlocksByABlankLine) {
  EXPECT_EQ(formatValues(arange({2, 2, 3})),
            "[[[ 0,  1,  2],\n"
            "  [ 3,  4,  5]],\n"
            "\n"
            " [[ 6,  7,  8],\n"
            "  [ 9, 10, 11]]]");
}

TEST(FormatValues, FourDimensionsSeparateByTwoBlankLines) {
  EXPECT_EQ(formatValues(arange({2, 1, 1, 2})),
            "[[[[0, 1]]],\n"
            "\n"
            "\n"
            " [[[2, 3]]]]");
}

TEST(FormatValues, ElementsAreRightAlignedToOneWidth) {
  NDArray a = NDArray::empty({2, 2}, DataType::float32());
  for (int64_t i = 0; i < 4; ++i) a.setFloat(i, std::vector<double>{1.5, -2, 0.125, 300}[i]);
  EXPECT_EQ(formatValues(a), "[[  1.5,    -2],\n [0.125,   300]]");
}

TEST(FormatValues, ElementKinds) {
  NDArray b = NDArray::empty({3}, DataType::boolType());
  b.setInt(0, 1);
  EXPECT_EQ(formatValues(b), "[ True, False, False]");
  NDArray u = NDArray::empty({2}, DataType::uint64());
  u.setUInt(0, 18446744073709551615ull);
  EXPECT_EQ(formatValues(u), "[18446744073709551615,                    0]");
  NDArray f = NDArray::empty({3}, DataType::float64());
  f.setFloat(0, -std::nan(""));
  f.setFloat(1, -INFINITY);
  f.setFloat(2, 1e-7);
  EXPECT_EQ(formatValues(f), "[  nan,  -inf, 1e-07]");
}

TEST(FormatValues, EmptyTensorIsEmptyBrackets) {
  EXPECT_EQ(formatValues(NDArray::empty({2, 0}, DataType::float32())), "[]");
}

// NumPy summarises above 1000 elements (threshold), keeping 3 items at each end (edgeitems).
TEST(FormatValues, ThousandElementsPrintInFull) {
  const std::string text = formatValues(arange({1, 1000}));
  EXPECT_EQ(text.find("..."), std::string::npos);
  EXPECT_EQ(text.substr(0, 15), "[[  0,   1,   2");
  EXPECT_EQ(text.find('\n'), std::string::npos);
}

TEST(FormatValues, MoreThanAThousandElementsAreSummarised) {
  EXPECT_EQ(formatValues(arange({1001})), "[   0,    1,    2, ...,  998,  999, 1000]");
  EXPECT_EQ(formatValues(arange({100, 20})),
            "[[   0,    1,    2, ...,   17,   18,   19],\n"
            " [  20,   21,   22, ...,   37,   38,   39],\n"
            " [  40,   41,   42, ...,   57,   58,   59],\n"
            " ...,\n"
            " [1940, 1941, 1942, ..., 1957, 1958, 1959],\n"
            " [1960, 1961, 1962, ..., 1977, 1978, 1979],\n"
            " [1980, 1981, 1982, ..., 1997, 1998, 1999]]");
  // Short axes are kept whole.
  EXPECT_EQ(formatValues(arange({1001, 1})),
            "[[   0],\n [   1],\n [   2],\n ...,\n [ 998],\n [ 999],\n [1000]]");
}

TEST(FormatValues, SummarisedOuterAxesKeepTheirBlankLines) {
  EXPECT_EQ(formatValues(arange({3, 3, 3}), {.threshold = 10, .edgeItems = 1}),
            "[[[ 0, ...,  2],\n"
            "  ...,\n"
            "  [ 6, ...,  8]],\n"
            "\n"
            " ...,\n"
            "\n"
            " [[18, ..., 20],\n"
            "  ...,\n"
            "  [24, ..., 26]]]");
}

}  // namespace
}  // namespace tessera
