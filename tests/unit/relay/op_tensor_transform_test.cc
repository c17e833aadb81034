// Tensor ops, part 2: shape transforms, selection, creation, and the registry rows and printed
// attributes of every tensor op. Every constraint label of docs/spec/ops/tensor.md for these ops
// has a negative test named after it.
#include <gtest/gtest.h>

#include "relay/op/op_common.h"
#include "relay/op/tensor.h"
#include "support/diagnostic.h"
#include "test_util.h"

namespace tessera::relay {
namespace {

const DataType kF32 = DataType::float32();
const DataType kI32 = DataType::int32();
const DataType kI8 = DataType::int8();

NDArray t(const std::vector<int64_t>& shape, DataType dtype, const std::vector<double>& values) {
  return test::tensorOf(shape, dtype, values);
}
// 0, 1, 2, ... in `shape`.
NDArray iota(const std::vector<int64_t>& shape, DataType dtype = kF32) {
  NDArray a = NDArray::empty(shape, dtype);
  for (int64_t i = 0; i < a.numel(); ++i) a.setInt(i, i);
  return a;
}
Value evalV(const std::string& op, std::vector<Value> args, Attrs attrs = nullptr) {
  return evalOp(op, args, std::move(attrs));
}
NDArray eval(const std::string& op, std::vector<Value> args, Attrs attrs = nullptr) {
  return evalV(op, std::move(args), std::move(attrs)).tensor();
}
std::vector<double> values(const NDArray& a) {
  return test::valuesOf(a);
}
std::string typeStr(const std::string& op, const std::vector<Type>& args, Attrs attrs = nullptr) {
  return typeToString(inferCallType(op, args, std::move(attrs)));
}
using test::diagnosticOf;
// Checks the code and that the message mentions each of `parts`.
void expectTypeError(const std::string& op, const std::vector<Type>& args, Attrs attrs,
                     const std::string& code, const std::vector<std::string>& parts) {
  Diagnostic d = diagnosticOf([&] { inferCallType(op, args, attrs); });
  EXPECT_EQ(d.code, code) << d.str();
  EXPECT_EQ(d.context, op) << d.str();
  for (const std::string& p : parts) EXPECT_NE(d.message.find(p), std::string::npos) << d.str();
}

// --- reshape -------------------------------------------------------------------------------------

Attrs newshape(std::vector<int64_t> s, bool allowzero = false) {
  return makeAttrs(ReshapeAttrs{.newshape = std::move(s), .allowzero = allowzero});
}

TEST(OpTensorReshape, SpecialValueExamplesOfSpec34) {
  const Type in = tensorType({2, 3, 4}, kF32);
  auto shapeOf = [&](std::vector<int64_t> s) { return typeStr("reshape", {in}, newshape(s)); };
  EXPECT_EQ(shapeOf({4, 0, 2}), "Tensor[(4, 3, 2), float32]");
  EXPECT_EQ(shapeOf({6, 1, -1}), "Tensor[(6, 1, 4), float32]");
  EXPECT_EQ(shapeOf({-2, 1, 1}), "Tensor[(2, 3, 4, 1, 1), float32]");
  EXPECT_EQ(shapeOf({-3, 4}), "Tensor[(6, 4), float32]");
  EXPECT_EQ(shapeOf({-4, 1, 2, -2}), "Tensor[(1, 2, 3, 4), float32]");
  EXPECT_EQ(shapeOf({2, -4, -1, 3, -2}), "Tensor[(2, 1, 3, 4), float32]");
  EXPECT_EQ(shapeOf({0, -1}), "Tensor[(2, 12), float32]");
  EXPECT_EQ(shapeOf({-1}), "Tensor[(24), float32]");
}

TEST(OpTensorReshape, AllowzeroUnknownDimsAndKernel) {
  EXPECT_EQ(typeStr("reshape", {tensorType({0, 3}, kF32)}, newshape({3, 0}, true)),
            "Tensor[(3, 0), float32]");
  const Type dyn = tensorType(Shape{Dim::any(), Dim(3), Dim(4)}, kF32);
  EXPECT_EQ(typeStr("reshape", {dyn}, newshape({0, -1})), "Tensor[(?, 12), float32]");
  EXPECT_EQ(typeStr("reshape", {dyn}, newshape({-1, 4})), "Tensor[(?, 4), float32]");
  const NDArray y = eval("reshape", {iota({2, 3})}, newshape({3, -1}));
  EXPECT_EQ(y.shape(), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(values(y), (std::vector<double>{0, 1, 2, 3, 4, 5}));
  EXPECT_TRUE(OpRegistry::global().find("reshape")->reshapeOnly);
}

TEST(OpTensorReshapeErrors, reshape_c1_ElementCountsDisagree) {
  expectTypeError("reshape", {tensorType({2, 3, 4}, kF32)}, newshape({5, 5}), "reshape_c1",
                  {"(2, 3, 4)", "(5, 5)"});
  expectTypeError("reshape", {tensorType({2, 3, 4}, kF32)}, newshape({5, -1}), "reshape_c1",
                  {"(2, 3, 4)"});
}

TEST(OpTensorReshapeErrors, reshape_c2_MalformedNewshape) {
  const Type in = tensorType({2, 3, 4}, kF32);
  expectTypeError("reshape", {in}, newshape({-1, -1}), "reshape_c2", {"(2, 3, 4)", "-1"});
  expectTypeError("reshape", {in}, newshape({-5}), "reshape_c2", {"(2, 3, 4)"});
  expectTypeError("reshape", {in}, newshape({0, 0, 0, 0}), "reshape_c2", {"(2, 3, 4)"});
  expectTypeError("reshape", {in}, newshape({-4, 1}), "reshape_c2", {"(2, 3, 4)"});
}

TEST(OpTensorReshapeErrors, reshape_c3_SplitDoesNotMatchExtent) {
  expectTypeError("reshape", {tensorType({2, 3, 4}, kF32)}, newshape({-4, 2, 2, -2}), "reshape_c3",
                  {"(2, 3, 4)"});
}

TEST(OpTensorReshape, ReshapeLikeTakesTheOtherShape) {
  const NDArray y =
      eval("reshape_like", {iota({2, 3}), iota({3, 2})}, makeAttrs(ReshapeLikeAttrs{}));
  EXPECT_EQ(y.shape(), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(typeStr("reshape_like", {tensorType({2, 3, 4}, kF32), tensorType({6, 5}, kI32)},
                    makeAttrs(ReshapeLikeAttrs{.lhsBegin = 0, .lhsEnd = 2, .rhsEnd = 1})),
            "Tensor[(6, 4), float32]");
}

TEST(OpTensorReshapeErrors, reshape_like_c1_InvalidAxisRange) {
  expectTypeError("reshape_like", {tensorType({2, 3}, kF32), tensorType({4}, kF32)},
                  makeAttrs(ReshapeLikeAttrs{.lhsBegin = 3}), "reshape_like_c1", {"(2, 3)"});
}

TEST(OpTensorReshapeErrors, reshape_like_c2_ElementCountsDisagree) {
  expectTypeError("reshape_like", {tensorType({2, 3}, kF32), tensorType({4}, kF32)},
                  makeAttrs(ReshapeLikeAttrs{}), "reshape_like_c2", {"(2, 3)", "(4)"});
}

// --- transpose, broadcast_to, expand_dims, squeeze -----------------------------------------------

TEST(OpTensorShape, TransposeValuesAndTypes) {
  Attrs reverse = makeAttrs(TransposeAttrs{});
  const NDArray y = eval("transpose", {iota({2, 3})}, reverse);
  EXPECT_EQ(y.shape(), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(values(y), (std::vector<double>{0, 3, 1, 4, 2, 5}));
  EXPECT_EQ(typeStr("transpose", {tensorType({2, 3, 4}, kF32)},
                    makeAttrs(TransposeAttrs{.axes = {{1, -1, 0}}})),
            "Tensor[(3, 4, 2), float32]");
  const NDArray z =
      eval("transpose", {iota({2, 2, 2})}, makeAttrs(TransposeAttrs{.axes = {{0, 2, 1}}}));
  EXPECT_EQ(values(z), (std::vector<double>{0, 2, 1, 3, 4, 6, 5, 7}));
}

TEST(OpTensorShapeErrors, transpose_c1_AxesMustListEveryAxis) {
  expectTypeError("transpose", {tensorType({2, 3, 4}, kF32)},
                  makeAttrs(TransposeAttrs{.axes = {{1, 0}}}), "transpose_c1", {"(2, 3, 4)"});
}

TEST(OpTensorShapeErrors, transpose_c2_AxesMustBeAPermutation) {
  expectTypeError("transpose", {tensorType({2, 3}, kF32)},
                  makeAttrs(TransposeAttrs{.axes = {{0, -2}}}), "transpose_c2", {"(2, 3)"});
}

TEST(OpTensorShape, BroadcastToExpandDimsSqueeze) {
  Attrs to23 = makeAttrs(InitOpAttrs{.shape = {2, 3}});
  EXPECT_EQ(values(eval("broadcast_to", {t({3}, kF32, {1, 2, 3})}, to23)),
            (std::vector<double>{1, 2, 3, 1, 2, 3}));
  EXPECT_EQ(typeStr("broadcast_to", {tensorType({2, 1}, kI8)}, to23), "Tensor[(2, 3), int8]");
  const Type in = tensorType({2, 3}, kF32);
  EXPECT_EQ(typeStr("expand_dims", {in}, makeAttrs(ExpandDimsAttrs{.axis = 1, .numNewaxis = 2})),
            "Tensor[(2, 1, 1, 3), float32]");
  EXPECT_EQ(typeStr("expand_dims", {in}, makeAttrs(ExpandDimsAttrs{.axis = -1})),
            "Tensor[(2, 3, 1), float32]");
  EXPECT_EQ(typeStr("expand_dims", {in}, makeAttrs(ExpandDimsAttrs{.axis = -3})),
            "Tensor[(1, 2, 3), float32]");
  const Type ones = tensorType(Shape{Dim(1), Dim(3), Dim(1), Dim::any()}, kF32);
  EXPECT_EQ(typeStr("squeeze", {ones}, makeAttrs(SqueezeAttrs{})), "Tensor[(3, ?), float32]");
  EXPECT_EQ(typeStr("squeeze", {ones}, makeAttrs(SqueezeAttrs{.axis = {{0, -1}}})),
            "Tensor[(3, 1), float32]");
  const NDArray e = eval("expand_dims", {iota({2})}, makeAttrs(ExpandDimsAttrs{.axis = 0}));
  EXPECT_EQ(e.shape(), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(values(eval("squeeze", {e}, makeAttrs(SqueezeAttrs{}))), (std::vector<double>{0, 1}));
}

TEST(OpTensorShapeErrors, broadcast_to_c1_ShapeMustBeReachable) {
  expectTypeError("broadcast_to", {tensorType({3}, kF32)}, makeAttrs(InitOpAttrs{.shape = {2, 4}}),
                  "broadcast_to_c1", {"(3)", "[2, 4]"});
}

TEST(OpTensorShapeErrors, expand_dims_c1_AxisOutOfRange) {
  expectTypeError("expand_dims", {tensorType({2, 3}, kF32)}, makeAttrs(ExpandDimsAttrs{.axis = 3}),
                  "expand_dims_c1", {"(2, 3)"});
}

TEST(OpTensorShapeErrors, expand_dims_c2_NegativeNumNewaxis) {
  expectTypeError("expand_dims", {tensorType({2, 3}, kF32)},
                  makeAttrs(ExpandDimsAttrs{.axis = 0, .numNewaxis = -1}), "expand_dims_c2",
                  {"(2, 3)"});
}

TEST(OpTensorShapeErrors, squeeze_c1_AxisOutOfRange) {
  expectTypeError("squeeze", {tensorType({1, 3}, kF32)}, makeAttrs(SqueezeAttrs{.axis = {{2}}}),
                  "squeeze_c1", {"axis 2"});
}

TEST(OpTensorShapeErrors, squeeze_c2_AxisIsNotOne) {
  expectTypeError("squeeze", {tensorType({1, 3}, kF32)}, makeAttrs(SqueezeAttrs{.axis = {{1}}}),
                  "squeeze_c2", {"(1, 3)"});
}

// --- layout_transform ----------------------------------------------------------------------------

Attrs layouts(const char* src, const char* dst) {
  return makeAttrs(LayoutTransformAttrs{.srcLayout = src, .dstLayout = dst});
}

TEST(OpTensorLayout, ReblocksAndRoundTrips) {
  const NDArray x = iota({1, 32, 2, 2});
  const NDArray y = eval("layout_transform", {x}, layouts("NCHW", "NCHW16c"));
  EXPECT_EQ(y.shape(), (std::vector<int64_t>{1, 2, 2, 2, 16}));
  // y[0, cb, h, w, c] = x[0, cb * 16 + c, h, w]
  const int64_t at = ravelIndex({0, 1, 1, 0, 5}, y.shape());
  EXPECT_EQ(y.getFloat(at), x.getFloat(ravelIndex({0, 21, 1, 0}, x.shape())));
  const NDArray back = eval("layout_transform", {y}, layouts("NCHW16c", "NCHW"));
  EXPECT_TRUE(test::allClose(back, x));
  EXPECT_EQ(typeStr("layout_transform", {tensorType({1, 3, 4, 4, 1, 16}, kF32)},
                    layouts("NCHW1n16c", "NCHW")),
            "Tensor[(1, 48, 4, 4), float32]");
  EXPECT_TRUE(test::allClose(eval("layout_transform", {iota({2, 3})}, layouts("NC", "CN")),
                             eval("transpose", {iota({2, 3})}, makeAttrs(TransposeAttrs{}))));
}

// The kernels move rows (and 32 x 32 tiles for a transpose of the last two axes); checked here
// element by element against plain index arithmetic on shapes that are not multiples of a tile.
TEST(OpTensorShape, TransposeAndLayoutKernelsMatchIndexArithmetic) {
  for (const std::vector<int64_t>& axes :
       std::vector<std::vector<int64_t>>{{1, 0, 2}, {0, 2, 1}, {2, 1, 0}, {2, 0, 1}}) {
    for (DataType dtype : {kF32, kI8, DataType::float64()}) {
      const NDArray x = iota({3, 37, 45}, dtype);
      const NDArray y = eval("transpose", {x}, makeAttrs(TransposeAttrs{.axes = axes}));
      for (int64_t o = 0; o < y.numel(); ++o) {
        const std::vector<int64_t> oc = unravelIndex(o, y.shape());
        std::vector<int64_t> ic(3);
        for (size_t k = 0; k < 3; ++k) ic[axes[k]] = oc[k];
        ASSERT_EQ(y.getFloat(o), x.getFloat(ravelIndex(ic, x.shape()))) << o;
      }
    }
  }
  const NDArray x = iota({2, 48, 3, 5});
  const NDArray y = eval("layout_transform", {x}, layouts("NCHW", "NCHW16c"));
  for (int64_t o = 0; o < y.numel(); ++o) {
    const std::vector<int64_t> c = unravelIndex(o, y.shape());
    ASSERT_EQ(y.getFloat(o),
              x.getFloat(ravelIndex({c[0], c[1] * 16 + c[4], c[2], c[3]}, x.shape())));
  }
  const NDArray w = iota({32, 48, 3, 3});
  const NDArray p = eval("layout_transform", {w}, layouts("OIHW", "OIHW16i8o"));
  for (int64_t o = 0; o < p.numel(); ++o) {
    const std::vector<int64_t> c = unravelIndex(o, p.shape());
    ASSERT_EQ(p.getFloat(o),
              w.getFloat(ravelIndex({c[0] * 8 + c[5], c[1] * 16 + c[4], c[2], c[3]}, w.shape())));
  }
}

TEST(OpTensorLayoutErrors, layout_transform_c1_MalformedLayout) {
  expectTypeError("layout_transform", {tensorType({1, 3, 4, 4}, kF32)}, layouts("NCHW", "NCHW16"),
                  "layout_transform_c1", {"NCHW16"});
}

TEST(OpTensorLayoutErrors, layout_transform_c2_DataDoesNotFitSrcLayout) {
  expectTypeError("layout_transform", {tensorType({1, 3, 4}, kF32)}, layouts("NCHW", "NHWC"),
                  "layout_transform_c2", {"(1, 3, 4)", "NCHW"});
  expectTypeError("layout_transform", {tensorType({1, 2, 4, 4, 8}, kF32)},
                  layouts("NCHW16c", "NCHW"), "layout_transform_c2", {"(1, 2, 4, 4, 8)"});
}

TEST(OpTensorLayoutErrors, layout_transform_c3_NotConvertible) {
  expectTypeError("layout_transform", {tensorType({1, 3, 4, 4}, kF32)}, layouts("NCHW", "NCHW16c"),
                  "layout_transform_c3", {"(1, 3, 4, 4)"});
  expectTypeError("layout_transform", {tensorType({1, 3, 4, 4}, kF32)}, layouts("NCHW", "NCDW"),
                  "layout_transform_c3", {"(1, 3, 4, 4)"});
}

// --- concatenate, stack, split -------------------------------------------------------------------

Type tupleOf(std::vector<Type> fields) {
  return tupleType(std::move(fields));
}

TEST(OpTensorSelect, ConcatenateAndStack) {
  const NDArray a = t({2, 1}, kF32, {1, 2});
  const NDArray b = t({2, 2}, kF32, {3, 4, 5, 6});
  const NDArray c =
      eval("concatenate", {Value::tuple({a, b})}, makeAttrs(ConcatenateAttrs{.axis = 1}));
  EXPECT_EQ(c.shape(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(values(c), (std::vector<double>{1, 3, 4, 2, 5, 6}));
  EXPECT_EQ(values(eval("concatenate", {Value::tuple({b, b})}, makeAttrs(ConcatenateAttrs{}))),
            (std::vector<double>{3, 4, 5, 6, 3, 4, 5, 6}));
  const Type dyn = tensorType(Shape{Dim::any(), Dim(2)}, kF32);
  EXPECT_EQ(typeStr("concatenate", {tupleOf({dyn, tensorType({3, 2}, kF32)})},
                    makeAttrs(ConcatenateAttrs{.axis = -1})),
            "Tensor[(3, 4), float32]");
  const NDArray s = eval("stack", {Value::tuple({t({2}, kF32, {1, 2}), t({2}, kF32, {3, 4})})},
                         makeAttrs(StackAttrs{.axis = 1}));
  EXPECT_EQ(s.shape(), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(values(s), (std::vector<double>{1, 3, 2, 4}));
}

TEST(OpTensorSelectErrors, concatenate_c1_ArgumentMustBeATupleOfTensors) {
  expectTypeError("concatenate", {tensorType({2}, kF32)}, makeAttrs(ConcatenateAttrs{}),
                  "concatenate_c1", {"Tensor[(2), float32]"});
  expectTypeError("concatenate", {tupleOf({})}, makeAttrs(ConcatenateAttrs{}), "concatenate_c1",
                  {"tuple"});
}

TEST(OpTensorSelectErrors, concatenate_c2_RanksAndDtypesMustAgree) {
  expectTypeError("concatenate", {tupleOf({tensorType({2}, kF32), tensorType({2}, kI32)})},
                  makeAttrs(ConcatenateAttrs{}), "concatenate_c2", {"(2)", "int32"});
}

TEST(OpTensorSelectErrors, concatenate_c3_AxisOutOfRange) {
  expectTypeError("concatenate", {tupleOf({tensorType({2}, kF32)})},
                  makeAttrs(ConcatenateAttrs{.axis = 1}), "concatenate_c3", {"axis 1"});
}

TEST(OpTensorSelectErrors, concatenate_c4_OtherDimsMustAgree) {
  expectTypeError("concatenate", {tupleOf({tensorType({2, 3}, kF32), tensorType({4, 2}, kF32)})},
                  makeAttrs(ConcatenateAttrs{}), "concatenate_c4", {"(2, 3)", "(4, 2)"});
}

TEST(OpTensorSelectErrors, stack_c1_ArgumentMustBeATupleOfTensors) {
  expectTypeError("stack", {tensorType({2}, kF32)}, makeAttrs(StackAttrs{}), "stack_c1",
                  {"Tensor[(2), float32]"});
}

TEST(OpTensorSelectErrors, stack_c3_AxisOutOfRange) {
  expectTypeError("stack", {tupleOf({tensorType({2}, kF32)})}, makeAttrs(StackAttrs{.axis = 2}),
                  "stack_c3", {"axis 2"});
}

TEST(OpTensorSelectErrors, stack_c2_ShapesMustAgree) {
  expectTypeError("stack", {tupleOf({tensorType({2}, kF32), tensorType({3}, kF32)})},
                  makeAttrs(StackAttrs{}), "stack_c2", {"(2)", "(3)"});
}

TEST(OpTensorSelect, SplitSectionsAndIndices) {
  Value parts = evalV("split", {iota({6})},
                      makeAttrs(SplitAttrs{.indicesOrSections = AttrValue::integer(3)}));
  ASSERT_EQ(parts.fields().size(), 3u);
  EXPECT_EQ(values(parts.fields()[2].tensor()), (std::vector<double>{4, 5}));
  Attrs at14 = makeAttrs(
      SplitAttrs{.indicesOrSections = toAttrValue(std::vector<int64_t>{1, 4}), .axis = -1});
  EXPECT_EQ(typeStr("split", {tensorType({2, 6}, kF32)}, at14),
            "(Tensor[(2, 1), float32], Tensor[(2, 3), float32], Tensor[(2, 2), float32])");
  Value p = evalV("split", {iota({2, 6})}, at14);
  EXPECT_EQ(values(p.fields()[1].tensor()), (std::vector<double>{1, 2, 3, 7, 8, 9}));
}

TEST(OpTensorSelectErrors, split_c1_BadIndicesOrSections) {
  expectTypeError("split", {tensorType({6}, kF32)},
                  makeAttrs(SplitAttrs{.indicesOrSections = AttrValue::integer(0)}), "split_c1",
                  {"0"});
  expectTypeError("split", {tensorType({6}, kF32)},
                  makeAttrs(SplitAttrs{.indicesOrSections = AttrValue::string("x")}), "split_c1",
                  {"indices_or_sections"});
}

TEST(OpTensorSelectErrors, split_c2_SectionsMustDivideTheAxis) {
  expectTypeError("split", {tensorType({7}, kF32)},
                  makeAttrs(SplitAttrs{.indicesOrSections = AttrValue::integer(3)}), "split_c2",
                  {"(7)", "3"});
}

TEST(OpTensorSelectErrors, split_c3_IndicesMustAscend) {
  expectTypeError(
      "split", {tensorType({6}, kF32)},
      makeAttrs(SplitAttrs{.indicesOrSections = toAttrValue(std::vector<int64_t>{4, 2})}),
      "split_c3", {"[4, 2]", "(6)"});
}

TEST(OpTensorSelectErrors, split_c4_AxisOutOfRange) {
  expectTypeError("split", {tensorType({6}, kF32)},
                  makeAttrs(SplitAttrs{.indicesOrSections = AttrValue::integer(2), .axis = 1}),
                  "split_c4", {"axis 1"});
}

// --- strided_slice, take, where ------------------------------------------------------------------

Attrs slice(std::vector<int64_t> begin, std::vector<int64_t> end, std::vector<int64_t> strides,
            std::optional<std::vector<int64_t>> axes = std::nullopt, std::string mode = "end") {
  return makeAttrs(StridedSliceAttrs{.begin = std::move(begin),
                                     .end = std::move(end),
                                     .strides = std::move(strides),
                                     .sliceMode = std::move(mode),
                                     .axes = std::move(axes)});
}

TEST(OpTensorSelect, StridedSliceClampsLikeNumpy) {
  const NDArray x = iota({2, 3, 4});
  EXPECT_EQ(typeStr("strided_slice", {tensorType({2, 3, 4}, kF32)}, slice({0, 1}, {2, 3}, {1})),
            "Tensor[(2, 2, 4), float32]");
  // x[1, ::-1, 1:100:2] -> rows 2, 1, 0 and columns 1, 3.
  const NDArray y = eval("strided_slice", {x}, slice({1, -1, 1}, {2, -100, 100}, {1, -1, 2}));
  EXPECT_EQ(y.shape(), (std::vector<int64_t>{1, 3, 2}));
  EXPECT_EQ(values(y), (std::vector<double>{21, 23, 17, 19, 13, 15}));
  EXPECT_EQ(values(eval("strided_slice", {x}, slice({-2}, {100}, {1}, {{2}}))),
            (std::vector<double>{2, 3, 6, 7, 10, 11, 14, 15, 18, 19, 22, 23}));
  // slice_mode "size": end is a size, -1 meaning "to the end".
  EXPECT_EQ(values(eval("strided_slice", {iota({6})}, slice({1}, {3}, {5}, {}, "size"))),
            (std::vector<double>{1, 2, 3}));
  EXPECT_EQ(values(eval("strided_slice", {iota({6})}, slice({4}, {-1}, {1}, {}, "size"))),
            (std::vector<double>{4, 5}));
  EXPECT_EQ(eval("strided_slice", {iota({6})}, slice({4}, {2}, {1})).numel(), 0);
  EXPECT_EQ(typeStr("strided_slice", {tensorType(Shape{Dim::any(), Dim(4)}, kF32)},
                    slice({0, 0}, {1, 2}, {1})),
            "Tensor[(?, 2), float32]");
}

TEST(OpTensorSelectErrors, strided_slice_c1_ZeroStride) {
  expectTypeError("strided_slice", {tensorType({4}, kF32)}, slice({0}, {4}, {0}),
                  "strided_slice_c1", {"(4)"});
}

TEST(OpTensorSelectErrors, strided_slice_c2_TooManyEntries) {
  expectTypeError("strided_slice", {tensorType({4}, kF32)}, slice({0, 0}, {1, 1}, {1}),
                  "strided_slice_c2", {"(4)"});
}

TEST(OpTensorSelectErrors, strided_slice_c3_AxisOutOfRange) {
  expectTypeError("strided_slice", {tensorType({4}, kF32)}, slice({0}, {1}, {1}, {{1}}),
                  "strided_slice_c3", {"(4)"});
}

TEST(OpTensorSelectErrors, strided_slice_c4_BadSliceMode) {
  expectTypeError("strided_slice", {tensorType({4}, kF32)}, slice({0}, {1}, {1}, {}, "stop"),
                  "strided_slice_c4", {"stop"});
}

Attrs takeAttrs(std::optional<int64_t> axis, std::string mode = "clip", int batchDims = 0) {
  return makeAttrs(TakeAttrs{.batchDims = batchDims, .axis = axis, .mode = std::move(mode)});
}

TEST(OpTensorSelect, TakeModes) {
  const NDArray x = iota({2, 3});
  const NDArray idx = t({2}, kI32, {2, 0});
  EXPECT_EQ(values(eval("take", {x, idx}, takeAttrs(std::nullopt))), (std::vector<double>{2, 0}));
  const NDArray cols = eval("take", {x, idx}, takeAttrs(1));
  EXPECT_EQ(cols.shape(), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(values(cols), (std::vector<double>{2, 0, 5, 3}));
  const NDArray far = t({3}, kI32, {5, -1, 1});
  EXPECT_EQ(values(eval("take", {x, far}, takeAttrs(1))), (std::vector<double>{2, 0, 1, 5, 3, 4}));
  EXPECT_EQ(values(eval("take", {x, far}, takeAttrs(1, "wrap"))),
            (std::vector<double>{2, 2, 1, 5, 5, 4}));
  EXPECT_EQ(typeStr("take", {tensorType({4, 5, 6}, kF32), tensorType({2, 3}, kI32)}, takeAttrs(1)),
            "Tensor[(4, 2, 3, 6), float32]");
  // batch_dims = 1: row i gathers with indices[i].
  const NDArray rows = t({2, 2}, kI32, {2, 1, 0, 0});
  EXPECT_EQ(values(eval("take", {x, rows}, takeAttrs(1, "clip", 1))),
            (std::vector<double>{2, 1, 3, 3}));
}

TEST(OpTensorSelectErrors, take_c1_IndicesMustBeIntegers) {
  expectTypeError("take", {tensorType({3}, kF32), tensorType({2}, kF32)}, takeAttrs(0), "take_c1",
                  {"(2)", "float32"});
}

TEST(OpTensorSelectErrors, take_c2_AxisOutOfRange) {
  expectTypeError("take", {tensorType({3}, kF32), tensorType({2}, kI32)}, takeAttrs(1), "take_c2",
                  {"axis 1"});
}

TEST(OpTensorSelectErrors, take_c3_BadBatchDims) {
  expectTypeError("take", {tensorType({3, 4}, kF32), tensorType({3}, kI32)},
                  takeAttrs(0, "clip", 1), "take_c3", {"(3, 4)"});
}

TEST(OpTensorSelectErrors, take_c4_BadMode) {
  expectTypeError("take", {tensorType({3}, kF32), tensorType({2}, kI32)}, takeAttrs(0, "nearest"),
                  "take_c4", {"nearest"});
}

TEST(OpTensorSelectErrors, take_c5_FastIndexOutOfRange) {
  Diagnostic d =
      diagnosticOf([&] { eval("take", {iota({3}), t({1}, kI32, {3})}, takeAttrs(0, "fast")); });
  EXPECT_EQ(d.code, "take_c5") << d.str();
  EXPECT_NE(d.message.find("index 3"), std::string::npos) << d.str();
}

TEST(OpTensorSelect, WhereBroadcastsThreeWays) {
  const NDArray cond = t({2, 1}, DataType::boolType(), {1, 0});
  const NDArray y = eval("where", {cond, t({3}, kF32, {1, 2, 3}), t({1}, kF32, {-1})});
  EXPECT_EQ(y.shape(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(values(y), (std::vector<double>{1, 2, 3, -1, -1, -1}));
}

TEST(OpTensorSelectErrors, where_c1_ConditionMustBeBool) {
  expectTypeError("where", {tensorType({2}, kF32), tensorType({2}, kF32), tensorType({2}, kF32)},
                  nullptr, "where_c1", {"(2)", "bool"});
}

TEST(OpTensorSelectErrors, where_c2_BranchesMustShareTheDtype) {
  const Type c = tensorType({2}, DataType::boolType());
  expectTypeError("where", {c, tensorType({2}, kF32), tensorType({2}, kI32)}, nullptr, "where_c2",
                  {"int32", "float32"});
}

TEST(OpTensorSelectErrors, where_c3_ShapesMustBroadcast) {
  const Type c = tensorType({2}, DataType::boolType());
  expectTypeError("where", {c, tensorType({3}, kF32), tensorType({3}, kF32)}, nullptr, "where_c3",
                  {"(2)", "(3)"});
}

// --- creation ------------------------------------------------------------------------------------

Attrs init(std::vector<int64_t> shape, DataType dtype = DataType::voidType()) {
  return makeAttrs(InitOpAttrs{.shape = std::move(shape), .dtype = dtype});
}

TEST(OpTensorCreation, ZerosOnesFull) {
  const NDArray z = eval("zeros", {}, init({2, 3}, kF32));
  EXPECT_EQ(z.shape(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(values(z), std::vector<double>(6, 0));
  EXPECT_EQ(values(eval("ones", {}, init({2}, kI8))), (std::vector<double>{1, 1}));
  // full converts with cast's semantics: 300 saturates to 127 in int8.
  EXPECT_EQ(values(eval("full", {NDArray::scalar(300, kF32)}, init({2}, kI8))),
            (std::vector<double>{127, 127}));
  const NDArray f = eval("full", {NDArray::scalar(2.5, kF32)}, init({1, 2}));
  EXPECT_EQ(f.dtype(), kF32);
  EXPECT_EQ(values(f), (std::vector<double>{2.5, 2.5}));
  EXPECT_EQ(values(eval("ones_like", {iota({2}, kI32)})), (std::vector<double>{1, 1}));
  EXPECT_EQ(values(eval("full_like", {iota({2}, kI32), NDArray::scalar(-7.9, kF32)})),
            (std::vector<double>{-7, -7}));
}

TEST(OpTensorCreationErrors, zeros_c1_DtypeMustBeSet) {
  expectTypeError("zeros", {}, init({2, 3}), "zeros_c1", {"[2, 3]"});
}

TEST(OpTensorCreationErrors, ones_c1_DtypeMustBeSet) {
  expectTypeError("ones", {}, init({4}), "ones_c1", {"[4]"});
}

TEST(OpTensorCreationErrors, zeros_c2_NegativeDimension) {
  expectTypeError("zeros", {}, init({-1}, kF32), "zeros_c2", {"[-1]"});
}

TEST(OpTensorCreationErrors, ones_c2_NegativeDimension) {
  expectTypeError("ones", {}, init({2, -3}, kF32), "ones_c2", {"[2, -3]"});
}

TEST(OpTensorCreationErrors, full_c2_NegativeDimension) {
  expectTypeError("full", {scalarType(kF32)}, init({-2}), "full_c2", {"[-2]"});
}

TEST(OpTensorCreationErrors, full_like_c1_FillValueMustBeScalar) {
  expectTypeError("full_like", {tensorType({3}, kF32), tensorType({3}, kF32)}, nullptr,
                  "full_like_c1", {"(3)"});
}

TEST(OpTensorCreationErrors, full_c3_FillValueMustBeScalar) {
  expectTypeError("full", {tensorType({2}, kF32)}, init({2}), "full_c3", {"(2)"});
}

// --- registry rows and printed attributes --------------------------------------------------------

TEST(OpTensorRegistry, PatternsFollowTvm) {
  auto pattern = [](const char* name) { return OpRegistry::global().find(name)->pattern; };
  for (const char* op : {"exp", "round", "cast", "clip", "fixed_point_multiply", "zeros", "full"})
    EXPECT_EQ(pattern(op), OpPattern::kElemWise) << op;
  for (const char* op : {"add", "right_shift", "less", "broadcast_to", "expand_dims", "where"})
    EXPECT_EQ(pattern(op), OpPattern::kBroadcast) << op;
  for (const char* op : {"reshape", "transpose", "squeeze", "layout_transform", "concatenate",
                         "split", "strided_slice", "take", "stack"})
    EXPECT_EQ(pattern(op), OpPattern::kInjective) << op;
  for (const char* op : {"sum", "mean", "max", "min", "prod", "argmax", "argmin"})
    EXPECT_EQ(pattern(op), OpPattern::kCommReduce) << op;
  for (const char* op : {"reshape", "squeeze", "expand_dims"})
    EXPECT_TRUE(OpRegistry::global().find(op)->reshapeOnly) << op;
  EXPECT_FALSE(OpRegistry::global().find("transpose")->reshapeOnly);
}

TEST(OpTensorRegistry, PrintedAttributesFollowFieldModes) {
  auto printed = [](const Expr& call) { return call->as<CallNode>()->attrs->nonDefaultString(); };
  const Expr x = makeVar("x", tensorType({2, 3}, kF32));
  EXPECT_EQ(printed(reshape(x, {3, 2})), "newshape=[3, 2]");
  EXPECT_EQ(printed(transpose(x)), "axes=None");
  EXPECT_EQ(printed(sum(x)), "");
  EXPECT_EQ(printed(sum(x, {.axis = {{1}}, .keepdims = true})), "axis=[1], keepdims=True");
  EXPECT_EQ(printed(cast(x, kI8)), "dtype=\"int8\"");
  EXPECT_EQ(printed(clip(x, 0, 6)), "a_min=0f, a_max=6f");
  EXPECT_EQ(printed(stridedSlice(x, {0}, {1})), "begin=[0], end=[1], strides=[1], axes=None");
  EXPECT_EQ(printed(squeeze(x)), "");
  EXPECT_EQ(printed(expandDims(x, 1)), "axis=1");
  EXPECT_EQ(printed(split(x, 3)), "indices_or_sections=3");
  EXPECT_EQ(printed(take(x, makeVar("i", tensorType({2}, kI32)))), "");
  EXPECT_EQ(printed(fixedPointMultiply(x, 1073741824, -1)), "multiplier=1073741824, shift=-1");
  EXPECT_EQ(printed(layoutTransform(x, "NC", "CN")), "src_layout=\"NC\", dst_layout=\"CN\"");
  EXPECT_EQ(printed(zeros({2}, kF32)), "shape=[2], dtype=\"float32\"");
  EXPECT_EQ(printed(concatenate({x, x}, 1)), "axis=1");
  EXPECT_EQ(add(x, x)->as<CallNode>()->attrs, nullptr);
}

}  // namespace
}  // namespace tessera::relay
